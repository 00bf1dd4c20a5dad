package io.pgmux.jdbc.pool;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.jdbc.credentials.CredentialsProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

/** Everything a {@link JdbcPool} is built from; the driver and the DataSource both produce one. */
public final class JdbcPoolSettings {
    private static final Duration DEFAULT_REPLICA_CHECK_PERIOD = Duration.ofSeconds(1);
    private static final Duration DEFAULT_REPLICA_WAIT_TIMEOUT = Duration.ofMillis(100);

    final String targetUrl;
    final Properties driverProperties;
    final String database;
    final String user;
    final PoolConfig poolConfig;
    final String connectionInitSql;
    final Boolean autoCommit;
    final Boolean readOnly;
    final Integer transactionIsolation;
    final String catalog;
    final String schema;
    final boolean registerMbeans;
    final MetricsTrackerFactory metricsTrackerFactory;
    final Duration idleTransactionTimeout;
    final CredentialsProvider credentialsProvider;
    final ReadRouting readRouting;
    final Duration replicaCheckPeriod;
    final boolean readYourWrites;
    final Duration replicaWaitTimeout;
    /** A standby lagging more than this leaves the read set; zero: no bound. */
    final Duration replicaMaxLag;
    /** The fleet this pool is a member of, or null; with the budget its members share. */
    final String fleet;
    final int fleetMaxServers;

    private JdbcPoolSettings(Builder b) {
        this.targetUrl = Objects.requireNonNull(b.targetUrl, "targetUrl");
        this.driverProperties = (Properties) b.driverProperties.clone();
        this.database = Objects.requireNonNull(b.database, "database");
        this.user = b.user == null ? "" : b.user;
        this.poolConfig = Objects.requireNonNull(b.poolConfig, "poolConfig");
        this.connectionInitSql = b.connectionInitSql;
        this.autoCommit = b.autoCommit;
        this.readOnly = b.readOnly;
        this.transactionIsolation = b.transactionIsolation;
        this.catalog = b.catalog;
        this.schema = b.schema;
        this.registerMbeans = b.registerMbeans;
        this.metricsTrackerFactory = b.metricsTrackerFactory;
        this.idleTransactionTimeout = b.idleTransactionTimeout == null ? Duration.ZERO : b.idleTransactionTimeout;
        this.credentialsProvider = b.credentialsProvider;
        this.readRouting = b.readRouting == null ? ReadRouting.OFF : b.readRouting;
        this.replicaCheckPeriod = b.replicaCheckPeriod == null || b.replicaCheckPeriod.isZero()
                ? DEFAULT_REPLICA_CHECK_PERIOD : b.replicaCheckPeriod;
        this.readYourWrites = b.readYourWrites == null || b.readYourWrites;
        this.replicaWaitTimeout = b.replicaWaitTimeout == null ? DEFAULT_REPLICA_WAIT_TIMEOUT : b.replicaWaitTimeout;
        this.replicaMaxLag = b.replicaMaxLag == null ? Duration.ZERO : b.replicaMaxLag;
        this.fleet = b.fleet;
        this.fleetMaxServers = b.fleetMaxServers;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String targetUrl() {
        return targetUrl;
    }

    public String database() {
        return database;
    }

    public String user() {
        return user;
    }

    public PoolConfig poolConfig() {
        return poolConfig;
    }

    /** Collects settings. */
    public static final class Builder {
        private String targetUrl;
        private Properties driverProperties = new Properties();
        private String database;
        private String user;
        private PoolConfig poolConfig;
        private String connectionInitSql;
        private Boolean autoCommit;
        private Boolean readOnly;
        private Integer transactionIsolation;
        private String catalog;
        private String schema;
        private boolean registerMbeans;
        private MetricsTrackerFactory metricsTrackerFactory;
        private Duration idleTransactionTimeout;
        private CredentialsProvider credentialsProvider;
        private ReadRouting readRouting;
        private Duration replicaCheckPeriod;
        private Boolean readYourWrites;
        private Duration replicaWaitTimeout;
        private Duration replicaMaxLag;
        private String fleet;
        private int fleetMaxServers;

        private Builder() {
        }

        /** The {@code jdbc:postgresql:} URL physical connections are opened with. */
        public Builder targetUrl(String url) {
            this.targetUrl = url;
            return this;
        }

        /** pgjdbc properties, including user and password. */
        public Builder driverProperties(Properties properties) {
            this.driverProperties = properties;
            return this;
        }

        /** The pool key: database and user, as SHOW POOLS shows them. */
        public Builder poolKey(String database, String user) {
            this.database = database;
            this.user = user;
            return this;
        }

        public Builder poolConfig(PoolConfig config) {
            this.poolConfig = config;
            return this;
        }

        public Builder connectionInitSql(String sql) {
            this.connectionInitSql = sql;
            return this;
        }

        /** Initial state of every logical connection; null keeps the driver's default. */
        public Builder autoCommit(Boolean autoCommit) {
            this.autoCommit = autoCommit;
            return this;
        }

        public Builder readOnly(Boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        public Builder transactionIsolation(Integer level) {
            this.transactionIsolation = level;
            return this;
        }

        public Builder catalog(String catalog) {
            this.catalog = catalog;
            return this;
        }

        public Builder schema(String schema) {
            this.schema = schema;
            return this;
        }

        public Builder registerMbeans(boolean register) {
            this.registerMbeans = register;
            return this;
        }

        public Builder metricsTrackerFactory(MetricsTrackerFactory factory) {
            this.metricsTrackerFactory = factory;
            return this;
        }

        /** PgBouncer's idle_transaction_timeout for logical connections; null or zero: off. */
        public Builder idleTransactionTimeout(Duration timeout) {
            this.idleTransactionTimeout = timeout;
            return this;
        }

        /** Asked for the user and password of each new server connection; null: those of the properties. */
        public Builder credentialsProvider(CredentialsProvider provider) {
            this.credentialsProvider = provider;
            return this;
        }

        /** Where read-only transactions run; null: {@link ReadRouting#OFF}. */
        public Builder readRouting(ReadRouting routing) {
            this.readRouting = routing;
            return this;
        }

        /** How often each host's role and replay position are checked; null or zero: every second. */
        public Builder replicaCheckPeriod(Duration period) {
            this.replicaCheckPeriod = period;
            return this;
        }

        /** With read routing, whether read-only transactions see their connection's own writes; null: true. */
        public Builder readYourWrites(Boolean readYourWrites) {
            this.readYourWrites = readYourWrites;
            return this;
        }

        /** How long a read waits for a standby to replay its connection's last write; null: 100 ms. */
        public Builder replicaWaitTimeout(Duration timeout) {
            this.replicaWaitTimeout = timeout;
            return this;
        }

        /** A standby whose replay lags more than this leaves the read set until it catches up; null or zero: no bound. */
        public Builder replicaMaxLag(Duration maxLag) {
            this.replicaMaxLag = maxLag;
            return this;
        }

        /** Makes the pool a member of {@code fleet}, whose pools hold at most {@code maxServers} together. */
        public Builder fleet(String fleet, int maxServers) {
            this.fleet = fleet;
            this.fleetMaxServers = maxServers;
            return this;
        }

        public JdbcPoolSettings build() {
            return new JdbcPoolSettings(this);
        }
    }
}
