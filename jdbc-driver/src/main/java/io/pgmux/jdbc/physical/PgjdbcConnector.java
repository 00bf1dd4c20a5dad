package io.pgmux.jdbc.physical;

import io.pgmux.core.pool.ServerConnector;
import io.pgmux.core.pool.ServerGoingAway;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.jdbc.credentials.Credentials;
import io.pgmux.jdbc.credentials.CredentialsProvider;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.postgresql.Driver;
import org.postgresql.PGProperty;
import org.postgresql.core.BaseConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens pgjdbc connections for a pool. pgjdbc is blocking, so logins, checks and resets run on a small
 * executor of daemon threads and never on the thread that asked for a connection.
 */
public final class PgjdbcConnector implements ServerConnector<PhysicalConnection> {
    private static final Logger log = LoggerFactory.getLogger(PgjdbcConnector.class);
    /**
     * pgjdbc's SQLSTATEs of a server unavailable for now, beside those of a server going away: 08001 (refused,
     * timed out, unknown host) and 08006 (the connection broke during the login).
     */
    private static final Set<String> UNREACHABLE = Set.of("08001", "08006");
    private static final int CHECK_TIMEOUT_SECONDS = 5;
    /** SQLSTATE sqlclient_unable_to_establish_sqlconnection, also pgjdbc's "no host of the wanted type". */
    private static final String UNABLE_TO_CONNECT = "08001";
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private static final Executor SHARED_EXECUTOR = newExecutor();

    private final java.sql.Driver driver;
    private final String url;
    /** Replaced whole by {@link #password(String)}: a login reads one consistent set. */
    private volatile Properties properties;
    private final String connectionInitSql;
    private final Executor executor;
    /** Whether logins use {@link ProbedSocketFactory}: only where the application chose no socket factory. */
    private final boolean probed;
    /** Whether the URL asks for a kind of server (targetServerType other than any). */
    private final boolean selectsServerType;
    /** How long one login keeps looking for a server of that kind; 0 looks once. */
    private final long searchNanos;
    /** Asked for the user and password of each login; null: those of the properties. */
    private final CredentialsProvider credentials;

    /**
     * @param url        a {@code jdbc:postgresql:} URL
     * @param properties pgjdbc properties (user, password, …), copied
     */
    public PgjdbcConnector(String url, Properties properties) {
        this(url, properties, null, SHARED_EXECUTOR);
    }

    /**
     * @param connectionInitSql run once on every new connection (HikariCP's connectionInitSql); a
     *                          failure fails the login
     */
    public PgjdbcConnector(String url, Properties properties, String connectionInitSql, Executor executor) {
        this(new Driver(), url, properties, connectionInitSql, executor);
    }

    /**
     * @param driver opens the connections; pgjdbc's, or for benchmarks and tests one whose connections
     *               unwrap to pgjdbc's {@link BaseConnection}
     */
    public PgjdbcConnector(java.sql.Driver driver, String url, Properties properties, String connectionInitSql,
                           Executor executor) {
        this(driver, url, properties, connectionInitSql, executor, 0);
    }

    /**
     * @param searchNanos when the URL's targetServerType finds no host of its kind (a failover: the primary is
     *                    gone and no standby is promoted yet), how long one login keeps trying the host list again,
     *                    after pauses growing from 25 to 500 ms, before it fails with pgjdbc's error. Keep it below
     *                    server_connect_timeout, after which the pool gives up on the login.
     */
    public PgjdbcConnector(java.sql.Driver driver, String url, Properties properties, String connectionInitSql,
                           Executor executor, long searchNanos) {
        this(driver, url, properties, connectionInitSql, executor, searchNanos, null);
    }

    /**
     * @param credentials asked for the user name and password of each login (HikariCP's credentialsProvider),
     *                    what it leaves null taken from {@code properties}; null: always those of the properties.
     *                    The URL must then carry neither, since pgjdbc would let the URL's win.
     */
    public PgjdbcConnector(java.sql.Driver driver, String url, Properties properties, String connectionInitSql,
                           Executor executor, long searchNanos, CredentialsProvider credentials) {
        this.credentials = credentials;
        this.searchNanos = searchNanos;
        this.selectsServerType = selectsServerType(url, properties);
        this.driver = driver;
        this.url = url;
        this.properties = (Properties) properties.clone();
        this.connectionInitSql = connectionInitSql == null || connectionInitSql.isBlank() ? null : connectionInitSql;
        this.executor = executor;
        this.probed = mayProbe(url, properties);
        if (probed) {
            this.properties.setProperty(PGProperty.SOCKET_FACTORY.getName(), ProbedSocketFactory.class.getName());
        }
    }

