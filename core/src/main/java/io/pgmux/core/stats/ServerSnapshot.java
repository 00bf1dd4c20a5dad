package io.pgmux.core.stats;

/**
 * One row of SHOW SERVERS, taken at one moment: a server connection of a pool and its PgBouncer state.
 *
 * @param <S> the pooled connection type
 */
public final class ServerSnapshot<S> {
    /** The pool's unique id for the connection (SHOW SERVERS' {@code id}). */
    public final long id;
    /** The connection, or null while it is still logging in. */
    public final S connection;
    /** PgBouncer's name for the state: {@code login}, {@code idle}, {@code used}, {@code active}, {@code tested}. */
    public final String state;
    /** When it finished logging in, on the pool's clock; 0 while logging in. */
    public final long connectedAtNanos;
    /** When it was last lent or given back, on the pool's clock; 0 if never. */
    public final long lastUsedNanos;
    /** Marked by RECONNECT or soft eviction: closed instead of reused. */
    public final boolean closeNeeded;

    public ServerSnapshot(long id, S connection, String state, long connectedAtNanos, long lastUsedNanos,
                          boolean closeNeeded) {
        this.id = id;
        this.connection = connection;
        this.state = state;
        this.connectedAtNanos = connectedAtNanos;
        this.lastUsedNanos = lastUsedNanos;
        this.closeNeeded = closeNeeded;
    }

    @Override
    public String toString() {
        return "S-" + id + " " + state + (closeNeeded ? " close_needed" : "");
    }
}
