package io.pgmux.proxy.protocol;

/**
 * The errors the pooler itself raises, with PgBouncer's texts and SQLSTATEs so existing runbooks, alerts and
 * client retry logic keep working: FATAL 08P01 (PgBouncer's {@code send_pooler_error}), after which the
 * connection is closed without a ReadyForQuery.
 *
 * <p>The exception are the prepared-statement errors: PgBouncer makes them FATAL, pgmux answers as PostgreSQL
 * itself would (non-fatal ERROR 42P05 / 26000, then ReadyForQuery at the next Sync), so a driver can recover.
 */
public final class PoolerError {
    /** PgBouncer's bound on a user name, terminator included: longer ones are refused before login. */
    public static final int MAX_USERNAME_BYTES = 128;
    private static final ErrorResponse MAX_CLIENT_CONN = fatal("no more connections allowed (max_client_conn)");
    private static final ErrorResponse MAX_DB_CLIENT_CONNECTIONS =
            fatal("client connections exceeded (max_db_client_connections)");
    private static final ErrorResponse MAX_USER_CLIENT_CONNECTIONS =
            fatal("client connections exceeded (max_user_client_connections)");
    private static final ErrorResponse QUERY_WAIT_TIMEOUT = fatal("query_wait_timeout");
    private static final ErrorResponse QUERY_TIMEOUT = fatal("query timeout");
    private static final ErrorResponse WAITING_QUERY_TIMEOUT = fatal("query_timeout");
    private static final ErrorResponse TRANSACTION_TIMEOUT = fatal("transaction timeout");
    private static final ErrorResponse IDLE_TRANSACTION_TIMEOUT = fatal("idle transaction timeout");
    private static final ErrorResponse CLIENT_IDLE_TIMEOUT = fatal("client_idle_timeout");
    private static final ErrorResponse CLIENT_LOGIN_TIMEOUT = fatal("client_login_timeout");
    private static final ErrorResponse CLIENT_LOGIN_TIMEOUT_SERVER_DOWN = fatal("client_login_timeout (server down)");
    private static final ErrorResponse PASSWORD_AUTHENTICATION_FAILED = fatal("password authentication failed");
    private static final ErrorResponse SASL_AUTHENTICATION_FAILED = fatal("SASL authentication failed");
    private static final ErrorResponse TRUST_AUTHENTICATION_FAILED = fatal("\"trust\" authentication failed");
    private static final ErrorResponse CERTIFICATE_AUTHENTICATION_FAILED = fatal("certificate authentication failed");
    private static final ErrorResponse SSL_REQUIRED = fatal("SSL required");
    private static final ErrorResponse NO_SUCH_USER = fatal("no such user");
    private static final ErrorResponse CANNOT_CONNECT_TO_SERVER = fatal("pgbouncer cannot connect to server");
    private static final ErrorResponse NO_USERNAME_SUPPLIED = fatal("no username supplied");
    private static final ErrorResponse USERNAME_TOO_LONG = fatal("username too long");
    private static final ErrorResponse EMPTY_PASSWORD = fatal("empty password returned by client");
    private static final ErrorResponse INVALID_SASL_MECHANISM =
            fatal("client selected an invalid SASL authentication mechanism");
    private static final ErrorResponse TRANSACTION_BLOCKS_NOT_ALLOWED =
            fatal("transaction blocks not allowed in statement pooling mode");
    private static final ErrorResponse SERVER_CONN_CRASHED = fatal("server conn crashed?");
    private static final ErrorResponse POOLER_SHUTTING_DOWN = fatal("pooler is shutting down");
    private static final ErrorResponse SERVER_SHUTTING_DOWN = fatal("server shutting down");
    private static final ErrorResponse DATABASE_REMOVED = fatal("database removed");
    private static final ErrorResponse BOUNCER_CONFIG_ERROR = fatal("bouncer config error");
    private static final ErrorResponse LOGIN_REJECTED = fatal("login rejected");
    private static final ErrorResponse QUERY_CANCELED = ErrorResponse.error(SqlState.QUERY_CANCELED,
            "canceling statement due to user request");
    private static final ErrorResponse NO_AUTHENTICATION_METHOD = fatal("no authentication method is found");
    private static final ErrorResponse UNIX_SOCKET_LOGIN_REJECTED = fatal("unix socket login rejected");
    private static final ErrorResponse OLD_V2_PROTOCOL = fatal("old V2 protocol not supported");
    private static final ErrorResponse PQEXEC_DISALLOWED = fatal("PQexec disallowed");
    private static final ErrorResponse DATABASE_CONFIGURATION_CHANGED = fatal("database configuration changed");
    private static final NoticeResponse CLIENT_BEING_QUEUED = NoticeResponse.notice(SqlState.SUCCESSFUL_COMPLETION,
            "No server connection available in postgres backend, client being queued");