    /**
     * Whether pgmux may give pgjdbc its own socket factory: not when the application set one (in the URL
     * or the properties), and not when pgjdbc's class loader cannot see pgmux's classes (pgjdbc shared by
     * a container, pgmux in an application), where pgjdbc could not load it.
     */
    private static boolean mayProbe(String url, Properties properties) {
        Properties parsed = Driver.parseURL(url, properties);
        if (parsed == null || PGProperty.SOCKET_FACTORY.getOrDefault(parsed) != null) {
            return false;
        }
        try {
            return Class.forName(ProbedSocketFactory.class.getName(), false, Driver.class.getClassLoader())
                    == ProbedSocketFactory.class;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static boolean selectsServerType(String url, Properties properties) {
        Properties parsed = Driver.parseURL(url, properties);
        String type = parsed == null ? null : PGProperty.TARGET_SERVER_TYPE.getOrDefault(parsed);
        return type != null && !type.equalsIgnoreCase("any");
    }

    /** The daemon executor all connectors share unless given their own. */
    public static Executor sharedExecutor() {
        return SHARED_EXECUTOR;
    }

    private static Executor newExecutor() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "pgmux-connector-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        return pool;
    }

    @Override
    public CompletionStage<PhysicalConnection> open(ServerHandle handle) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return login(handle);
            } catch (SQLException e) {
                throw new CompletionException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(e);
            }
        }, executor);
    }

    /**
     * Logs in; while the URL's targetServerType finds no host of its kind, tries again within searchNanos,
     * so that waiting clients are served by the promoted standby instead of failing with a refusal the pool
     * would keep for server_login_retry.
     */
    private PhysicalConnection login(ServerHandle handle) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + searchNanos;
        long pause = FIRST_PAUSE_NANOS;
        for (;;) {
            try {
                return connect(handle);
            } catch (SQLException e) {
                if (!noServerOfWantedType(e) || System.nanoTime() + pause > deadline) {
                    throw e;
                }
                log.debug("no server of the wanted targetServerType yet; trying again in {} ms",
                        TimeUnit.NANOSECONDS.toMillis(pause));
                TimeUnit.NANOSECONDS.sleep(pause);
                pause = Math.min(LONGEST_PAUSE_NANOS, pause * 2);
            }
        }
    }

    /**
     * pgjdbc's "Could not find a server with specified targetServerType": 08001 without a cause, where a host
     * that could not be reached carries its socket's exception.
     */
    private boolean noServerOfWantedType(SQLException e) {
        return selectsServerType && UNABLE_TO_CONNECT.equals(e.getSQLState()) && e.getCause() == null
                && !(e instanceof CredentialsUnavailableException);
    }

    private PhysicalConnection connect(ServerHandle handle) throws SQLException {
        Properties login = credentials == null ? properties : withProvidedCredentials();
        Connection c;
        Socket socket = null;
        if (probed) {
            ProbedSocketFactory.Capture capture = ProbedSocketFactory.capture();
            try {
                c = driver.connect(url, login);
            } finally {
                socket = ProbedSocketFactory.end(capture);
            }
        } else {
            c = driver.connect(url, login);
        }
        if (c == null) {
            throw new SQLException("not a jdbc:postgresql: URL: " + url, "08001");
        }
        try {
            if (connectionInitSql != null) {
                try (Statement st = c.createStatement()) {
                    st.execute(connectionInitSql);
                }
            }
            BaseConnection base = c.unwrap(BaseConnection.class);
            if (log.isDebugEnabled()) {
                // which host of a list the login reached: pgjdbc's URL names them all
                log.debug("server connection {} logged in to {} (backend {})", handle.id(),
                        base.getQueryExecutor().getHostSpec(), base.getBackendPID());
            }
            return new PhysicalConnection(base, handle, connectionInitSql, socket);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * A connection outside the pool, logged in as the pool's are but with pgjdbc's own sockets and timeouts of
     * {@code timeoutSeconds}: the read routing's checks of a host, which must not hang on one that stopped
     * answering. No connectionInitSql: it only asks the server's state. The caller closes it.
     */
    public Connection connectUnpooled(int timeoutSeconds) throws SQLException {
        return connectUnpooled(timeoutSeconds, null);
    }

    /** As {@link #connectUnpooled(int)}, showing {@code applicationName} (null: the pool's) from its login on. */
    public Connection connectUnpooled(int timeoutSeconds, String applicationName) throws SQLException {
        Properties login = (Properties) (credentials == null ? properties : withProvidedCredentials()).clone();
        if (applicationName != null) {
            login.setProperty(PGProperty.APPLICATION_NAME.getName(), applicationName);
        }
        if (probed) {
            login.remove(PGProperty.SOCKET_FACTORY.getName());
        }
        String timeout = Integer.toString(timeoutSeconds);
        login.setProperty(PGProperty.CONNECT_TIMEOUT.getName(), timeout);
        login.setProperty(PGProperty.LOGIN_TIMEOUT.getName(), timeout);
        login.setProperty(PGProperty.SOCKET_TIMEOUT.getName(), timeout);
        Connection c = driver.connect(url, login);
        if (c == null) {
            throw new SQLException("not a jdbc:postgresql: URL: " + url, "08001");
        }
        return c;
    }

    /**
     * The properties with the provider's user and password for this login. What the provider throws fails the
     * login before any server is contacted: SQLSTATE 08001 (the client could not establish the connection), not
     * 28P01, which would send the operator to the server's roles instead of the secret's source.
     */
    private Properties withProvidedCredentials() throws SQLException {
        Credentials given;
        try {
            given = credentials.getCredentials();
        } catch (RuntimeException e) {
            throw new CredentialsUnavailableException("no credentials for a server login: " + describe(e), e);
        }
        if (given == null) {
            throw new CredentialsUnavailableException("no credentials for a server login: " + credentials
                    + " returned null", null);
        }
        Properties login = (Properties) properties.clone();
        if (given.getUsername() != null) {
            login.setProperty("user", given.getUsername());
        }
        if (given.getPassword() != null) {
            login.setProperty("password", given.getPassword());
        }
        return login;
    }

    /** The built-in providers' messages name their source; another provider's exception is named with it. */
    private String describe(RuntimeException e) {
        String message = e.getMessage();
        if (credentials.getClass().getPackage() == Credentials.class.getPackage() && message != null) {
            return message;
        }
        return "credentialsProvider " + credentials.getClass().getName() + " threw " + e;
    }

    /**
     * Logins from now on send {@code password} (null: none), as HikariCP's run-time credential change; server
     * connections already open keep their sessions. A password in the URL itself wins, as pgjdbc reads it.
     */
    public void password(String password) {
        Properties next = (Properties) properties.clone();
        if (password == null) {
            next.remove("password");
        } else {
            next.setProperty("password", password);
        }
        properties = next;
    }

    @Override
    public CompletionStage<Boolean> test(PhysicalConnection server, String checkQuery) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                if (checkQuery == null || checkQuery.isBlank()) {
                    return server.connection().isValid(CHECK_TIMEOUT_SECONDS);
                }
                runCheckQuery(server, checkQuery);
                return true;
            } catch (SQLException e) {
                // as HikariCP warns of a connection that failed its validation: the operator learns why it was replaced
                log.warn("server check failed on {}, replacing it: {} (SQLSTATE {}){}", server, e.getMessage(),
                        e.getSQLState(), e.getCause() == null ? "" : "; cause: " + e.getCause());
                return false;
            }
        }, executor);
    }

    /** Runs {@code checkQuery} (server_check_query, HikariCP's connectionTestQuery) as the pool's checks do. */
    public static void runCheckQuery(PhysicalConnection server, String checkQuery) throws SQLException {
        try (Statement st = server.connection().createStatement()) {
            st.setQueryTimeout(CHECK_TIMEOUT_SECONDS);
            st.execute(checkQuery);
        }
    }

    @Override
    public CompletionStage<Void> reset(PhysicalConnection server, String resetQuery) {
        return CompletableFuture.runAsync(() -> {
            try {
                server.reset(resetQuery);
            } catch (SQLException e) {
                throw new CompletionException(e);
            }
        }, executor);
    }

    @Override
    public void close(PhysicalConnection server) {
        try {
            server.connection().close();
        } catch (SQLException | RuntimeException e) {
            log.debug("closing {} failed", server, e);
        }
    }

    /**
     * A provider that failed is no server that is down: like a refused login, its error goes at once to the
     * clients waiting, and the next login is tried after server_login_retry.
     */
    @Override
    public boolean isTransientLoginFailure(Throwable failure) {
        return failure instanceof SQLException e
                && (UNREACHABLE.contains(e.getSQLState()) || ServerGoingAway.means(e.getSQLState()))
                && !isTlsRefusal(e) && !(e instanceof CredentialsUnavailableException);
    }

    /** A credentials provider failed: the login never reached a server. */
    private static final class CredentialsUnavailableException extends SQLNonTransientConnectionException {
        private static final long serialVersionUID = 1L;

        CredentialsUnavailableException(String message, Throwable cause) {
            super(message, UNABLE_TO_CONNECT, cause);
        }
    }

    /**
     * A TLS handshake or certificate check that failed (pgjdbc reports both as 08006): the server is up and this
     * configuration will not get in, as with a wrong password, so waiting for it would only delay the error.
     */
    private static boolean isTlsRefusal(SQLException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SSLException || c instanceof CertificateException) {
                return true;
            }
        }
        // pgjdbc's verify-full refusal carries no cause
        String message = e.getMessage();
        return message != null && message.startsWith("The hostname ") && message.contains("could not be verified");
    }
}
