package io.pgmux.jdbc;

import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.PoolMode;
import java.sql.DriverPropertyInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What {@code Driver.getPropertyInfo} says about pgmux's own properties. */
final class PropertyInfo {
    private static final String[] BOOLEANS = {"true", "false"};

    private PropertyInfo() {
    }

    /** One entry per pool setting, then one per driver setting, with the values given or the defaults. */
    static List<DriverPropertyInfo> describe(Map<ConfigKey, Setting> pool, Map<DriverProperty, Setting> driver) {
        List<DriverPropertyInfo> out = new ArrayList<>();
        for (ConfigKey key : ConfigKey.values()) {
            Setting given = pool.get(key);
            DriverPropertyInfo info = new DriverPropertyInfo(key.camelName(),
                    given != null ? given.text() : defaultText(key));
            info.description = description(key) + names(key);
            if (key.type() == ConfigKey.Type.POOL_MODE) {
                info.choices = new String[PoolMode.values().length];
                for (PoolMode mode : PoolMode.values()) {
                    info.choices[mode.ordinal()] = mode.configName();
                }
            } else if (key.type() == ConfigKey.Type.BOOLEAN) {
                info.choices = BOOLEANS.clone();
            }
            out.add(info);
        }
        for (DriverProperty p : DriverProperty.values()) {
            Setting given = driver.get(p);
            DriverPropertyInfo info = new DriverPropertyInfo(p.propertyName(),
                    given != null ? given.text() : p.defaultText());
            info.description = p.description();
            out.add(info);
        }
        return out;
    }

    /** The default of the JDBC driver as text a URL accepts: sizes as numbers, durations with a unit. */
    static String defaultText(ConfigKey key) {
        Object value = key.defaultValue(ConfigKey.Profile.JDBC);
        if (value instanceof Duration) {
            long ms = ((Duration) value).toMillis();
            return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
        }
        if (value instanceof PoolMode) {
            return ((PoolMode) value).configName();
        }
        return String.valueOf(value);
    }

    static String description(ConfigKey key) {
        return switch (key) {
            case POOL_MODE -> "When a logical connection gives its server connection back: session (at close),"
                    + " transaction (when its transaction ends), statement (after every statement)";
            case DEFAULT_POOL_SIZE -> "Server connections the pool may open normally";
            case MIN_POOL_SIZE -> "Server connections kept open once the pool exists";
            case RESERVE_POOL_SIZE -> "Extra server connections, opened only when a client has waited"
                    + " reservePoolTimeout";
            case RESERVE_POOL_TIMEOUT -> "How long a client waits before the reserve pool may be used";
            case QUERY_WAIT_TIMEOUT -> "How long a logical connection waits for a server connection before"
                    + " failing; 0 waits without limit";
            case SERVER_IDLE_TIMEOUT -> "Idle server connections above minPoolSize are closed after this; 0 never";
            case SERVER_LIFETIME -> "A server connection older than this is closed when next idle; 0 never";
            case SERVER_CONNECT_TIMEOUT -> "Limit on opening and logging in one server connection";
            case SERVER_LOGIN_RETRY -> "After a failed login, how long its error is returned before the next"
                    + " attempt";
            case SERVER_CHECK_DELAY -> "A server connection idle longer than this is tested before reuse; 0 tests"
                    + " every time";
            case SERVER_CHECK_QUERY -> "SQL of that test; empty: an empty query";
            case SERVER_RESET_QUERY -> "Run on a server connection given back in session mode";
            case SERVER_RESET_QUERY_ALWAYS -> "Run serverResetQuery in every pool mode";
            case MAX_DB_CONNECTIONS -> "Server connections to the database; 0 unlimited (counted per pool:"
                    + " every URL and DataSource has a pool of its own)";
            case MAX_USER_CONNECTIONS -> "Server connections of the user; 0 unlimited (counted per pool)";
            case MAX_CLIENT_CONN -> "Logical connections open at once; 0 unlimited";
            case LEAK_DETECTION_THRESHOLD -> "A server connection held longer than this is logged with where it"
                    + " was taken; 0 off";
            case POOL_NAME -> "Name in logs, JMX and metrics; empty: database/user";
        };
    }

    private static String names(ConfigKey key) {
        StringBuilder b = new StringBuilder(" (also ").append(key.pgbouncerName());
        if (key.hikariName() != null && !key.hikariName().equals(key.camelName())) {
            b.append(", ").append(key.hikariName());
        }
        if (key.type() == ConfigKey.Type.DURATION) {
            b.append("; bare numbers are milliseconds, seconds under the snake_case name");
        }
        return b.append(')').toString();
    }
}
