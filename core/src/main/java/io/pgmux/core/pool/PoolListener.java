package io.pgmux.core.pool;

/**
 * Told when a registry makes a pool and when one leaves it, so that what a pool has outside the registry (a
 * fleet membership) comes and goes with it. Both are called on the thread that made or removed the pool, an
 * event loop in the proxy: they must not block.
 */
public interface PoolListener<S> {
    /** {@code pool} was made; called before it opens its first server connection. */
    void created(Pool<S> pool);

    /** {@code pool} left the registry (its database removed, pool_idle_timeout) or the registry closed. */
    void removed(Pool<S> pool);
}
