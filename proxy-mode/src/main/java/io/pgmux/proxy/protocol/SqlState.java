package io.pgmux.proxy.protocol;

/** The SQLSTATE codes the pooler itself reports (PostgreSQL's errcodes.txt). */
public final class SqlState {
    /** 08P01: what PgBouncer uses for every pooler-generated error. */
    public static final String PROTOCOL_VIOLATION = "08P01";
    /** successful_completion, the code of the pooler's own notices. */
    public static final String SUCCESSFUL_COMPLETION = "00000";
    /** 26000: a Bind, Describe or Execute named a prepared statement that does not exist. */
    public static final String INVALID_SQL_STATEMENT_NAME = "26000";
    /** 42P05: a Parse reused the name of an existing prepared statement. */
    public static final String DUPLICATE_PREPARED_STATEMENT = "42P05";
    /** 0A000: session state that pin_session_state = error refuses in transaction and statement mode. */
    public static final String FEATURE_NOT_SUPPORTED = "0A000";
    /** 53400: a client's named prepared statements would exceed their bound. */
    public static final String CONFIGURATION_LIMIT_EXCEEDED = "53400";

    /** 22023: a startup parameter's value PostgreSQL itself would refuse ({@code replication=maybe}). */
    public static final String INVALID_PARAMETER_VALUE = "22023";
    /** 57014: a query cancelled by the client's CancelRequest. */
    public static final String QUERY_CANCELED = "57014";

    /** 08006: the pooler lost a server connection that worked for the client (LISTEN through the hub). */
    public static final String CONNECTION_FAILURE = "08006";

    private SqlState() {
    }
}