    private PoolerError() {
    }

    /** FATAL 08P01 with {@code message}, for pooler errors without a factory of their own. */
    public static ErrorResponse fatal(String message) {
        return ErrorResponse.fatal(SqlState.PROTOCOL_VIOLATION, message);
    }

    public static ErrorResponse maxClientConn() {
        return MAX_CLIENT_CONN;
    }

    public static ErrorResponse maxDbClientConnections() {
        return MAX_DB_CLIENT_CONNECTIONS;
    }

    public static ErrorResponse maxUserClientConnections() {
        return MAX_USER_CLIENT_CONNECTIONS;
    }

    /** A waiting client got no server connection within query_wait_timeout. */
    public static ErrorResponse queryWaitTimeout() {
        return QUERY_WAIT_TIMEOUT;
    }

    /** A query ran on its server longer than query_timeout. */
    public static ErrorResponse queryTimeout() {
        return QUERY_TIMEOUT;
    }

    /** A client waited for a server longer than query_timeout (PgBouncer's text differs from the running query's). */
    public static ErrorResponse waitingQueryTimeout() {
        return WAITING_QUERY_TIMEOUT;
    }

    public static ErrorResponse transactionTimeout() {
        return TRANSACTION_TIMEOUT;
    }

    public static ErrorResponse idleTransactionTimeout() {
        return IDLE_TRANSACTION_TIMEOUT;
    }

    public static ErrorResponse clientIdleTimeout() {
        return CLIENT_IDLE_TIMEOUT;
    }

    public static ErrorResponse clientLoginTimeout() {
        return CLIENT_LOGIN_TIMEOUT;
    }

    /** A logged-in client still waiting, client_login_timeout after connecting, for its pool's first server. */
    public static ErrorResponse clientLoginTimeoutServerDown() {
        return CLIENT_LOGIN_TIMEOUT_SERVER_DOWN;
    }

    public static ErrorResponse noSuchDatabase(String database) {
        return fatal("no such database: " + database);
    }

    public static ErrorResponse databaseDisabled(String database) {
        return fatal("database \"" + database + "\" is disabled");
    }

    /** A login to the admin console by a user in neither admin_users nor stats_users. */
    public static ErrorResponse notAllowed() {
        return fatal("not allowed");
    }

    /** Cleartext or md5 authentication of a client failed, whatever the reason (no details to the client). */
    public static ErrorResponse passwordAuthenticationFailed() {
        return PASSWORD_AUTHENTICATION_FAILED;
    }

    /** SCRAM authentication of a client failed, whatever the reason. */
    public static ErrorResponse saslAuthenticationFailed() {
        return SASL_AUTHENTICATION_FAILED;
    }

    /** auth_type trust, but the user is not in the auth file. */
    public static ErrorResponse trustAuthenticationFailed() {
        return TRUST_AUTHENTICATION_FAILED;
    }

    /** auth_type cert: no client certificate, or its common name is not the user's, or the user is unknown. */
    public static ErrorResponse certificateAuthenticationFailed() {
        return CERTIFICATE_AUTHENTICATION_FAILED;
    }

    /** client_tls_sslmode require or stricter, and the client did not ask for TLS. */
    public static ErrorResponse sslRequired() {
        return SSL_REQUIRED;
    }

    /** The user is unknown (PgBouncer says this after auth_query; with an auth file it fakes a login instead). */
    public static ErrorResponse noSuchUser() {
        return NO_SUCH_USER;
    }

    public static ErrorResponse noUsernameSupplied() {
        return NO_USERNAME_SUPPLIED;
    }

    /** A user name of {@link #MAX_USERNAME_BYTES} bytes or more. */
    public static ErrorResponse usernameTooLong() {
        return USERNAME_TOO_LONG;
    }

    public static ErrorResponse emptyPassword() {
        return EMPTY_PASSWORD;
    }

    public static ErrorResponse invalidSaslMechanism() {
        return INVALID_SASL_MECHANISM;
    }

