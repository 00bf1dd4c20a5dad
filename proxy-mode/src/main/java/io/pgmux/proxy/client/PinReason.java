package io.pgmux.proxy.client;

/**
 * Session state that keeps a client on its server in transaction and statement mode. The first five are read from
 * the server, in this order, by {@link Pinning#CHECK_QUERY}; LOAD cannot be undone nor seen there, nor can a
 * setting whose name only the server knows (PostgreSQL lists custom settings nowhere).
 */
public enum PinReason {
    LISTEN("LISTEN", "LISTEN"),
    ADVISORY_LOCK("session advisory lock", "session advisory locks"),
    TEMPORARY_OBJECT("temporary table", "temporary tables"),
    HOLD_CURSOR("WITH HOLD cursor", "WITH HOLD cursors"),
    PREPARED_STATEMENT("PREPARE", "PREPARE"),
    LOAD("LOAD", "LOAD"),
    /** SET or set_config of a setting the statement's text does not name: it cannot follow the client. */
    UNKNOWN_SETTING("setting named only at run time", "a setting named only at run time");

    private final String logName;
    private final String feature;

    PinReason(String logName, String feature) {
        this.logName = logName;
        this.feature = feature;
    }

    int bit() {
        return 1 << ordinal();
    }

    /** As the log names it: {@code client pinned to its server: session advisory lock}. */
    @Override
    public String toString() {
        return logName;
    }

    /** As pin_session_state = error's message names it: {@code temporary tables are not supported …}. */
    String feature() {
        return feature;
    }
}
