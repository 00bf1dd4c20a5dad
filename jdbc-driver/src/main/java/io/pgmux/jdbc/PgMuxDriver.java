package io.pgmux.jdbc;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Failures;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.logging.Logger;

/**
 * The JDBC driver for {@code jdbc:pgmux:postgresql:} URLs. Everything after {@code pgmux:} is a pgjdbc
 * URL; pool properties (pgmux, PgBouncer or HikariCP names) are taken off it and off the
 * {@code Properties}, the rest goes to pgjdbc untouched.
 *
 * <p>Connections with the same URL, user, password, pgjdbc properties and pool settings share one pool,
 * which lives until {@link #closeAll()}: pools outlive the connections taken from them, as a pool must.
 * The first connection of a pool proves that the server accepts the login (HikariCP's
 * {@code initializationFailTimeout}, default 1), so a wrong password fails {@code connect()} with the
 * server's error rather than the first statement.
 */
public final class PgMuxDriver implements Driver {
    /** The prefix of every URL this driver accepts. */
    public static final String URL_PREFIX = ConnectionUrl.PGMUX_PREFIX;

    static final int MAJOR_VERSION = 0;
    static final int MINOR_VERSION = 1;

    private static final ConcurrentHashMap<PoolIdentity, CompletableFuture<JdbcPool>> POOLS =
            new ConcurrentHashMap<>();
    private static final org.postgresql.Driver PGJDBC = new org.postgresql.Driver();
    private static volatile PgMuxDriver registered;