    /** PostgreSQL's own answer to a cancelled statement, for a request cancelled while it waited for a server. */
    public static ErrorResponse queryCanceled() {
        return QUERY_CANCELED;
    }

    /** A replication client's own server connection could not log in; PgBouncer's text. */
    public static ErrorResponse loginFailed() {
        return fatal("login failed");
    }

    public static ErrorResponse oldV2Protocol() {
        return OLD_V2_PROTOCOL;
    }

    /** disable_pqexec: the client sent a simple-protocol Query. */
    public static ErrorResponse pqexecDisallowed() {
        return PQEXEC_DISALLOWED;
    }

    public static ErrorResponse transactionBlocksNotAllowed() {
        return TRANSACTION_BLOCKS_NOT_ALLOWED;
    }

    /** The configuration cannot serve the client (an auth_dbname that names no database, a failing auth_query). */
    public static ErrorResponse bouncerConfigError() {
        return BOUNCER_CONFIG_ERROR;
    }

    /** An hba {@code reject} line matched the client. */
    public static ErrorResponse loginRejected() {
        return LOGIN_REJECTED;
    }

    /** No line of the hba file matched the client. */
    public static ErrorResponse noAuthenticationMethod() {
        return NO_AUTHENTICATION_METHOD;
    }

    /** An hba {@code peer} line matched a client that is not on a Unix socket, or whose peer is another user. */
    public static ErrorResponse unixSocketLoginRejected() {
        return UNIX_SOCKET_LOGIN_REJECTED;
    }

    /** The server connection linked to the client died. */
    public static ErrorResponse serverConnCrashed() {
        return SERVER_CONN_CRASHED;
    }

    /** server_fast_close closed the client's close_needed server between its transactions. */
    public static ErrorResponse databaseConfigurationChanged() {
        return DATABASE_CONFIGURATION_CHANGED;
    }

    /** A client logging in while the pooler shuts down. */
    public static ErrorResponse poolerShuttingDown() {
        return POOLER_SHUTTING_DOWN;
    }

    /** A client waiting for a server when SHUTDOWN WAIT_FOR_SERVERS closed its pool. */
    /** RELOAD or KILL dropped the client's database. */
    public static ErrorResponse databaseRemoved() {
        return DATABASE_REMOVED;
    }

    public static ErrorResponse serverShuttingDown() {
        return SERVER_SHUTTING_DOWN;
    }

    /** Logging in to the server failed; {@code reason} as in "server login failed: wrong password type". */
    public static ErrorResponse serverLoginFailed(String reason) {
        return fatal("server login failed: " + reason);
    }

    /** No connection to the server could be opened (refused, unreachable, timed out). */
    public static ErrorResponse cannotConnectToServer() {
        return CANNOT_CONNECT_TO_SERVER;
    }

    /** A new client within server_login_retry of a failed server login gets the cached error. */
    public static ErrorResponse serverLoginRetry(String cachedMessage) {
        return fatal("server login has been failing, cached error: " + cachedMessage + " (server_login_retry)");
    }

    /** query_wait_notify: the client has waited that long for a server and waits on. */
    public static NoticeResponse clientBeingQueued() {
        return CLIENT_BEING_QUEUED;
    }

    /** login_notify_message, sent to every client once logged in. */
    public static NoticeResponse loginNotice(String message) {
        return NoticeResponse.notice(SqlState.SUCCESSFUL_COMPLETION, message);
    }

    /** A client's Parse of one named statement more than it may keep (not fatal). */
    public static ErrorResponse tooManyPreparedStatements(String name, int max) {
        return ErrorResponse.error(SqlState.CONFIGURATION_LIMIT_EXCEEDED, "prepared statement \"" + name
                + "\" not created: a client may keep at most " + max
                + " named prepared statements (10 times max_prepared_statements); close some first");
    }

    /** PostgreSQL's own non-fatal error for a Parse reusing a name: ERROR 42P05. */
    public static ErrorResponse preparedStatementAlreadyExists(String name) {
        return ErrorResponse.error(SqlState.DUPLICATE_PREPARED_STATEMENT,
                "prepared statement \"" + name + "\" already exists");
    }

    /** PostgreSQL's own non-fatal error for an unknown statement name: ERROR 26000. */
    public static ErrorResponse preparedStatementDoesNotExist(String name) {
        return ErrorResponse.error(SqlState.INVALID_SQL_STATEMENT_NAME,
                "prepared statement \"" + name + "\" does not exist");
    }
}
