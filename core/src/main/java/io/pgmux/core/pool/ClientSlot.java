package io.pgmux.core.pool;

import java.util.concurrent.atomic.AtomicBoolean;

/** A client admitted under max_client_conn; closing it lets another client in. */
public final class ClientSlot implements AutoCloseable {
    private final PoolRegistry<?> registry;
    private final Pool<?> pool;
    private final AtomicBoolean closed = new AtomicBoolean();

    ClientSlot(PoolRegistry<?> registry, Pool<?> pool) {
        this.registry = registry;
        this.pool = pool;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            registry.clientGone(pool);
        }
    }
}
