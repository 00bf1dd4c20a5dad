package io.pgmux.core.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every pool setting, under each name it is known by: pgmux (camelCase), PgBouncer (snake_case) and,
 * where one exists, HikariCP. Defaults differ between the JDBC driver and the proxy where PgBouncer's
 * and HikariCP's habits differ.
 */
public enum ConfigKey {
    POOL_MODE("poolMode", "pool_mode", null, Type.POOL_MODE, PoolMode.TRANSACTION, PoolMode.SESSION),
    DEFAULT_POOL_SIZE("defaultPoolSize", "default_pool_size", "maximumPoolSize", Type.INT, 20, 20),
    MIN_POOL_SIZE("minPoolSize", "min_pool_size", "minimumIdle", Type.INT, 0, 0),
    RESERVE_POOL_SIZE("reservePoolSize", "reserve_pool_size", null, Type.INT, 0, 0),
    RESERVE_POOL_TIMEOUT("reservePoolTimeout", "reserve_pool_timeout", null, Type.DURATION,
            Duration.ofSeconds(5), Duration.ofSeconds(5)),
    QUERY_WAIT_TIMEOUT("queryWaitTimeout", "query_wait_timeout", "connectionTimeout", Type.DURATION,
            Duration.ofSeconds(30), Duration.ofSeconds(120)),
    SERVER_IDLE_TIMEOUT("serverIdleTimeout", "server_idle_timeout", "idleTimeout", Type.DURATION,
            Duration.ofSeconds(600), Duration.ofSeconds(600)),
    SERVER_LIFETIME("serverLifetime", "server_lifetime", "maxLifetime", Type.DURATION,
            Duration.ofSeconds(3600), Duration.ofSeconds(3600)),
    SERVER_CONNECT_TIMEOUT("serverConnectTimeout", "server_connect_timeout", null, Type.DURATION,
            Duration.ofSeconds(15), Duration.ofSeconds(15)),
    SERVER_LOGIN_RETRY("serverLoginRetry", "server_login_retry", null, Type.DURATION,
            Duration.ofSeconds(15), Duration.ofSeconds(15)),
    SERVER_CHECK_DELAY("serverCheckDelay", "server_check_delay", "keepaliveTime", Type.DURATION,
            Duration.ofSeconds(30), Duration.ofSeconds(30)),
    /** The proxy's default is PgBouncer's: {@code <empty>} sends an empty query, an empty value disables the check. */
    SERVER_CHECK_QUERY("serverCheckQuery", "server_check_query", "connectionTestQuery", Type.STRING, "", "<empty>"),
    SERVER_RESET_QUERY("serverResetQuery", "server_reset_query", null, Type.STRING, "DISCARD ALL", "DISCARD ALL"),
    SERVER_RESET_QUERY_ALWAYS("serverResetQueryAlways", "server_reset_query_always", null, Type.BOOLEAN,
            false, false),
    MAX_DB_CONNECTIONS("maxDbConnections", "max_db_connections", null, Type.INT, 0, 0),
    MAX_USER_CONNECTIONS("maxUserConnections", "max_user_connections", null, Type.INT, 0, 0),
    MAX_CLIENT_CONN("maxClientConn", "max_client_conn", null, Type.INT, 0, 100),
    LEAK_DETECTION_THRESHOLD("leakDetectionThreshold", "leak_detection_threshold", "leakDetectionThreshold",
            Type.DURATION, Duration.ZERO, Duration.ZERO),
    POOL_NAME("poolName", "pool_name", "poolName", Type.STRING, "", "");

    /** How a value is written and checked. */
    public enum Type { INT, DURATION, STRING, BOOLEAN, POOL_MODE }

    /** Which product's defaults apply. */
    public enum Profile { JDBC, PROXY }

    private static final Map<String, ConfigKey> BY_NAME = new HashMap<>();

    static {
        for (ConfigKey key : values()) {
            BY_NAME.put(key.camelName.toLowerCase(Locale.ROOT), key);
            BY_NAME.put(key.pgbouncerName, key);
            if (key.hikariName != null) {
                BY_NAME.put(key.hikariName.toLowerCase(Locale.ROOT), key);
            }
        }
    }

    private final String camelName;
    private final String pgbouncerName;
    private final String hikariName;
    private final Type type;
    private final Object jdbcDefault;
    private final Object proxyDefault;

    ConfigKey(String camelName, String pgbouncerName, String hikariName, Type type, Object jdbcDefault,
              Object proxyDefault) {
        this.camelName = camelName;
        this.pgbouncerName = pgbouncerName;
        this.hikariName = hikariName;
        this.type = type;
        this.jdbcDefault = jdbcDefault;
        this.proxyDefault = proxyDefault;
    }

    public String camelName() {
        return camelName;
    }

    public String pgbouncerName() {
        return pgbouncerName;
    }

    /** The HikariCP property this setting answers to, or null. */
    public String hikariName() {
        return hikariName;
    }

    public Type type() {
        return type;
    }

    public Object defaultValue(Profile profile) {
        return profile == Profile.JDBC ? jdbcDefault : proxyDefault;
    }

    /** The key for any of its names (case-insensitive for camelCase names), or null. */
    public static ConfigKey lookup(String name) {
        if (name == null) {
            return null;
        }
        String trimmed = name.trim();
        ConfigKey key = BY_NAME.get(trimmed);
        return key != null ? key : BY_NAME.get(trimmed.toLowerCase(Locale.ROOT));
    }

    /** The known name closest to a misspelt one, for "did you mean" messages; null when none is close. */
    public static String nearestName(String name) {
        List<String> names = new ArrayList<>();
        for (ConfigKey key : values()) {
            names.add(key.camelName);
            names.add(key.pgbouncerName);
            if (key.hikariName != null) {
                names.add(key.hikariName);
            }
        }
        return UnknownSetting.nearest(name, names);
    }

    /**
     * Converts a textual value. Bare numbers for durations are seconds under PgBouncer's snake_case names
     * and milliseconds under camelCase (pgmux and HikariCP) names, so values copied from either
     * product's configuration keep their meaning.
     */
    Object parse(String writtenName, String text) {
        String value = text == null ? "" : text.trim();
        try {
            switch (type) {
                case INT:
                    return Integer.parseInt(value);
                case DURATION:
                    return notNegative(Durations.parse(value, writtenName.indexOf('_') >= 0));
                case BOOLEAN:
                    return parseBoolean(value);
                case POOL_MODE:
                    return PoolMode.parse(value);
                default:
                    return text == null ? "" : text;
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(writtenName, writtenName + "=" + text + ": must be a whole number");
        } catch (IllegalArgumentException e) {
            throw new ConfigException(writtenName, writtenName + "=" + text + ": " + e.getMessage());
        }
    }

    /** Checked here rather than only in {@link PoolConfig.Builder#build()}, so the message shows the value as written. */
    private static Duration notNegative(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("must not be negative (0 disables it)");
        }
        return d;
    }

    private static boolean parseBoolean(String value) {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "1":
            case "true":
            case "yes":
            case "on":
                return true;
            case "0":
            case "false":
            case "no":
            case "off":
                return false;
            default:
                throw new IllegalArgumentException("must be true or false (1/0, yes/no, on/off)");
        }
    }
}
