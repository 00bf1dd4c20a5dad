package io.pgmux.proxy.prepared;

/**
 * max_prepared_statements as RELOAD and SET leave it. PgBouncer reads its global at every Parse, so a new limit
 * reaches open clients and their servers at their next one; so it does here. Whether a client's named statements
 * are tracked at all is settled at its first message after login, when its relay is made: a client that started
 * under 0 passes them through, and one that started above 0 keeps tracking them, under the last limit above 0, when
 * the value becomes 0.
 */
public final class PreparedStatementLimit {
    private volatile int value;
    private volatile int tracking;

    public PreparedStatementLimit(int value) {
        this.tracking = Math.max(1, value);
        set(value);
    }

    public void set(int value) {
        this.value = value;
        if (value > 0) {
            this.tracking = value;
        }
    }

    /** The value as set: 0 has the clients starting now pass named statements through. */
    public int value() {
        return value;
    }

    /** The statements a server keeps for its tracking clients now: the last value above 0. */
    public int tracking() {
        return tracking;
    }
}
