package io.pgmux.jdbc;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.core.stats.PoolMBeans;
import io.pgmux.core.stats.micrometer.MicrometerMetricsTrackerFactory;
import io.pgmux.jdbc.credentials.CredentialsProvider;
import io.pgmux.jdbc.logical.LogicalConnection;
import io.pgmux.jdbc.pool.JdbcPool;
import java.io.Closeable;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;
import javax.management.StandardMBean;
import javax.sql.DataSource;
import org.slf4j.LoggerFactory;

/**
 * A pooling {@link DataSource} with HikariCP's property names, so that replacing {@code HikariDataSource}
 * by {@code PgMuxDataSource} is a rename: {@code jdbcUrl}, {@code username}, {@code maximumPoolSize},
 * {@code connectionTimeout} (milliseconds) and the rest mean what they mean there, and pgmux adds
 * PgBouncer's settings ({@code poolMode}, {@code reservePoolSize}, …).
 *
 * <p>A JavaBean: configure it with setters (or from HikariCP-style {@link Properties}), then call
 * {@link #getConnection()}. The first call starts the pool; from then on the configuration is sealed.
 * Pool properties may also be written in the {@code jdbcUrl} query, as with {@link PgMuxDriver}; a value
 * set through a setter wins over the URL, and the URL wins over {@code dataSourceProperties}.
 */
public class PgMuxDataSource implements DataSource, Closeable, PgMuxConfigMXBean {
    private static final org.slf4j.Logger log = LoggerFactory.getLogger(PgMuxDataSource.class);
    private static final String SEALED = "The configuration of the pool is sealed once started. Use the"
            + " PgMuxConfigMXBean setters for run-time changes.";
    /** The pool settings of {@link PgMuxConfigMXBean}: HikariCP's run-time changeable ones. */
    private static final Set<ConfigKey> RUN_TIME = EnumSet.of(ConfigKey.DEFAULT_POOL_SIZE, ConfigKey.MIN_POOL_SIZE,
            ConfigKey.QUERY_WAIT_TIMEOUT, ConfigKey.SERVER_IDLE_TIMEOUT, ConfigKey.SERVER_LIFETIME,
            ConfigKey.LEAK_DETECTION_THRESHOLD);
    private static final String CONNECTION_DOES_NOT_EXIST = "08003";
    private static final String OWN_THREADS =
            "housekeeping and logins run on daemon threads of pgmux's own (pgmux-janitor, pgmux-connector-N)";

    private final ReentrantLock startLock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile JdbcPool pool;
    private volatile boolean sealed;
    private volatile Map<DriverProperty, Object> startedWith;

    private String jdbcUrl;
    private String username;
    private volatile String password;
    private String driverClassName;
    private Properties dataSourceProperties = new Properties();
    private final Map<ConfigKey, Setting> poolSettings = new EnumMap<>(ConfigKey.class);
    private final Map<ConfigKey, Object> poolValues = new EnumMap<>(ConfigKey.class);
    private final Map<DriverProperty, Object> driverValues = new EnumMap<>(DriverProperty.class);
    private String transactionIsolation;
    private String catalog;
    private String schema;
    private MetricsTrackerFactory metricsTrackerFactory;
    private Object metricRegistry;
    private CredentialsProvider credentialsProvider;
    private volatile long validationTimeout = 5000;
    private boolean allowPoolSuspension;
    private boolean isolateInternalQueries;
    private volatile int loginTimeout;
    private volatile PrintWriter logWriter;

    /** An unconfigured data source; it starts at the first {@link #getConnection()}. */
    public PgMuxDataSource() {
    }

    /**
     * A data source configured from HikariCP-style properties: bean property names (pgmux and PgBouncer
     * names of pool settings too), and {@code dataSource.*} keys for pgjdbc properties.
     *
     * @throws IllegalArgumentException for an unknown property or an invalid value
     */
    public PgMuxDataSource(Properties properties) {
        PropertiesBinder.apply(this, properties);
    }

    /**
     * A data source configured from a HikariCP-style properties file, looked up in the file system and
     * then on the class path.
     *
     * @throws IllegalArgumentException if the file cannot be read, or for an unknown property or an invalid value
     */
    public PgMuxDataSource(String propertyFileName) {
        this(PropertiesBinder.load(propertyFileName));
    }

    // ---------------------------------------------------------------- connections

    /** A logical connection; the first call starts the pool (and checks it, see initializationFailTimeout). */
    @Override
    public Connection getConnection() throws SQLException {
        if (closed.get()) {
            throw closedException();
        }
        JdbcPool p = pool;
        if (p == null) {
            p = start();
        }
        return p.getConnection();
    }

