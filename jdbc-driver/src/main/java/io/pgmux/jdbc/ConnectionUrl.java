package io.pgmux.jdbc;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.UnknownSetting;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.jdbc.credentials.CredentialsProvider;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import io.pgmux.jdbc.pool.ReadRouting;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * A connection request taken apart: the pgjdbc URL that server connections are opened with (the pool
 * properties taken off its query, everything else left as written), the pgjdbc properties given beside
 * it, and the pool and driver settings, each under the name it was written with. A property written in
 * the URL wins over the same one in the {@code Properties}, as in pgjdbc.
 */
final class ConnectionUrl {
    static final String PGMUX_PREFIX = "jdbc:pgmux:postgresql:";
    static final String PGJDBC_PREFIX = "jdbc:postgresql:";
    /** SQLSTATE sqlclient_unable_to_establish_sqlconnection: the URL or its properties are unusable. */
    static final String URL_ERROR = "08001";
    /** SQLSTATE invalid_parameter_value: a setting's value is unusable. */
    static final String VALUE_ERROR = "22023";

    private final String targetUrl;
    private final Properties driverProperties;
    private final Map<ConfigKey, Setting> poolSettings;
    private final Map<DriverProperty, Setting> driverSettings;
    private final String database;
    private final String user;

    private ConnectionUrl(String targetUrl, Properties driverProperties, Map<ConfigKey, Setting> poolSettings,
                          Map<DriverProperty, Setting> driverSettings, String database, String user) {
        this.targetUrl = targetUrl;
        this.driverProperties = driverProperties;
        this.poolSettings = Collections.unmodifiableMap(poolSettings);
        this.driverSettings = Collections.unmodifiableMap(driverSettings);
        this.database = database;
        this.user = user;
    }

    /**
     * Parses {@code jdbc:pgmux:postgresql:…} or {@code jdbc:postgresql:…} with the properties given
     * beside it, in every form pgjdbc accepts ({@code //host[:port][,host2[:port2]…]/database?…},
     * {@code database}, {@code //host/} and so on).
     *
     * @throws SQLException 08001 for a malformed URL, a non-string property value, or a name that is
     *                      neither pgjdbc's nor a pool setting's but close to one (a likely misspelling)
     */
    static ConnectionUrl parse(String url, Properties info) throws SQLException {
        if (url == null) {
            throw new SQLNonTransientConnectionException("the URL is null", URL_ERROR);
        }
        String pgjdbcUrl;
        if (url.startsWith(PGMUX_PREFIX)) {
            pgjdbcUrl = PGJDBC_PREFIX + url.substring(PGMUX_PREFIX.length());
        } else if (url.startsWith(PGJDBC_PREFIX)) {
            pgjdbcUrl = url;
        } else {
            throw new SQLNonTransientConnectionException("not a PostgreSQL URL: " + masked(url)
                    + "; expected jdbc:pgmux:postgresql://host[:port]/database or jdbc:postgresql://…", URL_ERROR);
        }
        Map<ConfigKey, Setting> pool = new EnumMap<>(ConfigKey.class);
        Map<DriverProperty, Setting> driver = new EnumMap<>(DriverProperty.class);
        Properties pgjdbc = new Properties();
        if (info != null) {
            for (Map.Entry<Object, Object> e : info.entrySet()) {
                if (!(e.getKey() instanceof String) || !(e.getValue() instanceof String)) {
                    throw new SQLNonTransientConnectionException("property " + e.getKey() + " has a value of type "
                            + e.getValue().getClass().getName() + "; connection properties must be strings",
                            URL_ERROR);
                }
            }
            // Sorted, so that two names of one setting resolve the same way on every run.
            for (String name : new TreeSet<>(info.stringPropertyNames())) {
                String value = info.getProperty(name);
                if (!take(name, value, pool, driver)) {
                    pgjdbc.setProperty(name, value);
                }
            }
        }
        String target = takeFromQuery(pgjdbcUrl, pool, driver);
        Properties parsed = Driver.parseURL(target, pgjdbc);
        if (parsed == null) {
            throw new SQLNonTransientConnectionException("malformed URL: " + masked(url)
                    + "; expected jdbc:pgmux:postgresql://host[:port][,host2[:port2]…]/database[?property=value&…]",
                    URL_ERROR);
        }
        // pgjdbc's defaults: the OS user when none is given, and a database named after the user.
        String user = parsed.getProperty("user");
        if (user == null || user.isEmpty()) {
            user = System.getProperty("user.name", "");
        }
        String database = parsed.getProperty("PGDBNAME");
        if (database == null || database.isEmpty()) {
            database = user;
        }
        return new ConnectionUrl(target, pgjdbc, pool, driver, database, user);
    }

