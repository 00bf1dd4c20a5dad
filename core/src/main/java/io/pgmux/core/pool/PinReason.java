package io.pgmux.core.pool;

/**
 * Session state that keeps a client on its server connection in transaction and statement mode, in both faces;
 * its name is the {@code reason} the pool's pin counts and meters carry. The first five are what a server is asked
 * about after a transaction that may have left state (by the proxy's and the JDBC driver's one-query checks, in
 * this order); LOAD cannot be undone nor seen there. The proxy follows SET and pins only for a setting it cannot
 * name (UNKNOWN_SETTING); the JDBC driver pins for every session SET (SESSION_SET), for state its SQL classifier
 * reads in the text, and for its own API paths that never pass through the classifier.
 */
public enum PinReason {
    LISTEN("LISTEN", "LISTEN", "LISTEN registered the session for notifications"),
    ADVISORY_LOCK("session advisory lock", "session advisory locks", "session-level advisory lock"),
    TEMPORARY_OBJECT("temporary table", "temporary tables",
            "temporary table, view, sequence or function that outlives the transaction"),
    HOLD_CURSOR("WITH HOLD cursor", "WITH HOLD cursors", "cursor declared WITH HOLD outlives the transaction"),
    PREPARED_STATEMENT("PREPARE", "PREPARE", "SQL-level PREPARE created a prepared statement in the session"),
    LOAD("LOAD", "LOAD", "LOAD of a shared library into the session"),
    /** SET or set_config of a setting the statement's text does not name: it cannot follow the client. */
    UNKNOWN_SETTING("setting named only at run time", "a setting named only at run time",
            "SET or set_config of a setting named only at run time"),
    SESSION_SET("session SET", "session SET",
            "session-level SET, RESET, DISCARD ALL or set_config(..., false)"),
    DYNAMIC_SQL("dynamic SQL", "dynamic SQL",
            "a DO block runs dynamic SQL (EXECUTE), whose effect the text cannot show"),
    UNWRAP("unwrap", "unwrap", "unwrap to a pgjdbc connection type"),
    COPY_API("CopyManager", "CopyManager", "COPY through pgjdbc's CopyManager"),
    LARGE_OBJECT_API("large objects", "large objects", "pgjdbc's large object API");

    private final String logName;
    private final String feature;
    private final String description;

    PinReason(String logName, String feature, String description) {
        this.logName = logName;
        this.feature = feature;
        this.description = description;
    }

    /** This reason's bit in an int set of reasons (there are fewer than 32). */
    public int bit() {
        return 1 << ordinal();
    }

    /** As the proxy's log names it: {@code client pinned to its server: session advisory lock}. */
    @Override
    public String toString() {
        return logName;
    }

    /** As pin_session_state = error's message names it: {@code temporary tables are not supported …}. */
    public String feature() {
        return feature;
    }

    /** A phrase for the JDBC driver's log line that reports the pin: what the session now holds. */
    public String description() {
        return description;
    }
}
