package io.pgmux.jmh.micro;

import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.jmh.stub.StubConnection;

/**
 * pgmux's asynchronous path, {@link Pool#acquireAsync()}, joined by the benchmark thread: with a free
 * connection the stage is already complete, so this measures the cost of the stage over the blocking path.
 */
final class PgmuxAsyncCycle implements PoolCycle {
    static final String NAME = "pgmux-async";

    private final PoolRegistry<StubConnection> registry;
    private final Pool<StubConnection> pool;

    PgmuxAsyncCycle(PoolRegistry<StubConnection> registry) {
        this.registry = registry;
        this.pool = ComparedPools.pgmuxPool(registry);
    }

    @Override
    public Object borrowAndReturn() {
        Lease<StubConnection> lease = pool.acquireAsync().toCompletableFuture().join();
        StubConnection connection = lease.connection();
        lease.release();
        return connection;
    }

    @Override
    public void close() {
        registry.close();
    }
}
