package io.pgmux.core.pool;

/** The pool's view of one server connection, given to the connector and visible through leases. */
public interface ServerHandle {

    /** A number unique within the JVM, for logs and the admin console. */
    long id();

    PoolKey poolKey();

    /**
     * Reports that the connection is no longer usable (socket closed, fatal error). An idle connection is
     * closed at once; a leased one is closed when its lease ends instead of going back to the pool.
     */
    void markBroken(Throwable cause);

    /** Nanoseconds (pool clock) at which the connection was opened. */
    long connectedAtNanos();

    /**
     * PgBouncer's close_needed: RECONNECT or a RELOAD that changed the database marked the connection to close
     * once its client gives it back.
     */
    boolean closeNeeded();
}
