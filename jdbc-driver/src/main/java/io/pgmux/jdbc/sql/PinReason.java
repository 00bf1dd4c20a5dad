package io.pgmux.jdbc.sql;

/**
 * Why a logical connection had to be pinned to its server connection until it is closed: the
 * session now holds state that the pool cannot carry over to another backend.
 *
 * <p>The first group is detected in SQL text by {@link SqlClassifier}; the last three are raised by
 * the driver's API paths, which never pass through the classifier.
 */
public enum PinReason {
    SESSION_SET("session-level SET, RESET, DISCARD ALL or set_config(..., false)"),
    LISTEN("LISTEN registered the session for notifications"),
    SQL_PREPARE("SQL-level PREPARE created a prepared statement in the session"),
    TEMP_TABLE("temporary table, view, sequence or function that outlives the transaction"),
    ADVISORY_LOCK("session-level advisory lock"),
    CURSOR_WITH_HOLD("cursor declared WITH HOLD outlives the transaction"),
    LOAD("LOAD of a shared library into the session"),
    DYNAMIC_SQL("a DO block runs dynamic SQL (EXECUTE), whose effect the text cannot show"),
    UNWRAP("unwrap to a pgjdbc connection type"),
    COPY_API("COPY through pgjdbc's CopyManager"),
    LARGE_OBJECT_API("pgjdbc's large object API");

    private final String description;

    PinReason(String description) {
        this.description = description;
    }

    /** A short phrase for the log line that reports the pin. */
    public String description() {
        return description;
    }
}
