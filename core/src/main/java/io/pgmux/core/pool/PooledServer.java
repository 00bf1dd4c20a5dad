package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One server connection owned by a pool, with PgBouncer's states. Transitions are CASes on {@code state}
 * so borrowing and returning take no lock.
 */
final class PooledServer<S> implements ServerHandle {
    static final int LOGIN = 0;
    static final int IDLE = 1;
    static final int ACTIVE = 2;
    /** Running server_check_query or server_reset_query. */
    static final int TESTED = 3;
    static final int CLOSING = 4;

    private static final VarHandle STATE;
    private static final AtomicLong IDS = new AtomicLong();

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PooledServer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Pool<S> pool;
    private final long id = IDS.incrementAndGet();
    final long loginStartedNanos;

    private volatile int state = LOGIN;
    volatile S connection;
    /** What the connector says the connection is bound to (an event loop, say); null for none. */
    volatile Object affinity;
    volatile long connectedAtNanos;
    /** Jittered connectedAt + server_lifetime; Long.MAX_VALUE when there is no limit. */
    volatile long retireAtNanos = Long.MAX_VALUE;
    /**
     * Written before the store of IDLE that publishes it, and read only after reading the state, so it
     * needs no volatile store of its own on every release.
     */
    long lastUsedNanos;
    /** The lease in use, tracked only when leak detection is on (the janitor's leak check reads it). */
    volatile Lease<S> lease;
    volatile Throwable brokenCause;
    /** Set by soft eviction and RECONNECT: close instead of reusing. */
    volatile boolean evicted;

    PooledServer(Pool<S> pool, long nowNanos) {
        this.pool = pool;
        this.loginStartedNanos = nowNanos;
    }

    int state() {
        return state;
    }

    boolean cas(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    void setState(int update) {
        state = update;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public PoolKey poolKey() {
        return pool.key();
    }

    @Override
    public long connectedAtNanos() {
        return connectedAtNanos;
    }

    @Override
    public void markBroken(Throwable cause) {
        brokenCause = cause != null ? cause : new PoolException("server connection broken");
        if (cas(IDLE, CLOSING)) {
            pool.closeServer(this, "server connection broken while idle");
        }
    }

    boolean isBroken() {
        return brokenCause != null;
    }

    @Override
    public String toString() {
        return "S-" + id + "(" + pool.key() + ")";
    }
}
