package io.pgmux.jmh.micro;

/** A pool under test reduced to what the cycle benchmark measures: borrow a connection, give it back. */
interface PoolCycle extends AutoCloseable {

    /** Borrows a connection and returns it to the pool; gives it to the caller so the JIT cannot drop the borrow. */
    Object borrowAndReturn() throws Exception;

    /** Closes the pool and its connections. */
    @Override
    void close();

    /** The pool {@code name} (a value of {@link PoolCycleBench#pool}) with {@code size} connections open. */
    static PoolCycle start(String name, int size) {
        switch (name) {
            case PgmuxCycle.NAME:
                return new PgmuxCycle(ComparedPools.pgmux(size));
            case PgmuxAsyncCycle.NAME:
                return new PgmuxAsyncCycle(ComparedPools.pgmux(size));
            case HikariCycle.NAME:
                return new HikariCycle(ComparedPools.hikari(size));
            default:
                throw new IllegalArgumentException("unknown pool '" + name + "'; expected " + PgmuxCycle.NAME + ", "
                        + PgmuxAsyncCycle.NAME + " or " + HikariCycle.NAME);
        }
    }
}
