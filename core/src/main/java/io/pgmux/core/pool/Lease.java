package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The right to use one server connection until {@link #release()} or {@link #discard(Throwable)}. Ending
 * a lease twice is harmless: only the first call counts, so a late second call can never return a
 * connection that another client holds by then.
 */
public final class Lease<S> implements AutoCloseable {
    private static final VarHandle ENDED;

    static {
        try {
            ENDED = MethodHandles.lookup().findVarHandle(Lease.class, "ended", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PooledServer<S> server;
    private final S connection;
    private final long borrowedAtNanos;
    /** Where the lease was taken, captured only when leak detection is on. */
    final Throwable borrowSite;
    volatile boolean leakReported;
    private volatile int ended;

    Lease(PooledServer<S> server, long borrowedAtNanos, Throwable borrowSite) {
        this.server = server;
        this.connection = server.connection;
        this.borrowedAtNanos = borrowedAtNanos;
        this.borrowSite = borrowSite;
    }

    /** The server connection; use it only until the lease ends. */
    public S connection() {
        return connection;
    }

    public ServerHandle server() {
        return server;
    }

    public Pool<S> pool() {
        return server.pool;
    }

    public long borrowedAtNanos() {
        return borrowedAtNanos;
    }

    public boolean isEnded() {
        return ended != 0;
    }

    /** Gives the connection back for reuse (after server_reset_query where the pool mode asks for it). */
    public void release() {
        if (ENDED.compareAndSet(this, 0, 1)) {
            server.pool.release(server, this);
        }
    }

    /** Closes the connection instead of reusing it: it broke, or its state cannot be cleaned. */
    public void discard(Throwable cause) {
        if (ENDED.compareAndSet(this, 0, 1)) {
            server.brokenCause = cause != null ? cause : new PoolException("discarded by its client");
            server.pool.release(server, this);
        }
    }

    /** Same as {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "Lease[" + server + "]";
    }
}