    /** Not supported, as in HikariCP: every connection of a pool logs in as the same user. */
    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("a pool's connections all log in as its configured user;"
                + " use a second PgMuxDataSource for another user");
    }

    private JdbcPool start() throws SQLException {
        startLock.lock();
        try {
            JdbcPool p = pool;
            if (p != null) {
                return p;
            }
            if (closed.get()) {
                throw closedException();
            }
            sealed = true;
            try {
                Map<DriverProperty, Object> values = new EnumMap<>(DriverProperty.class);
                p = startPool(values);
                startedWith = values;
                pool = p;
                if (Boolean.TRUE.equals(values.get(DriverProperty.REGISTER_MBEANS))) {
                    registerConfigMBean(p);
                }
                return p;
            } catch (SQLException | RuntimeException e) {
                sealed = false;
                throw e;
            }
        } finally {
            startLock.unlock();
        }
    }

    private JdbcPool startPool(Map<DriverProperty, Object> values) throws SQLException {
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            throw new SQLNonTransientConnectionException("jdbcUrl is required, e.g."
                    + " jdbc:postgresql://host:5432/database or jdbc:pgmux:postgresql://host:5432/database",
                    ConnectionUrl.URL_ERROR);
        }
        // HikariCP accepts any object as a data source property and hands pgjdbc its text.
        Properties info = new Properties();
        dataSourceProperties.forEach((name, value) -> info.setProperty(String.valueOf(name), String.valueOf(value)));
        if (username != null) {
            info.setProperty("user", username);
        }
        if (password != null) {
            info.setProperty("password", password);
        }
        if (loginTimeout > 0 && info.getProperty("loginTimeout") == null) {
            info.setProperty("loginTimeout", Integer.toString(loginTimeout));
        }
        ConnectionUrl request = ConnectionUrl.parse(jdbcUrl, info);
        PoolConfig.Builder builder = request.poolConfig();
        for (Setting s : poolSettings.values()) {
            ConnectionUrl.apply(builder, s);
        }
        PoolConfig config = ConnectionUrl.build(builder);
        values.putAll(request.driverValues());
        values.putAll(driverValues);
        long timeout = (Long) values.getOrDefault(DriverProperty.INITIALIZATION_FAIL_TIMEOUT,
                DriverProperty.INITIALIZATION_FAIL_TIMEOUT.defaultValue());
        return PoolStartup.start(request.poolSettings(config, values, credentialsProvider).catalog(catalog).schema(schema)
                .metricsTrackerFactory(metricsTrackerFactory).build(), timeout);
    }

    private SQLException closedException() {
        return new SQLNonTransientConnectionException("PgMuxDataSource " + this + " has been closed.",
                CONNECTION_DOES_NOT_EXIST);
    }

    /**
     * Closes the logical connection at once (as {@link Connection#abort}), and closes rather than reuses the
     * server connection it holds at that moment, if any; the pool opens a replacement when one is needed. A
     * logical connection between transactions holds no server connection, so then only it is closed. To
     * renew every server connection use {@code getPoolMXBean().softEvictConnections()}.
     */
    public void evictConnection(Connection connection) {
        if (connection == null || closed.get() || pool == null) {
            return;
        }
        try {
            if (connection.isWrapperFor(LogicalConnection.class)) {
                connection.unwrap(LogicalConnection.class).abort(Runnable::run);
            }
        } catch (SQLException e) {
            log.debug("evicting {} failed", connection, e);
        }
    }

    /** Drains and closes the pool: connections in use are awaited (up to 30 s), then closed. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        JdbcPool p;
        startLock.lock();
        try {
            p = pool;
        } finally {
            startLock.unlock();
        }
        if (p != null) {
            unregisterConfigMBean(p);
            p.close();
        }
    }

    /** As {@code io.pgmux:type=PoolConfig,name=<poolName>}, beside the pool's own MXBean. */
    private void registerConfigMBean(JdbcPool p) {
        PoolMBeans.register("PoolConfig", p.pool().name(), new StandardMBean(this, PgMuxConfigMXBean.class, true));
    }

    private static void unregisterConfigMBean(JdbcPool p) {
        PoolMBeans.unregister("PoolConfig", p.pool().name());
    }

    /** This data source as HikariCP's {@code getHikariConfigMXBean()}: the settings that may change while it runs. */
    public PgMuxConfigMXBean getConfigMXBean() {
        return this;
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Whether the pool has started, is not closed and is not suspended (HikariCP's meaning). */
    public boolean isRunning() {
        JdbcPool p = pool;
        return p != null && !closed.get() && !p.isClosed() && !p.pool().isPaused();
    }

    /**
     * The pool's MXBean (HikariCP's {@code HikariPoolMXBean} operations plus SHOW POOLS figures), or null
     * before the pool starts and after it closes.
     */
    public PgMuxPoolMXBean getPoolMXBean() {
        JdbcPool p = pool;
        return p == null || closed.get() ? null : p.pool();
    }

    // ---------------------------------------------------------------- where and who

    public String getJdbcUrl() {
        return jdbcUrl;
    }

    /**
     * A {@code jdbc:postgresql:} or {@code jdbc:pgmux:postgresql:} URL; pool properties in its query are
     * taken as pool settings.
     */
    public void setJdbcUrl(String jdbcUrl) {
        checkNotSealed();
        this.jdbcUrl = jdbcUrl;
    }

    /** Same as {@link #getJdbcUrl()}; the name Spring Boot's DataSourceBuilder looks for. */
    public String getUrl() {
        return getJdbcUrl();
    }

    /** Same as {@link #setJdbcUrl(String)}; the name Spring Boot's DataSourceBuilder looks for. */
    public void setUrl(String url) {
        setJdbcUrl(url);
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        checkNotSealed();
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    /** Before the start, the pool's password; after it, the password of the server connections opened from then on. */
    @Override
    public void setPassword(String password) {
        startLock.lock();
        try {
            JdbcPool p = pool;
            if (p != null) {
                p.password(password);
            } else {
                checkNotSealed();
            }
            this.password = password;
        } finally {
            startLock.unlock();
        }
    }

    public String getDriverClassName() {
        return driverClassName;
    }

    /**
     * Accepted for HikariCP compatibility: {@code org.postgresql.Driver} or {@code io.pgmux.jdbc.PgMuxDriver}
     * (pgmux always opens connections through pgjdbc).
     *
     * @throws IllegalArgumentException for any other driver
     */
    public void setDriverClassName(String driverClassName) {
        checkNotSealed();
        if (driverClassName != null && !driverClassName.isBlank()
                && !driverClassName.equals(org.postgresql.Driver.class.getName())
                && !driverClassName.equals(PgMuxDriver.class.getName())) {
            throw new IllegalArgumentException("driverClassName " + driverClassName + " is not supported: pgmux pools"
                    + " PostgreSQL connections through pgjdbc; use org.postgresql.Driver or io.pgmux.jdbc.PgMuxDriver,"
                    + " or leave it unset");
        }
        this.driverClassName = driverClassName;
    }

    /** pgjdbc properties ({@code dataSource.*} in a HikariCP properties file). */
    public Properties getDataSourceProperties() {
        return dataSourceProperties;
    }

    public void setDataSourceProperties(Properties properties) {
        checkNotSealed();
        Properties copy = new Properties();
        if (properties != null) {
            copy.putAll(properties);
        }
        this.dataSourceProperties = copy;
    }

    public void addDataSourceProperty(String name, Object value) {
        checkNotSealed();
        dataSourceProperties.put(name, value);
    }

    // ---------------------------------------------------------------- pool settings with HikariCP names

    public int getMaximumPoolSize() {
        return (Integer) poolValue(ConfigKey.DEFAULT_POOL_SIZE);
    }

    /** Server connections the pool may open normally (pgmux defaultPoolSize, PgBouncer default_pool_size). */
    public void setMaximumPoolSize(int maximumPoolSize) {
        setPoolSetting("maximumPoolSize", Integer.toString(maximumPoolSize));
    }

    public int getMinimumIdle() {
        return (Integer) poolValue(ConfigKey.MIN_POOL_SIZE);
    }

    /** Server connections kept open (pgmux minPoolSize); the default is 0, not HikariCP's maximumPoolSize. */
    public void setMinimumIdle(int minimumIdle) {
        setPoolSetting("minimumIdle", Integer.toString(minimumIdle));
    }

    public long getConnectionTimeout() {
        return millis(ConfigKey.QUERY_WAIT_TIMEOUT);
    }

    /** Milliseconds a logical connection waits for a server connection (queryWaitTimeout); 0 waits forever. */
    public void setConnectionTimeout(long connectionTimeoutMs) {
        setPoolSetting("connectionTimeout", Long.toString(connectionTimeoutMs));
    }

    public long getIdleTimeout() {
        return millis(ConfigKey.SERVER_IDLE_TIMEOUT);
    }

    /** Milliseconds after which idle server connections above minimumIdle close (serverIdleTimeout); 0 never. */
    public void setIdleTimeout(long idleTimeoutMs) {
        setPoolSetting("idleTimeout", Long.toString(idleTimeoutMs));
    }

    public long getMaxLifetime() {
        return millis(ConfigKey.SERVER_LIFETIME);
    }

    /** Milliseconds after which a server connection is retired when next idle (serverLifetime); 0 never. */
    public void setMaxLifetime(long maxLifetimeMs) {
        setPoolSetting("maxLifetime", Long.toString(maxLifetimeMs));
    }

    public long getKeepaliveTime() {
        return millis(ConfigKey.SERVER_CHECK_DELAY);
    }

    /**
     * Milliseconds of idleness after which a server connection is tested (serverCheckDelay): in the background,
     * as HikariCP's keepalive, and before reuse if neither used nor tested since; 0 tests before every reuse and
     * never in the background.
     */
    public void setKeepaliveTime(long keepaliveTimeMs) {
        setPoolSetting("keepaliveTime", Long.toString(keepaliveTimeMs));
    }

    public long getLeakDetectionThreshold() {
        return millis(ConfigKey.LEAK_DETECTION_THRESHOLD);
    }

    /** Milliseconds a server connection may be held before it is logged as a possible leak; 0 off. */
    public void setLeakDetectionThreshold(long leakDetectionThresholdMs) {
        setPoolSetting("leakDetectionThreshold", Long.toString(leakDetectionThresholdMs));
    }

    public String getConnectionTestQuery() {
        String query = (String) poolValue(ConfigKey.SERVER_CHECK_QUERY);
        return query.isEmpty() ? null : query;
    }

    /** The test run on a server connection idle longer than keepaliveTime; unset: an empty query. */
    public void setConnectionTestQuery(String connectionTestQuery) {
        setPoolSetting("connectionTestQuery", connectionTestQuery == null ? "" : connectionTestQuery);
    }

    /** The pool's name in logs, JMX and metrics; before the start, null unless one was set. */
    public String getPoolName() {
        JdbcPool p = pool;
        if (p != null) {
            return p.pool().name();
        }
        String name = (String) poolValue(ConfigKey.POOL_NAME);
        return name.isEmpty() ? null : name;
    }

    /** Unset: the pool is named after its database and user ({@code database/user}). */
    public void setPoolName(String poolName) {
        setPoolSetting("poolName", poolName == null ? "" : poolName);
    }

    // ---------------------------------------------------------------- pool settings of pgmux

    public PoolMode getPoolMode() {
        return (PoolMode) poolValue(ConfigKey.POOL_MODE);
    }

    /** When a logical connection gives its server connection back; transaction by default. */
    public void setPoolMode(PoolMode poolMode) {
        if (poolMode == null) {
            throw new IllegalArgumentException("poolMode must not be null");
        }
        setPoolSetting("poolMode", poolMode.configName());
    }

    public int getReservePoolSize() {
        return (Integer) poolValue(ConfigKey.RESERVE_POOL_SIZE);
    }

    public void setReservePoolSize(int reservePoolSize) {
        setPoolSetting("reservePoolSize", Integer.toString(reservePoolSize));
    }

    public long getReservePoolTimeout() {
        return millis(ConfigKey.RESERVE_POOL_TIMEOUT);
    }

    public void setReservePoolTimeout(long reservePoolTimeoutMs) {
        setPoolSetting("reservePoolTimeout", Long.toString(reservePoolTimeoutMs));
    }

    public long getServerConnectTimeout() {
        return millis(ConfigKey.SERVER_CONNECT_TIMEOUT);
    }

    public void setServerConnectTimeout(long serverConnectTimeoutMs) {
        setPoolSetting("serverConnectTimeout", Long.toString(serverConnectTimeoutMs));
    }

    public long getServerLoginRetry() {
        return millis(ConfigKey.SERVER_LOGIN_RETRY);
    }

    public void setServerLoginRetry(long serverLoginRetryMs) {
        setPoolSetting("serverLoginRetry", Long.toString(serverLoginRetryMs));
    }

    public String getServerResetQuery() {
        return (String) poolValue(ConfigKey.SERVER_RESET_QUERY);
    }

    public void setServerResetQuery(String serverResetQuery) {
        setPoolSetting("serverResetQuery", serverResetQuery == null ? "" : serverResetQuery);
    }

    public boolean isServerResetQueryAlways() {
        return (Boolean) poolValue(ConfigKey.SERVER_RESET_QUERY_ALWAYS);
    }

    public void setServerResetQueryAlways(boolean serverResetQueryAlways) {
        setPoolSetting("serverResetQueryAlways", Boolean.toString(serverResetQueryAlways));
    }

    public int getMaxDbConnections() {
        return (Integer) poolValue(ConfigKey.MAX_DB_CONNECTIONS);
    }

    public void setMaxDbConnections(int maxDbConnections) {
        setPoolSetting("maxDbConnections", Integer.toString(maxDbConnections));
    }

    public int getMaxUserConnections() {
        return (Integer) poolValue(ConfigKey.MAX_USER_CONNECTIONS);
    }

    public void setMaxUserConnections(int maxUserConnections) {
        setPoolSetting("maxUserConnections", Integer.toString(maxUserConnections));
    }

    public int getMaxClientConn() {
        return (Integer) poolValue(ConfigKey.MAX_CLIENT_CONN);
    }

    /** Logical connections open at once; 0 (the default) is unlimited. */
    public void setMaxClientConn(int maxClientConn) {
        setPoolSetting("maxClientConn", Integer.toString(maxClientConn));
    }

    /**
     * Sets a pool setting by any of its names (pgmux, PgBouncer, HikariCP), with the units that name implies;
     * the value is checked now, its relation to other settings when the pool starts.
     */
    void setPoolSetting(String name, String text) {
        ConfigKey key = ConfigKey.lookup(name);
        if (RUN_TIME.contains(key) && setOnRunningPool(name, text)) {
            return;
        }
        checkNotSealed();
        PoolConfig.Builder alone = PoolConfig.jdbcDefaults().set(name, text);
        if (key == ConfigKey.MIN_POOL_SIZE) {
            // Judged on its own here; whether it exceeds the pool size is checked at start.
            alone.defaultPoolSize(Integer.MAX_VALUE);
        }
        poolValues.put(key, alone.build().get(key));
        poolSettings.put(key, new Setting(name, text));
    }

    /**
     * A {@link PgMuxConfigMXBean} setting put into the running pool; false if the pool has not started (or its
     * start failed). Under the start lock, so that a start under way is waited for rather than missed.
     */
    private boolean setOnRunningPool(String name, String text) {
        if (!sealed) {
            return false;
        }
        startLock.lock();
        try {
            JdbcPool p = pool;
            if (p == null) {
                return false;
            }
            p.reconfigure(name, text);
            return true;
        } finally {
            startLock.unlock();
        }
    }

    private Object poolValue(ConfigKey key) {
        JdbcPool p = pool;
        if (p != null) {
            return p.config().get(key);
        }
        Object value = poolValues.get(key);
        return value != null ? value : key.defaultValue(ConfigKey.Profile.JDBC);
    }

    private long millis(ConfigKey key) {
        return ((Duration) poolValue(key)).toMillis();
    }

    // ---------------------------------------------------------------- every logical connection's start state

    public String getConnectionInitSql() {
        return (String) driverValue(DriverProperty.CONNECTION_INIT_SQL);
    }

    /** SQL run once on every new server connection; a failure fails that login. */
    public void setConnectionInitSql(String connectionInitSql) {
        setDriverValue(DriverProperty.CONNECTION_INIT_SQL, connectionInitSql);
    }

    public boolean isAutoCommit() {
        return (Boolean) driverValue(DriverProperty.AUTO_COMMIT);
    }

    public void setAutoCommit(boolean autoCommit) {
        setDriverValue(DriverProperty.AUTO_COMMIT, autoCommit);
    }

    public boolean isReadOnly() {
        return (Boolean) driverValue(DriverProperty.READ_ONLY);
    }

    public void setReadOnly(boolean readOnly) {
        setDriverValue(DriverProperty.READ_ONLY, readOnly);
    }

    public String getTransactionIsolation() {
        return transactionIsolation;
    }

    /** A {@code Connection.TRANSACTION_*} name, with or without the prefix, or its number; null: the server's. */
    public void setTransactionIsolation(String isolationLevel) {
        Integer level = isolationLevel == null ? null : IsolationLevels.parse("transactionIsolation", isolationLevel);
        setDriverValue(DriverProperty.TRANSACTION_ISOLATION, level);
        this.transactionIsolation = isolationLevel;
    }

    public String getCatalog() {
        return catalog;
    }

    public void setCatalog(String catalog) {
        checkNotSealed();
        this.catalog = catalog;
    }

    public String getSchema() {
        return schema;
    }

    /** The schema (search_path) every logical connection starts in; null: the server's. */
    public void setSchema(String schema) {
        checkNotSealed();
        this.schema = schema;
    }

    public long getInitializationFailTimeout() {
        return (Long) driverValue(DriverProperty.INITIALIZATION_FAIL_TIMEOUT);
    }

    /**
     * At the start, greater than 0 (the default, 1) borrows one server connection and fails
     * {@code getConnection()} with the server's error if it cannot; 0 tries and starts anyway; less than 0
     * does not try. Unlike HikariCP, values above 0 do not retry for that long: a login the server refuses
     * fails at once, and a server that is down or starting up is waited for as by any borrow, up to
     * connectionTimeout.
     */
    public void setInitializationFailTimeout(long initializationFailTimeout) {
        setDriverValue(DriverProperty.INITIALIZATION_FAIL_TIMEOUT, initializationFailTimeout);
    }

    public boolean isRegisterMbeans() {
        return (Boolean) driverValue(DriverProperty.REGISTER_MBEANS);
    }

    /** Registers the pool's MXBean as {@code io.pgmux:type=Pool,name=<poolName>}. */
    public void setRegisterMbeans(boolean registerMbeans) {
        setDriverValue(DriverProperty.REGISTER_MBEANS, registerMbeans);
    }

    public long getIdleTransactionTimeout() {
        return millis(DriverProperty.IDLE_TRANSACTION_TIMEOUT);
    }

    /**
     * Milliseconds a logical connection may stay idle inside a transaction before the pool rolls the
     * transaction back and closes the connection (PgBouncer's idle_transaction_timeout); 0 never.
     */
    public void setIdleTransactionTimeout(long idleTransactionTimeoutMs) {
        if (idleTransactionTimeoutMs < 0) {
            throw new IllegalArgumentException("idleTransactionTimeout=" + idleTransactionTimeoutMs
                    + ": must not be negative");
        }
        setDriverValue(DriverProperty.IDLE_TRANSACTION_TIMEOUT, Duration.ofMillis(idleTransactionTimeoutMs));
    }

    public String getReadRouting() {
        return driverValue(DriverProperty.READ_ROUTING).toString().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * {@code off} (the default) or {@code replicas}: the URL's host list has one primary and standbys, and read-only
     * transactions run on a standby (see docs/jdbc.md, "Read routing").
     */
    public void setReadRouting(String readRouting) {
        setDriverSetting(DriverProperty.READ_ROUTING.propertyName(), readRouting);
    }

    public long getReplicaCheckPeriod() {
        return millis(DriverProperty.REPLICA_CHECK_PERIOD);
    }

    /** With readRouting=replicas: milliseconds between two checks of each host's role and replay position. */
    public void setReplicaCheckPeriod(long replicaCheckPeriodMs) {
        if (replicaCheckPeriodMs <= 0) {
            throw new IllegalArgumentException("replicaCheckPeriod=" + replicaCheckPeriodMs + ": must be positive");
        }
        setDriverValue(DriverProperty.REPLICA_CHECK_PERIOD, Duration.ofMillis(replicaCheckPeriodMs));
    }

    public boolean isReadYourWrites() {
        return (Boolean) driverValue(DriverProperty.READ_YOUR_WRITES);
    }

    /**
     * With readRouting=replicas (true by default): a logical connection's read-only transactions see its own
     * committed writes, running only on a standby that has replayed them, else on the primary.
     */
    public void setReadYourWrites(boolean readYourWrites) {
        setDriverValue(DriverProperty.READ_YOUR_WRITES, readYourWrites);
    }

    public long getReplicaWaitTimeout() {
        return millis(DriverProperty.REPLICA_WAIT_TIMEOUT);
    }

    /** With readYourWrites: milliseconds a read waits for a standby to replay its connection's last write. */
    public void setReplicaWaitTimeout(long replicaWaitTimeoutMs) {
        if (replicaWaitTimeoutMs < 0) {
            throw new IllegalArgumentException("replicaWaitTimeout=" + replicaWaitTimeoutMs
                    + ": must not be negative");
        }
        setDriverValue(DriverProperty.REPLICA_WAIT_TIMEOUT, Duration.ofMillis(replicaWaitTimeoutMs));
    }

    public long getReplicaMaxLag() {
        return millis(DriverProperty.REPLICA_MAX_LAG);
    }

    /**
     * With readRouting=replicas: milliseconds a standby's replay may lag the primary before it leaves the read set
     * until it catches up; 0, no bound.
     */
    public void setReplicaMaxLag(long replicaMaxLagMs) {
        if (replicaMaxLagMs < 0) {
            throw new IllegalArgumentException("replicaMaxLag=" + replicaMaxLagMs + ": must not be negative");
        }
        setDriverValue(DriverProperty.REPLICA_MAX_LAG, Duration.ofMillis(replicaMaxLagMs));
    }

    public String getFleet() {
        return (String) driverValue(DriverProperty.FLEET);
    }

    /**
     * The fleet this pool belongs to: the pools of the same fleet, database and user hold at most
     * {@link #setFleetMaxServers fleetMaxServers} server connections together, in every process; null: no fleet.
     */
    public void setFleet(String fleet) {
        setDriverValue(DriverProperty.FLEET, fleet);
    }

    public int getFleetMaxServers() {
        Object value = driverValue(DriverProperty.FLEET_MAX_SERVERS);
        return value == null ? 0 : ((Long) value).intValue();
    }

    /** With {@link #setFleet fleet}: the server connections the fleet's pools of this database and user share. */
    public void setFleetMaxServers(int fleetMaxServers) {
        setDriverValue(DriverProperty.FLEET_MAX_SERVERS, (long) fleetMaxServers);
    }

    /** A driver setting written as text under any of its names, as in a properties file. */
    void setDriverSetting(String name, String text) {
        DriverProperty property = DriverProperty.lookup(name);
        try {
            setDriverValue(property, property.parse(name, text));
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The value set, in the URL or with a setter, or the table's default (null where that is "not set"). */
    private Object driverValue(DriverProperty property) {
        Map<DriverProperty, Object> started = startedWith;
        Object value = started != null ? started.get(property) : driverValues.get(property);
        return value != null ? value : property.defaultValue();
    }

    private long millis(DriverProperty property) {
        return ((Duration) driverValue(property)).toMillis();
    }

    private void setDriverValue(DriverProperty property, Object value) {
        checkNotSealed();
        if (value == null) {
            driverValues.remove(property);
        } else {
            driverValues.put(property, value);
        }
    }

    // ---------------------------------------------------------------- observability and HikariCP's other settings

    public MetricsTrackerFactory getMetricsTrackerFactory() {
        return metricsTrackerFactory;
    }

    /** Receives the pool's events and gauges; exclusive with metricRegistry. */
    public void setMetricsTrackerFactory(MetricsTrackerFactory metricsTrackerFactory) {
        checkNotSealed();
        if (metricRegistry != null && metricsTrackerFactory != null) {
            throw new IllegalArgumentException("metricRegistry and metricsTrackerFactory cannot be used together");
        }
        this.metricsTrackerFactory = metricsTrackerFactory;
    }

    public long getValidationTimeout() {
        return validationTimeout;
    }

    /** Accepted and kept for HikariCP compatibility; server connection tests time out after 5 s. */
    @Override
    public void setValidationTimeout(long validationTimeoutMs) {
        if (validationTimeoutMs < 0) {
            throw new IllegalArgumentException("validationTimeout=" + validationTimeoutMs + ": must not be negative");
        }
        this.validationTimeout = validationTimeoutMs;
    }

    public boolean isAllowPoolSuspension() {
        return allowPoolSuspension;
    }

    /** Accepted for HikariCP compatibility; the MXBean's suspendPool/resumePool (PAUSE/RESUME) always work. */
    public void setAllowPoolSuspension(boolean allowPoolSuspension) {
        checkNotSealed();
        this.allowPoolSuspension = allowPoolSuspension;
    }

    public boolean isIsolateInternalQueries() {
        return isolateInternalQueries;
    }

    /** Accepted for HikariCP compatibility; pgmux's internal queries never run inside a client's transaction. */
    public void setIsolateInternalQueries(boolean isolateInternalQueries) {
        checkNotSealed();
        this.isolateInternalQueries = isolateInternalQueries;
    }

    /** Refused: pgmux opens its connections through pgjdbc from jdbcUrl. */
    public void setDataSourceClassName(String className) {
        refuse("dataSourceClassName", className, "give jdbcUrl (jdbc:postgresql://host:port/database) instead");
    }

    /** Refused: pgmux opens its connections through pgjdbc from jdbcUrl. */
    public void setDataSourceJNDI(String jndiName) {
        refuse("dataSourceJNDI", jndiName, "give jdbcUrl (jdbc:postgresql://host:port/database) instead");
    }

    /** Refused: a server connection is replaced when its error's SQLSTATE says the connection is gone. */
    public void setExceptionOverrideClassName(String className) {
        refuse("exceptionOverrideClassName", className,
                "pgmux decides eviction by SQLSTATE (class 08, 57P01-03, 57P05)");
    }

    public Object getMetricRegistry() {
        return metricRegistry;
    }

    /**
     * A Micrometer {@code MeterRegistry} to publish the pool's {@code pgmux.*} meters to, as HikariCP's
     * {@code metricRegistry} does; Micrometer must then be on the class path. Exclusive with
     * metricsTrackerFactory.
     *
     * @throws IllegalArgumentException for any other object, or when a metricsTrackerFactory is set
     */
    public void setMetricRegistry(Object metricRegistry) {
        checkNotSealed();
        if (metricRegistry == null) {
            if (this.metricRegistry != null) {
                this.metricRegistry = null;
                this.metricsTrackerFactory = null;
            }
            return;
        }
        if (metricsTrackerFactory != null && this.metricRegistry == null) {
            throw new IllegalArgumentException("metricRegistry and metricsTrackerFactory cannot be used together");
        }
        this.metricsTrackerFactory = MicrometerMetricsTrackerFactory.forRegistry(metricRegistry);
        this.metricRegistry = metricRegistry;
    }

    /** Refused: use isRunning() or the pool MXBean. */
    public void setHealthCheckRegistry(Object healthCheckRegistry) {
        refuse("healthCheckRegistry", healthCheckRegistry, "use isRunning() or getPoolMXBean()");
    }

    /** Refused: pgmux checks idle server connections with connectionTestQuery and keepaliveTime. */
    public void setHealthCheckProperties(Object healthCheckProperties) {
        boolean none = healthCheckProperties instanceof Map && ((Map<?, ?>) healthCheckProperties).isEmpty();
        refuse("healthCheckProperties", none ? null : healthCheckProperties,
                "use isRunning() or getPoolMXBean(); keepaliveTime checks idle connections");
    }

    /** Refused: housekeeping and logins run on daemon threads of pgmux's own. */
    public void setThreadFactory(Object threadFactory) {
        refuse("threadFactory", threadFactory, OWN_THREADS);
    }

    /** Refused: housekeeping and logins run on daemon threads of pgmux's own. */
    public void setScheduledExecutor(Object scheduledExecutor) {
        refuse("scheduledExecutor", scheduledExecutor, OWN_THREADS);
    }

    /** Refused: pgmux opens its connections through pgjdbc from jdbcUrl. */
    public void setDataSource(Object dataSource) {
        refuse("dataSource", dataSource, "give jdbcUrl (jdbc:postgresql://host:port/database) instead");
    }

    /** Refused: a server connection is replaced when its error's SQLSTATE says the connection is gone. */
    public void setExceptionOverride(Object exceptionOverride) {
        refuse("exceptionOverride", exceptionOverride,
                "pgmux decides eviction by SQLSTATE (class 08, 57P01-03, 57P05)");
    }

    /** Refused: give username and password, or a credentialsProvider. */
    public void setCredentials(Object credentials) {
        refuse("credentials", credentials, "give username and password (setPassword works while the pool runs),"
                + " or a credentialsProvider");
    }

    // ---------------------------------------------------------------- credentials that change

    public CredentialsProvider getCredentialsProvider() {
        return credentialsProvider;
    }

    /**
     * Asked for the user and password of each new server connection, as HikariCP's credentialsProvider; what it
     * leaves null falls back to username and password. Exclusive with the other credential sources below.
     */
    public void setCredentialsProvider(CredentialsProvider credentialsProvider) {
        checkNotSealed();
        this.credentialsProvider = credentialsProvider;
    }

    public String getCredentialsProviderClassName() {
        return (String) driverValue(DriverProperty.CREDENTIALS_PROVIDER_CLASS_NAME);
    }

    /**
     * A {@link CredentialsProvider} class with a public no-argument constructor, created when the pool starts.
     *
     * @throws IllegalArgumentException if the class cannot be found or is not such a provider
     */
    public void setCredentialsProviderClassName(String className) {
        checkNotSealed();
        if (className != null) {
            CredentialSources.check(className);
        }
        setDriverValue(DriverProperty.CREDENTIALS_PROVIDER_CLASS_NAME, className);
    }

    public String getPasswordFile() {
        return (String) driverValue(DriverProperty.PASSWORD_FILE);
    }

    /** A file holding the password, read again at each new server connection (a Kubernetes secret volume). */
    public void setPasswordFile(String passwordFile) {
        setDriverValue(DriverProperty.PASSWORD_FILE, passwordFile);
    }

    public String getUsernameFile() {
        return (String) driverValue(DriverProperty.USERNAME_FILE);
    }

    /** With passwordFile: a file holding the user name, read again at each new server connection. */
    public void setUsernameFile(String usernameFile) {
        setDriverValue(DriverProperty.USERNAME_FILE, usernameFile);
    }

    public String getPasswordCommand() {
        return (String) driverValue(DriverProperty.PASSWORD_COMMAND);
    }

    /** A shell command that prints the password (a token issuer), run for new server connections. */
    public void setPasswordCommand(String passwordCommand) {
        setDriverValue(DriverProperty.PASSWORD_COMMAND, passwordCommand);
    }

    public long getPasswordCommandCacheTime() {
        return millis(DriverProperty.PASSWORD_COMMAND_CACHE_TIME);
    }

    /** Milliseconds passwordCommand's output is used before the command runs again; 0 runs it at every login. */
    public void setPasswordCommandCacheTime(long cacheTimeMs) {
        if (cacheTimeMs < 0) {
            throw new IllegalArgumentException("passwordCommandCacheTime=" + cacheTimeMs + ": must not be negative");
        }
        setDriverValue(DriverProperty.PASSWORD_COMMAND_CACHE_TIME, Duration.ofMillis(cacheTimeMs));
    }

    private void refuse(String property, Object value, String instead) {
        checkNotSealed();
        if (value != null) {
            throw new IllegalArgumentException(property + " is not supported by PgMuxDataSource: " + instead);
        }
    }

    private void checkNotSealed() {
        if (sealed) {
            throw new IllegalStateException(SEALED);
        }
    }

    // ---------------------------------------------------------------- javax.sql.CommonDataSource and Wrapper

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    /** Kept as DataSource asks; pgmux logs through SLF4J. */
    @Override
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    /** Seconds; passed to pgjdbc as loginTimeout when the pool starts, unless dataSourceProperties has one. */
    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("pgmux logs through SLF4J");
    }

    /** This data source, or once started its {@link JdbcPool} or the pool's {@link PgMuxPoolMXBean}. */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        JdbcPool p = pool;
        if (p != null && iface.isInstance(p)) {
            return iface.cast(p);
        }
        if (p != null && iface.isInstance(p.pool())) {
            return iface.cast(p.pool());
        }
        throw new SQLException("PgMuxDataSource does not wrap a " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        JdbcPool p = pool;
        return iface.isInstance(this) || (p != null && (iface.isInstance(p) || iface.isInstance(p.pool())));
    }

    @Override
    public String toString() {
        String name = getPoolName();
        return "PgMuxDataSource (" + (name != null ? name : "not started") + ")";
    }
}
