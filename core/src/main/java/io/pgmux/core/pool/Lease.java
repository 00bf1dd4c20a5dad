package io.pgmux.core.pool;

/**
 * The right to use one server connection until {@link #release()} or {@link #discard(Throwable)}. Ending
 * a lease twice is harmless: only the first call counts, so a late second call can never return a
 * connection that another client holds by then.
 */
public final class Lease<S> implements AutoCloseable {
    /** Set by {@link #bind}, before the lease reaches its user, who learns of it through a volatile. */
    private PooledServer<S> server;
    private S connection;
    private long borrowedAtNanos;

    /** A lease not bound yet: the holder a server is lent to, bound to it once lent. */
    Lease() {
    }

    /** Binds the lease to the server just lent to it. */
    void bind(PooledServer<S> lent) {
        server = lent;
        connection = lent.connection;
        borrowedAtNanos = lent.lentAtNanos;
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
        return !server.isLentTo(this);
    }

    /** Gives the connection back for reuse (after server_reset_query where the pool mode asks for it). */
    public void release() {
        server.release(this);
    }

    /**
     * Gives the connection back as {@link #release()} does, not counted as a server assignment (SHOW STATS) nor
     * as a use (no server_check_query or server_reset_query for it): it was borrowed for the pool's own errand, as
     * a new pool's first client learning the servers' parameters, which PgBouncer does not count either.
     */
    public void releaseUncounted() {
        server.releaseUncounted(this);
    }

    /** Closes the connection instead of reusing it: it broke, or its state cannot be cleaned. */
    public void discard(Throwable cause) {
        server.discard(this, cause);
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
