package io.pgmux.jdbc.logical;

/** The state every new logical connection starts with (HikariCP's autoCommit, readOnly, … settings). */
public final class SessionDefaults {
    final boolean autoCommit;
    final boolean readOnly;
    /** null: whatever the server session has when opened. */
    final Integer isolation;
    final String catalog;
    /** null: the search_path the server session has when opened. */
    final String schema;
    /** pgjdbc's socketTimeout in milliseconds, as every server connection is opened with; 0 none. */
    final int networkTimeoutMillis;

    public SessionDefaults(boolean autoCommit, boolean readOnly, Integer isolation, String catalog, String schema,
                           int networkTimeoutMillis) {
        this.autoCommit = autoCommit;
        this.readOnly = readOnly;
        this.isolation = isolation;
        this.catalog = catalog;
        this.schema = schema;
        this.networkTimeoutMillis = networkTimeoutMillis;
    }
}