    /** Takes pool and driver settings off the query; the rest of the URL stays byte for byte as written. */
    private static String takeFromQuery(String url, Map<ConfigKey, Setting> pool, Map<DriverProperty, Setting> driver)
            throws SQLException {
        return withoutTaken(url, (name, value) -> {
            if (value != null) {
                return take(name, value, pool, driver);
            }
            if (isPoolOrDriverSetting(name)) {
                throw new SQLNonTransientConnectionException("malformed percent-encoding in the value of " + name
                        + " in the URL", URL_ERROR);
            }
            return false;
        });
    }

    /** Decides whether a query parameter leaves the URL; {@code value} is null when its encoding is malformed. */
    @FunctionalInterface
    private interface QueryTaker {
        boolean take(String name, String value) throws SQLException;
    }

    /**
     * The URL without the query parameters {@code taker} takes; the others stay byte for byte as written, and a
     * parameter whose name cannot be decoded always stays.
     */
    private static String withoutTaken(String url, QueryTaker taker) throws SQLException {
        int q = url.indexOf('?');
        if (q < 0) {
            return url;
        }
        List<String> kept = new ArrayList<>();
        for (String token : url.substring(q + 1).split("&", -1)) {
            int eq = token.indexOf('=');
            String name = decode(eq < 0 ? token : token.substring(0, eq));
            if (name == null || !taker.take(name, eq < 0 ? "" : decode(token.substring(eq + 1)))) {
                kept.add(token);
            }
        }
        String base = url.substring(0, q);
        return kept.isEmpty() ? base : base + "?" + String.join("&", kept);
    }

    /** Files a property under pool or driver settings; false if it belongs to pgjdbc. */
    private static boolean take(String name, String value, Map<ConfigKey, Setting> pool,
                                Map<DriverProperty, Setting> driver) throws SQLException {
        ConfigKey key = ConfigKey.lookup(name);
        if (key != null) {
            pool.put(key, new Setting(name, value));
            return true;
        }
        DriverProperty property = DriverProperty.lookup(name);
        if (property != null) {
            driver.put(property, new Setting(name, value));
            return true;
        }
        // pgjdbc ignores names it does not know, so a misspelt pool setting would silently keep its default.
        if (PGProperty.forName(name) == null) {
            String nearest = ConfigKey.nearestName(name);
            if (nearest != null) {
                throw new SQLNonTransientConnectionException(UnknownSetting.message("property", name, nearest)
                        + " (neither pgjdbc nor pgmux knows '" + name + "')", URL_ERROR);
            }
        }
        return false;
    }

    private static boolean isPoolOrDriverSetting(String name) {
        return ConfigKey.lookup(name) != null || DriverProperty.lookup(name) != null;
    }