    static {
        try {
            register();
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Registers the driver with {@link DriverManager}. Loading the class does this already (and the
     * {@code META-INF/services/java.sql.Driver} entry loads it), so call it only after {@link #deregister()}.
     *
     * @throws IllegalStateException if it is registered already
     */
    public static synchronized void register() throws SQLException {
        if (registered != null) {
            throw new IllegalStateException("PgMuxDriver is already registered; it can only be registered once");
        }
        PgMuxDriver driver = new PgMuxDriver();
        DriverManager.registerDriver(driver);
        registered = driver;
    }

    /** Removes the driver from {@link DriverManager}; its pools stay open until {@link #closeAll()}. */
    public static synchronized void deregister() throws SQLException {
        PgMuxDriver driver = registered;
        if (driver == null) {
            throw new IllegalStateException("PgMuxDriver is not registered (or was already deregistered)");
        }
        DriverManager.deregisterDriver(driver);
        registered = null;
    }

    public static boolean isRegistered() {
        return registered != null;
    }

    /**
     * Closes every pool the driver made, draining each (connections in use are awaited up to 30 s). Logical
     * connections still open fail at their next use; the next {@code connect()} starts a new pool. Call it
     * when the application (or a test class) is done with the database.
     */
    public static void closeAll() {
        for (Map.Entry<PoolIdentity, CompletableFuture<JdbcPool>> e : POOLS.entrySet()) {
            if (POOLS.remove(e.getKey(), e.getValue())) {
                // A pool still starting is closed as soon as it has started.
                e.getValue().thenAccept(JdbcPool::close);
            }
        }
    }

    /** The pools open now, for monitoring: each has its configuration and its engine pool (the MXBean). */
    public static Collection<JdbcPool> pools() {
        List<JdbcPool> open = new ArrayList<>();
        for (CompletableFuture<JdbcPool> f : POOLS.values()) {
            JdbcPool pool = f.getNow(null);
            if (pool != null && !pool.isClosed()) {
                open.add(pool);
            }
        }
        return open;
    }

    /**
     * A logical connection from the pool of this URL and these properties, started on first use.
     *
     * @return null if the URL does not start with {@code jdbc:pgmux:postgresql:}, as JDBC asks
     * @throws SQLException 08001 for a malformed URL or a misspelt property, 22023 for an invalid
     *                      setting, or the server's own error when the pool's first login fails
     */
    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (url == null) {
            throw new SQLNonTransientConnectionException("the URL is null", ConnectionUrl.URL_ERROR);
        }
        if (!acceptsURL(url)) {
            return null;
        }
        ConnectionUrl request = ConnectionUrl.parse(url, info);
        PoolConfig config = ConnectionUrl.build(request.poolConfig());
        Map<DriverProperty, Object> values = request.driverValues();
        return pool(request, config, values).getConnection();
    }

    private static JdbcPool pool(ConnectionUrl request, PoolConfig config, Map<DriverProperty, Object> values)
            throws SQLException {
        PoolIdentity identity = PoolIdentity.of(request, config, values);
        for (;;) {
            CompletableFuture<JdbcPool> starting = POOLS.get(identity);
            if (starting == null) {
                CompletableFuture<JdbcPool> mine = new CompletableFuture<>();
                starting = POOLS.putIfAbsent(identity, mine);
                if (starting == null) {
                    return startPool(identity, mine, request, config, values);
                }
            }
            JdbcPool pool = await(starting);
            if (!pool.isClosed()) {
                return pool;
            }
            POOLS.remove(identity, starting);
        }
    }

    /** Starts the pool outside any lock: other URLs' connections never wait for this login. */
    private static JdbcPool startPool(PoolIdentity identity, CompletableFuture<JdbcPool> mine, ConnectionUrl request,
                                      PoolConfig config, Map<DriverProperty, Object> values) throws SQLException {
        Object timeout = values.get(DriverProperty.INITIALIZATION_FAIL_TIMEOUT);
        try {
            JdbcPool pool = PoolStartup.start(request.poolSettings(config, values).build(),
                    timeout == null ? 1 : (Long) timeout);
            mine.complete(pool);
            return pool;
        } catch (SQLException | RuntimeException | Error e) {
            POOLS.remove(identity, mine);
            mine.completeExceptionally(e);
            throw e;
        }
    }

    /** Waits for a pool another thread is starting; its failure is reported here as well. */
    private static JdbcPool await(CompletableFuture<JdbcPool> starting) throws SQLException {
        try {
            return starting.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLNonTransientConnectionException("interrupted while the pool was starting",
                    ConnectionUrl.URL_ERROR, e);
        } catch (ExecutionException e) {
            Throwable cause = Failures.cause(e);
            if (cause instanceof SQLException) {
                SQLException failure = (SQLException) cause;
                throw new SQLException(failure.getMessage(), failure.getSQLState(), failure.getErrorCode(), failure);
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw (Error) cause;
        }
    }

    /** True for {@code jdbc:pgmux:postgresql:} URLs, whether or not the rest is well formed. */
    @Override
    public boolean acceptsURL(String url) throws SQLException {
        if (url == null) {
            throw new SQLNonTransientConnectionException("the URL is null", ConnectionUrl.URL_ERROR);
        }
        return url.startsWith(URL_PREFIX);
    }

    /** pgmux's pool and driver properties first, with their defaults or the values given, then pgjdbc's. */
    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        ConnectionUrl request = ConnectionUrl.parse(url != null && acceptsURL(url) ? url : URL_PREFIX + "//",
                info);
        List<DriverPropertyInfo> all = PropertyInfo.describe(request.poolSettings(), request.driverSettings());
        all.addAll(Arrays.asList(PGJDBC.getPropertyInfo(request.targetUrl(), request.driverProperties())));
        return all.toArray(new DriverPropertyInfo[0]);
    }

    @Override
    public int getMajorVersion() {
        return MAJOR_VERSION;
    }

    @Override
    public int getMinorVersion() {
        return MINOR_VERSION;
    }

    /** False, as pgjdbc's: a driver may claim compliance only after passing the JDBC compliance suite. */
    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    /** pgmux logs through SLF4J, not java.util.logging (pgjdbc's own logger is "org.postgresql"). */
    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("pgmux logs through SLF4J; pgjdbc logs to the java.util.logging"
                + " logger \"org.postgresql\"");
    }
}
