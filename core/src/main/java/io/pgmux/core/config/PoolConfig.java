package io.pgmux.core.config;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings of one pool, immutable and validated once by {@link Builder#build()}. Values are read on
 * hot paths, so they are kept as plain fields (durations in nanoseconds).
 */
public final class PoolConfig {
    private final ConfigKey.Profile profile;
    private final EnumMap<ConfigKey, Object> values;

    private final PoolMode poolMode;
    private final int defaultPoolSize;
    private final int minPoolSize;
    private final int reservePoolSize;
    private final long reservePoolTimeoutNanos;
    private final long queryWaitTimeoutNanos;
    private final long serverIdleTimeoutNanos;
    private final long serverLifetimeNanos;
    private final long serverConnectTimeoutNanos;
    private final long serverLoginRetryNanos;
    private final long serverCheckDelayNanos;
    private final String serverCheckQuery;
    private final String serverResetQuery;
    private final boolean serverResetQueryAlways;
    private final int maxDbConnections;
    private final int maxUserConnections;
    private final int maxClientConn;
    private final long leakDetectionThresholdNanos;
    private final String poolName;

    private PoolConfig(ConfigKey.Profile profile, EnumMap<ConfigKey, Object> values) {
        this.profile = profile;
        this.values = values;
        this.poolMode = (PoolMode) values.get(ConfigKey.POOL_MODE);
        this.defaultPoolSize = intValue(ConfigKey.DEFAULT_POOL_SIZE);
        this.minPoolSize = intValue(ConfigKey.MIN_POOL_SIZE);
        this.reservePoolSize = intValue(ConfigKey.RESERVE_POOL_SIZE);
        this.reservePoolTimeoutNanos = nanos(ConfigKey.RESERVE_POOL_TIMEOUT);
        this.queryWaitTimeoutNanos = nanos(ConfigKey.QUERY_WAIT_TIMEOUT);
        this.serverIdleTimeoutNanos = nanos(ConfigKey.SERVER_IDLE_TIMEOUT);
        this.serverLifetimeNanos = nanos(ConfigKey.SERVER_LIFETIME);
        this.serverConnectTimeoutNanos = nanos(ConfigKey.SERVER_CONNECT_TIMEOUT);
        this.serverLoginRetryNanos = nanos(ConfigKey.SERVER_LOGIN_RETRY);
        this.serverCheckDelayNanos = nanos(ConfigKey.SERVER_CHECK_DELAY);
        this.serverCheckQuery = (String) values.get(ConfigKey.SERVER_CHECK_QUERY);
        this.serverResetQuery = (String) values.get(ConfigKey.SERVER_RESET_QUERY);
        this.serverResetQueryAlways = (Boolean) values.get(ConfigKey.SERVER_RESET_QUERY_ALWAYS);
        this.maxDbConnections = intValue(ConfigKey.MAX_DB_CONNECTIONS);
        this.maxUserConnections = intValue(ConfigKey.MAX_USER_CONNECTIONS);
        this.maxClientConn = intValue(ConfigKey.MAX_CLIENT_CONN);
        this.leakDetectionThresholdNanos = nanos(ConfigKey.LEAK_DETECTION_THRESHOLD);
        this.poolName = (String) values.get(ConfigKey.POOL_NAME);
    }

    /** Defaults of the JDBC driver: transaction mode, 30 s wait (HikariCP's connectionTimeout). */
    public static Builder jdbcDefaults() {
        return new Builder(ConfigKey.Profile.JDBC);
    }

    /** Defaults of the proxy: PgBouncer's (session mode, 120 s wait, 100 clients). */
    public static Builder proxyDefaults() {
        return new Builder(ConfigKey.Profile.PROXY);
    }

    public Builder toBuilder() {
        Builder b = new Builder(profile);
        b.values.putAll(values);
        return b;
    }

    public ConfigKey.Profile profile() {
        return profile;
    }

    public PoolMode poolMode() {
        return poolMode;
    }

    public int defaultPoolSize() {
        return defaultPoolSize;
    }

    public int minPoolSize() {
        return minPoolSize;
    }

    public int reservePoolSize() {
        return reservePoolSize;
    }

    public long reservePoolTimeoutNanos() {
        return reservePoolTimeoutNanos;
    }

    /** 0 means wait without a limit. */
    public long queryWaitTimeoutNanos() {
        return queryWaitTimeoutNanos;
    }

    /** 0 disables idle closing. */
    public long serverIdleTimeoutNanos() {
        return serverIdleTimeoutNanos;
    }

    /** 0 means no age limit (in the proxy: see {@link #serverUsedOnce()}). */
    public long serverLifetimeNanos() {
        return serverLifetimeNanos;
    }

    /**
     * PgBouncer's server_lifetime of 0: a server connection is used by one client, then closed. Only the proxy reads
     * 0 so; for the JDBC driver it means no limit, as HikariCP's maxLifetime of 0 does.
     */
    public boolean serverUsedOnce() {
        return serverLifetimeNanos == 0 && profile == ConfigKey.Profile.PROXY;
    }

    public long serverConnectTimeoutNanos() {
        return serverConnectTimeoutNanos;
    }

    public long serverLoginRetryNanos() {
        return serverLoginRetryNanos;
    }

    /** A connection idle longer than this is tested before reuse; 0 tests before every reuse. */
    public long serverCheckDelayNanos() {
        return serverCheckDelayNanos;
    }

    /** Empty means: the connector's cheapest liveness check (an empty query). */
    public String serverCheckQuery() {
        return serverCheckQuery;
    }

    public String serverResetQuery() {
        return serverResetQuery;
    }

    public boolean serverResetQueryAlways() {
        return serverResetQueryAlways;
    }

    /** Whether a released connection is reset before reuse: session mode, or always if asked. */
    public boolean resetOnRelease() {
        return !serverResetQuery.isBlank() && (poolMode == PoolMode.SESSION || serverResetQueryAlways);
    }

    /** 0 means unlimited. */
    public int maxDbConnections() {
        return maxDbConnections;
    }

    /** 0 means unlimited. */
    public int maxUserConnections() {
        return maxUserConnections;
    }

    /** 0 means unlimited. */
    public int maxClientConn() {
        return maxClientConn;
    }

    /** 0 disables leak detection. */
    public long leakDetectionThresholdNanos() {
        return leakDetectionThresholdNanos;
    }

    /** Empty when the pool should be named after its database and user. */
    public String poolName() {
        return poolName;
    }

    public Object get(ConfigKey key) {
        return values.get(key);
    }

    /** Every setting under its PgBouncer name with its value as SHOW CONFIG prints it, in table order. */
    public Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<ConfigKey, Object> e : values.entrySet()) {
            Object v = e.getValue();
            String text = v instanceof Duration ? Durations.format((Duration) v)
                    : v instanceof PoolMode ? ((PoolMode) v).configName() : String.valueOf(v);
            out.put(e.getKey().pgbouncerName(), text);
        }
        return Collections.unmodifiableMap(out);
    }

    @Override
    public String toString() {
        return "PoolConfig" + describe();
    }

    private int intValue(ConfigKey key) {
        return (Integer) values.get(key);
    }

    private long nanos(ConfigKey key) {
        return ((Duration) values.get(key)).toNanos();
    }

    /** Collects settings; {@link #build()} validates them all in one place. */
    public static final class Builder {
        private final ConfigKey.Profile profile;
        private final EnumMap<ConfigKey, Object> values = new EnumMap<>(ConfigKey.class);
        private final Map<ConfigKey, String> writtenNames = new EnumMap<>(ConfigKey.class);

        private Builder(ConfigKey.Profile profile) {
            this.profile = profile;
            for (ConfigKey key : ConfigKey.values()) {
                values.put(key, key.defaultValue(profile));
            }
        }

        /**
         * Sets a value by any of its names (pgmux, PgBouncer or HikariCP).
         *
         * @throws ConfigException for an unknown name (suggesting the nearest one) or a malformed value
         */
        public Builder set(String name, String value) {
            ConfigKey key = ConfigKey.lookup(name);
            if (key == null) {
                throw new ConfigException(name, UnknownSetting.message("pool setting", name,
                        ConfigKey.nearestName(name)));
            }
            values.put(key, key.parse(name, value));
            writtenNames.put(key, name);
            return this;
        }

        /** Sets every entry of the map; see {@link #set(String, String)}. */
        public Builder setAll(Map<String, String> settings) {
            settings.forEach(this::set);
            return this;
        }

        public Builder poolMode(PoolMode mode) {
            return put(ConfigKey.POOL_MODE, mode);
        }

        public Builder defaultPoolSize(int size) {
            return put(ConfigKey.DEFAULT_POOL_SIZE, size);
        }

        public Builder minPoolSize(int size) {
            return put(ConfigKey.MIN_POOL_SIZE, size);
        }

        public Builder reservePoolSize(int size) {
            return put(ConfigKey.RESERVE_POOL_SIZE, size);
        }

        public Builder reservePoolTimeout(Duration d) {
            return put(ConfigKey.RESERVE_POOL_TIMEOUT, d);
        }

        public Builder queryWaitTimeout(Duration d) {
            return put(ConfigKey.QUERY_WAIT_TIMEOUT, d);
        }

        public Builder serverIdleTimeout(Duration d) {
            return put(ConfigKey.SERVER_IDLE_TIMEOUT, d);
        }

        public Builder serverLifetime(Duration d) {
            return put(ConfigKey.SERVER_LIFETIME, d);
        }

        public Builder serverConnectTimeout(Duration d) {
            return put(ConfigKey.SERVER_CONNECT_TIMEOUT, d);
        }

        public Builder serverLoginRetry(Duration d) {
            return put(ConfigKey.SERVER_LOGIN_RETRY, d);
        }

        public Builder serverCheckDelay(Duration d) {
            return put(ConfigKey.SERVER_CHECK_DELAY, d);
        }

        public Builder serverCheckQuery(String query) {
            return put(ConfigKey.SERVER_CHECK_QUERY, query == null ? "" : query);
        }

        public Builder serverResetQuery(String query) {
            return put(ConfigKey.SERVER_RESET_QUERY, query == null ? "" : query);
        }

        public Builder serverResetQueryAlways(boolean always) {
            return put(ConfigKey.SERVER_RESET_QUERY_ALWAYS, always);
        }

        public Builder maxDbConnections(int max) {
            return put(ConfigKey.MAX_DB_CONNECTIONS, max);
        }

        public Builder maxUserConnections(int max) {
            return put(ConfigKey.MAX_USER_CONNECTIONS, max);
        }

        public Builder maxClientConn(int max) {
            return put(ConfigKey.MAX_CLIENT_CONN, max);
        }

        public Builder leakDetectionThreshold(Duration d) {
            return put(ConfigKey.LEAK_DETECTION_THRESHOLD, d);
        }

        public Builder poolName(String name) {
            return put(ConfigKey.POOL_NAME, name == null ? "" : name);
        }

        private Builder put(ConfigKey key, Object value) {
            if (value == null) {
                throw new ConfigException(key.camelName(), key.camelName() + " must not be null");
            }
            values.put(key, value);
            writtenNames.remove(key);
            return this;
        }

        /** Validates every value and their relations. */
        public PoolConfig build() {
            atLeast(ConfigKey.DEFAULT_POOL_SIZE, 1);
            atLeast(ConfigKey.MIN_POOL_SIZE, 0);
            atLeast(ConfigKey.RESERVE_POOL_SIZE, 0);
            atLeast(ConfigKey.MAX_DB_CONNECTIONS, 0);
            atLeast(ConfigKey.MAX_USER_CONNECTIONS, 0);
            atLeast(ConfigKey.MAX_CLIENT_CONN, 0);
            for (ConfigKey key : ConfigKey.values()) {
                if (key.type() == ConfigKey.Type.DURATION && ((Duration) values.get(key)).isNegative()) {
                    throw new ConfigException(name(key), name(key) + "=" + values.get(key)
                            + ": must not be negative (0 disables it)");
                }
            }
            int min = (Integer) values.get(ConfigKey.MIN_POOL_SIZE);
            int size = (Integer) values.get(ConfigKey.DEFAULT_POOL_SIZE);
            // PgBouncer takes a min_pool_size above a pool's size (a database's minimum, a user's smaller pool) and
            // keeps pool_size connections; the proxy reads its configuration as PgBouncer does
            if (min > size && profile == ConfigKey.Profile.JDBC) {
                throw new ConfigException(name(ConfigKey.MIN_POOL_SIZE), name(ConfigKey.MIN_POOL_SIZE) + "=" + min
                        + " is larger than " + name(ConfigKey.DEFAULT_POOL_SIZE) + "=" + size
                        + ": the pool cannot keep more connections than it may open");
            }
            if (((Duration) values.get(ConfigKey.SERVER_CONNECT_TIMEOUT)).isZero()) {
                throw new ConfigException(name(ConfigKey.SERVER_CONNECT_TIMEOUT),
                        name(ConfigKey.SERVER_CONNECT_TIMEOUT) + " must be greater than 0");
            }
            return new PoolConfig(profile, new EnumMap<>(values));
        }

        private void atLeast(ConfigKey key, int floor) {
            int v = (Integer) values.get(key);
            if (v < floor) {
                throw new ConfigException(name(key), name(key) + "=" + v + ": must be at least " + floor);
            }
        }

        /** The name the value was written under; else the proxy's users know PgBouncer's names, the rest pgmux's. */
        /** The name the setting was written with; else PgBouncer's for the proxy, HikariCP's (if any) for JDBC. */
        private String name(ConfigKey key) {
            String written = writtenNames.get(key);
            if (written != null) {
                return written;
            }
            if (profile == ConfigKey.Profile.PROXY) {
                return key.pgbouncerName();
            }
            return key.hikariName() != null ? key.hikariName() : key.camelName();
        }
    }
}
