package io.pgmux.jmh.micro;

import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.jmh.stub.StubConnection;

/** pgmux's blocking path: {@link Pool#acquire()} then {@link Lease#release()}. */
final class PgmuxCycle implements PoolCycle {
    static final String NAME = "pgmux";

    private final PoolRegistry<StubConnection> registry;
    private final Pool<StubConnection> pool;

    PgmuxCycle(PoolRegistry<StubConnection> registry) {
        this.registry = registry;
        this.pool = ComparedPools.pgmuxPool(registry);
    }

    @Override
    public Object borrowAndReturn() throws InterruptedException {
        Lease<StubConnection> lease = pool.acquire();
        StubConnection connection = lease.connection();
        lease.release();
        return connection;
    }

    @Override
    public void close() {
        registry.close();
    }
}
