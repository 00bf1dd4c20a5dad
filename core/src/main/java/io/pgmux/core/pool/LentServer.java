package io.pgmux.core.pool;

/**
 * A server connection lent to one client object by {@link Pool#acquireFor(Object, long,
 * java.util.concurrent.TimeUnit)}. The loan is ended by that client, once: a call naming another client,
 * or repeated after the loan ended, does nothing, so it can never end a later client's loan of the same
 * connection. Unlike a {@link Lease}, lending this way allocates nothing.
 */
public interface LentServer<S> extends ServerHandle {

    /** The server connection; use it only while it is lent to you. */
    S connection();

    /** How long the connection sat idle in the pool before this loan, in nanoseconds (pool clock). */
    long idleNanos();

    /** Whether the connection is lent to {@code client} right now. */
    boolean isLentTo(Object client);

    /**
     * Moves the loan from {@code from} to {@code to}, if it is lent to {@code from}: from then on only
     * {@code to} can end it. False (and nothing changed) if it was not lent to {@code from}.
     */
    boolean transfer(Object from, Object to);

    /** Gives the connection back for reuse, if it is lent to {@code client}; false if it was not. */
    boolean release(Object client);

    /** Closes the connection instead of reusing it, if it is lent to {@code client}; false if it was not. */
    boolean discard(Object client, Throwable cause);
}
