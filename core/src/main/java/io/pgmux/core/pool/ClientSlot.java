package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** A client admitted under max_client_conn; closing it lets another client in. Closing twice is harmless. */
public final class ClientSlot implements AutoCloseable {
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(ClientSlot.class, "closed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PoolRegistry<?> registry;
    private final Pool<?> pool;
    /** As {@link PoolRegistry#clientArrives} answered. */
    private final boolean limited;
    private volatile int closed;

    ClientSlot(PoolRegistry<?> registry, Pool<?> pool, boolean limited) {
        this.registry = registry;
        this.pool = pool;
        this.limited = limited;
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, 0, 1)) {
            registry.clientLeaves(pool, limited);
        }
    }
}