    /** Decodes as pgjdbc does (URLDecoder, UTF-8); null when the text is not valid percent-encoding. */
    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The URL with password values hidden, for error messages. */
    static String masked(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    /** The {@code jdbc:postgresql:} URL server connections are opened with. */
    String targetUrl() {
        return targetUrl;
    }

    /** The pgjdbc properties given beside the URL (user and password among them), pool settings taken off. */
    Properties driverProperties() {
        return (Properties) driverProperties.clone();
    }

    Map<ConfigKey, Setting> poolSettings() {
        return poolSettings;
    }

    Map<DriverProperty, Setting> driverSettings() {
        return driverSettings;
    }

    /** The database as pgjdbc will connect to it. */
    String database() {
        return database;
    }

    /** The user as pgjdbc will log in. */
    String user() {
        return user;
    }

    /** The JDBC driver's defaults with the pool settings of this request applied. */
    PoolConfig.Builder poolConfig() throws SQLException {
        PoolConfig.Builder builder = PoolConfig.jdbcDefaults();
        for (Setting s : poolSettings.values()) {
            apply(builder, s);
        }
        return builder;
    }

    /** Applies one setting, reporting a bad value as SQLSTATE 22023. */
    static void apply(PoolConfig.Builder builder, Setting setting) throws SQLException {
        try {
            builder.set(setting.name(), setting.text());
        } catch (ConfigException e) {
            throw valueError(e);
        }
    }

    /** Validates the settings together, reporting a bad combination as SQLSTATE 22023. */
    static PoolConfig build(PoolConfig.Builder builder) throws SQLException {
        try {
            return builder.build();
        } catch (ConfigException e) {
            throw valueError(e);
        }
    }

    /** The typed driver settings of this request. */
    Map<DriverProperty, Object> driverValues() throws SQLException {
        Map<DriverProperty, Object> values = new EnumMap<>(DriverProperty.class);
        for (Map.Entry<DriverProperty, Setting> e : driverSettings.entrySet()) {
            try {
                values.put(e.getKey(), e.getKey().parse(e.getValue().name(), e.getValue().text()));
            } catch (ConfigException ex) {
                throw valueError(ex);
            }
        }
        return values;
    }

    /** Everything a pool for this request is built from; the caller adds what only it knows. */
    JdbcPoolSettings.Builder poolSettings(PoolConfig config, Map<DriverProperty, Object> values) throws SQLException {
        return poolSettings(config, values, null);
    }

    /**
     * As {@link #poolSettings(PoolConfig, Map)}, with the DataSource's credentialsProvider object. With a
     * credentials provider, a user and password written in the URL move to the properties: pgjdbc lets the URL's
     * win, and the provider's answer must win over them (what it leaves null falls back to them).
     *
     * @throws SQLException 22023 when the credential settings contradict each other
     */
    JdbcPoolSettings.Builder poolSettings(PoolConfig config, Map<DriverProperty, Object> values,
                                          CredentialsProvider given) throws SQLException {
        CredentialsProvider credentials = CredentialSources.provider(given, values,
                Duration.ofNanos(config.serverConnectTimeoutNanos()));
        String url = targetUrl;
        Properties properties = driverProperties();
        if (credentials != null) {
            url = credentialsMovedToProperties(targetUrl, properties);
        }
        JdbcPoolSettings.Builder settings = JdbcPoolSettings.builder();
        fleet(settings, values);
        return settings
                .targetUrl(url)
                .driverProperties(properties)
                .credentialsProvider(credentials)
                .poolKey(database, user)
                .poolConfig(config)
                .connectionInitSql((String) values.get(DriverProperty.CONNECTION_INIT_SQL))
                .autoCommit((Boolean) values.get(DriverProperty.AUTO_COMMIT))
                .readOnly((Boolean) values.get(DriverProperty.READ_ONLY))
                .transactionIsolation((Integer) values.get(DriverProperty.TRANSACTION_ISOLATION))
                .registerMbeans(Boolean.TRUE.equals(values.get(DriverProperty.REGISTER_MBEANS)))
                .idleTransactionTimeout((Duration) values.get(DriverProperty.IDLE_TRANSACTION_TIMEOUT))
                .readRouting((ReadRouting) values.get(DriverProperty.READ_ROUTING))
                .replicaCheckPeriod((Duration) values.get(DriverProperty.REPLICA_CHECK_PERIOD))
                .readYourWrites((Boolean) values.get(DriverProperty.READ_YOUR_WRITES))
                .replicaWaitTimeout((Duration) values.get(DriverProperty.REPLICA_WAIT_TIMEOUT))
                .replicaMaxLag((Duration) values.get(DriverProperty.REPLICA_MAX_LAG));
    }

    /** fleet and fleetMaxServers, which go together. */
    private static void fleet(JdbcPoolSettings.Builder settings, Map<DriverProperty, Object> values)
            throws SQLException {
        String fleet = (String) values.get(DriverProperty.FLEET);
        Long max = (Long) values.get(DriverProperty.FLEET_MAX_SERVERS);
        if (fleet != null && fleet.isBlank()) {
            fleet = null;
        }
        if (fleet == null && max == null) {
            return;
        }
        if (fleet == null) {
            throw new SQLDataException("fleetMaxServers=" + max + " needs fleet, the name of the fleet", VALUE_ERROR);
        }
        if (max == null || max < 1 || max > Integer.MAX_VALUE) {
            throw new SQLDataException("fleet=" + fleet + (max == null ? " needs fleetMaxServers, the server"
                    + " connections the fleet's pools hold together" : ": fleetMaxServers=" + max
                    + " must be at least 1"), VALUE_ERROR);
        }
        settings.fleet(fleet, max.intValue());
    }

    /** The URL without its user and password, which are put into {@code properties}, as pgjdbc reads them. */
    private static String credentialsMovedToProperties(String url, Properties properties) throws SQLException {
        return withoutTaken(url, (name, value) -> {
            if (value != null && ("user".equals(name) || "password".equals(name))) {
                properties.setProperty(name, value);
                return true;
            }
            return false;
        });
    }

    static SQLException valueError(ConfigException e) {
        return new SQLDataException(e.getMessage(), VALUE_ERROR, e);
    }

    @Override
    public String toString() {
        return "ConnectionUrl[" + masked(targetUrl) + ", pool " + poolSettings.values() + ", driver "
                + driverSettings.values() + "]";
    }
}
