package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** How a driver URL and its Properties are split into the pgjdbc target and the pool's settings. */
class ConnectionUrlTest {

    private static ConnectionUrl parse(String url) throws SQLException {
        return ConnectionUrl.parse(url, new Properties());
    }

    private static Properties props(String... nameValues) {
        Properties p = new Properties();
        for (int i = 0; i < nameValues.length; i += 2) {
            p.setProperty(nameValues[i], nameValues[i + 1]);
        }
        return p;
    }

    private static PoolConfig config(ConnectionUrl url) throws SQLException {
        return ConnectionUrl.build(url.poolConfig());
    }

    @Test
    void stripsThePgmuxPrefixToGetThePgjdbcUrl() throws SQLException {
        assertEquals("jdbc:postgresql://db.example:5433/app", parse("jdbc:pgmux:postgresql://db.example:5433/app")
                .targetUrl());
    }

    @Test
    void acceptsAPlainPgjdbcUrlAsItIs() throws SQLException {
        assertEquals("jdbc:postgresql://db/app?ssl=true", parse("jdbc:postgresql://db/app?ssl=true").targetUrl());
    }

    @Test
    void keepsEveryHostOfAMultiHostUrl() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://n1:5433,n2,n3:6000/app?targetServerType=primary");
        assertEquals("jdbc:postgresql://n1:5433,n2,n3:6000/app?targetServerType=primary", url.targetUrl());
        assertEquals("app", url.database());
    }

    @Test
    void acceptsAHostWithoutPort() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?user=alice");
        assertEquals("jdbc:postgresql://db/app?user=alice", url.targetUrl());
        assertEquals("app", url.database());
        assertEquals("alice", url.user());
    }

    @Test
    void acceptsIpv6LiteralsWithAndWithoutPort() throws SQLException {
        assertEquals("jdbc:postgresql://[::1]:5432/app", parse("jdbc:pgmux:postgresql://[::1]:5432/app").targetUrl());
        assertEquals("app", parse("jdbc:pgmux:postgresql://[::1]/app?maximumPoolSize=3").database());
        assertEquals("jdbc:postgresql://[::1]/app", parse("jdbc:pgmux:postgresql://[::1]/app?maximumPoolSize=3")
                .targetUrl());
    }

    @Test
    void acceptsTheDatabaseOnlyForm() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql:app?poolMode=session&user=bob");
        assertEquals("jdbc:postgresql:app?user=bob", url.targetUrl());
        assertEquals("app", url.database());
        assertEquals(PoolMode.SESSION, config(url).poolMode());
    }

    @Test
    void defaultsTheDatabaseToTheUserAsPgjdbcDoes() throws SQLException {
        ConnectionUrl url = ConnectionUrl.parse("jdbc:pgmux:postgresql://db/", props("user", "carol"));
        assertEquals("carol", url.database());
        assertEquals("carol", url.user());
    }

    @Test
    void defaultsTheUserToTheOperatingSystemUserAsPgjdbcDoes() throws SQLException {
        assertEquals(System.getProperty("user.name"), parse("jdbc:pgmux:postgresql://db/app").user());
    }

    @Test
    void refusesUrlsPgjdbcRefuses() {
        for (String bad : new String[] {"jdbc:pgmux:postgresql:/", "jdbc:pgmux:postgresql://db:port/app",
                "jdbc:pgmux:postgresql://db:99999/app", "jdbc:pgmux:postgresql://db/app?ssl=%zz",
                "jdbc:pgmux:postgresql://db"}) {
            SQLException e = assertThrows(SQLException.class, () -> parse(bad), bad);
            assertEquals("08001", e.getSQLState(), bad);
            assertTrue(e.getMessage().startsWith("malformed URL"), e.getMessage());
        }
    }

    @Test
    void refusesUrlsOfOtherDatabases() {
        SQLException e = assertThrows(SQLException.class, () -> parse("jdbc:mysql://db/app"));
        assertEquals("08001", e.getSQLState());
    }

    @Test
    void hidesPasswordsInErrorMessages() {
        SQLException e = assertThrows(SQLException.class,
                () -> parse("jdbc:pgmux:postgresql://db:port/app?password=s3cret&user=u"));
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(e.getMessage().contains("password=***"), e.getMessage());
    }

    @Test
    void takesPoolPropertiesOffTheQueryAndLeavesTheRestAsWritten() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?ApplicationName=my%20app&maximumPoolSize=7"
                + "&sslmode=disable&pool_mode=statement");
        assertEquals("jdbc:postgresql://db/app?ApplicationName=my%20app&sslmode=disable", url.targetUrl());
        assertEquals(7, config(url).defaultPoolSize());
        assertEquals(PoolMode.STATEMENT, config(url).poolMode());
    }

    @Test
    void dropsTheQuestionMarkWhenOnlyPoolPropertiesWereThere() throws SQLException {
        assertEquals("jdbc:postgresql://db/app", parse("jdbc:pgmux:postgresql://db/app?poolMode=session").targetUrl());
    }

    @Test
    void understandsPgmuxPgbouncerAndHikariNames() throws SQLException {
        PoolConfig c = config(parse("jdbc:pgmux:postgresql://db/app?defaultPoolSize=4&min_pool_size=2"
                + "&connectionTimeout=1500&server_idle_timeout=90&maxLifetime=600000&reservePoolSize=1"));
        assertEquals(4, c.defaultPoolSize());
        assertEquals(2, c.minPoolSize());
        assertEquals(Duration.ofMillis(1500).toNanos(), c.queryWaitTimeoutNanos());
        assertEquals(Duration.ofSeconds(90).toNanos(), c.serverIdleTimeoutNanos());
        assertEquals(Duration.ofMinutes(10).toNanos(), c.serverLifetimeNanos());
        assertEquals(1, c.reservePoolSize());
    }

    @Test
    void readsBareDurationsAsMillisecondsUnderCamelCaseAndSecondsUnderSnakeCase() throws SQLException {
        assertEquals(Duration.ofMillis(10).toNanos(),
                config(parse("jdbc:pgmux:postgresql://db/app?serverIdleTimeout=10")).serverIdleTimeoutNanos());
        assertEquals(Duration.ofSeconds(10).toNanos(),
                config(parse("jdbc:pgmux:postgresql://db/app?server_idle_timeout=10")).serverIdleTimeoutNanos());
        assertEquals(Duration.ofSeconds(10).toNanos(),
                config(parse("jdbc:pgmux:postgresql://db/app?idleTimeout=10s")).serverIdleTimeoutNanos());
    }

    @Test
    void decodesPercentEncodedPoolValues() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?connectionInitSql=SET%20statement_timeout%20%3D"
                + "%20%2712s%27&poolName=orders%26billing");
        assertEquals("SET statement_timeout = '12s'", url.driverValues().get(DriverProperty.CONNECTION_INIT_SQL));
        assertEquals("orders&billing", config(url).poolName());
        assertEquals("jdbc:postgresql://db/app", url.targetUrl());
    }

    @Test
    void readsIdleTransactionTimeoutInMillisecondsUnderItsNameAndInSecondsUnderPgbouncers() throws SQLException {
        assertEquals(Duration.ofMillis(500), parse("jdbc:pgmux:postgresql://db/app?idleTransactionTimeout=500")
                .driverValues().get(DriverProperty.IDLE_TRANSACTION_TIMEOUT));
        assertEquals(Duration.ofSeconds(2), parse("jdbc:pgmux:postgresql://db/app?idle_transaction_timeout=2")
                .driverValues().get(DriverProperty.IDLE_TRANSACTION_TIMEOUT));
        SQLException e = assertThrows(SQLException.class,
                () -> parse("jdbc:pgmux:postgresql://db/app?idleTransactionTimeout=-1").driverValues());
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("idleTransactionTimeout=-1"), e.getMessage());
    }

    @Test
    void recognisesPercentEncodedPoolPropertyNames() throws SQLException {
        assertEquals(5, config(parse("jdbc:pgmux:postgresql://db/app?maximum%50oolSize=5")).defaultPoolSize());
    }

    @Test
    void takesPoolPropertiesOffTheProperties() throws SQLException {
        ConnectionUrl url = ConnectionUrl.parse("jdbc:pgmux:postgresql://db/app",
                props("maximumPoolSize", "3", "poolMode", "session", "autoCommit", "false", "prepareThreshold", "0"));
        assertEquals(3, config(url).defaultPoolSize());
        assertEquals(PoolMode.SESSION, config(url).poolMode());
        assertEquals(Boolean.FALSE, url.driverValues().get(DriverProperty.AUTO_COMMIT));
        assertEquals(props("prepareThreshold", "0"), url.driverProperties());
    }

    @Test
    void passesUserPasswordAndOtherPgjdbcPropertiesToPgjdbcUntouched() throws SQLException {
        Properties given = props("user", "alice", "password", "p&ss=word", "sslmode", "disable",
                "ApplicationName", "billing");
        ConnectionUrl url = ConnectionUrl.parse("jdbc:pgmux:postgresql://db/app", given);
        assertEquals(given, url.driverProperties());
        assertEquals("alice", url.user());
    }

    @Test
    void letsTheUrlWinOverThePropertiesAsPgjdbcDoes() throws SQLException {
        ConnectionUrl url = ConnectionUrl.parse("jdbc:pgmux:postgresql://db/app?maximumPoolSize=9&user=fromurl",
                props("default_pool_size", "2", "user", "fromprops"));
        assertEquals(9, config(url).defaultPoolSize());
        assertEquals("fromurl", url.user());
    }

    @Test
    void letsTheLastOfRepeatedUrlPropertiesWin() throws SQLException {
        assertEquals(6, config(parse("jdbc:pgmux:postgresql://db/app?maximumPoolSize=2&default_pool_size=6"))
                .defaultPoolSize());
    }

    @Test
    void readsPropertyDefaultsLikePgjdbc() throws SQLException {
        Properties defaults = props("maximumPoolSize", "4");
        Properties given = new Properties(defaults);
        given.setProperty("user", "dora");
        ConnectionUrl url = ConnectionUrl.parse("jdbc:pgmux:postgresql://db/app", given);
        assertEquals(4, config(url).defaultPoolSize());
        assertEquals("dora", url.driverProperties().getProperty("user"));
    }

    @Test
    void takesReadOnlyFromPgjdbcSoThatSetReadOnlyKeepsWorking() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?readOnly=true&readOnlyMode=always");
        assertEquals(Boolean.TRUE, url.driverValues().get(DriverProperty.READ_ONLY));
        assertEquals("jdbc:postgresql://db/app?readOnlyMode=always", url.targetUrl());
    }

    @Test
    void readsTransactionIsolationByNameOrNumber() throws SQLException {
        assertEquals(Connection.TRANSACTION_REPEATABLE_READ, parse("jdbc:pgmux:postgresql://db/app"
                + "?transactionIsolation=TRANSACTION_REPEATABLE_READ").driverValues()
                .get(DriverProperty.TRANSACTION_ISOLATION));
        assertEquals(Connection.TRANSACTION_SERIALIZABLE, parse("jdbc:pgmux:postgresql://db/app"
                + "?transactionIsolation=8").driverValues().get(DriverProperty.TRANSACTION_ISOLATION));
        assertEquals(Connection.TRANSACTION_READ_COMMITTED, parse("jdbc:pgmux:postgresql://db/app"
                + "?transactionIsolation=read%20committed").driverValues().get(DriverProperty.TRANSACTION_ISOLATION));
    }

    @Test
    void refusesAMisspeltPoolPropertyNamingTheLikelyOne() {
        SQLException e = assertThrows(SQLException.class,
                () -> parse("jdbc:pgmux:postgresql://db/app?maximumPoolSise=5"));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("'maximumPoolSise'"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean 'maximumPoolSize'"), e.getMessage());
    }

    @Test
    void refusesAMisspeltPoolPropertyInThePropertiesToo() {
        SQLException e = assertThrows(SQLException.class,
                () -> ConnectionUrl.parse("jdbc:pgmux:postgresql://db/app", props("idle_timout", "5")));
        assertTrue(e.getMessage().contains("did you mean 'idleTimeout'")
                || e.getMessage().contains("did you mean 'server_idle_timeout'"), e.getMessage());
    }

    @Test
    void passesPgjdbcPropertiesThatLookLikePoolSettingsToPgjdbc() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?sslmode=disable&connectTimeout=3");
        assertEquals("jdbc:postgresql://db/app?sslmode=disable&connectTimeout=3", url.targetUrl());
    }

    @Test
    void passesNamesFarFromAnyPoolSettingToPgjdbcWhichIgnoresThem() throws SQLException {
        assertEquals("jdbc:postgresql://db/app?frobnicate=1", parse("jdbc:pgmux:postgresql://db/app?frobnicate=1")
                .targetUrl());
    }

    @Test
    void refusesANonNumericPoolSizeNamingTheProperty() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?maximumPoolSize=abc");
        SQLException e = assertThrows(SQLException.class, () -> config(url));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().startsWith("maximumPoolSize=abc"), e.getMessage());
    }

    /** Every numeric pool setting, under each of its names, and every numeric driver setting. */
    static java.util.stream.Stream<String> numericSettingNames() {
        java.util.stream.Stream.Builder<String> names = java.util.stream.Stream.builder();
        for (ConfigKey key : ConfigKey.values()) {
            if (key.type() == ConfigKey.Type.INT || key.type() == ConfigKey.Type.DURATION) {
                names.add(key.camelName());
                names.add(key.pgbouncerName());
                if (key.hikariName() != null) {
                    names.add(key.hikariName());
                }
            }
        }
        names.add("initializationFailTimeout");
        names.add("idleTransactionTimeout");
        names.add("idle_transaction_timeout");
        return names.build();
    }

    @ParameterizedTest
    @MethodSource("numericSettingNames")
    void refusesANumberTooLargeForAnySettingNamingIt(String name) throws SQLException {
        String text = "999999999999999999999";
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?" + name + "=" + text);
        SQLException e = assertThrows(SQLException.class, () -> {
            config(url);
            url.driverValues();
        });
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().startsWith(name + "=" + text + ": "), e.getMessage());
    }

    @Test
    void refusesAMinimumAboveTheMaximumNamingBoth() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?minimumIdle=50&maximumPoolSize=10");
        SQLException e = assertThrows(SQLException.class, () -> config(url));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("minimumIdle=50") && e.getMessage().contains("maximumPoolSize=10"),
                e.getMessage());
    }

    @Test
    void refusesAnUnknownPoolMode() throws SQLException {
        SQLException e = assertThrows(SQLException.class,
                () -> config(parse("jdbc:pgmux:postgresql://db/app?pool_mode=sessions")));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("pool_mode=sessions"), e.getMessage());
    }

    @Test
    void refusesAnInvalidDriverSettingNamingIt() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?autoCommit=maybe");
        SQLException e = assertThrows(SQLException.class, url::driverValues);
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().startsWith("autoCommit=maybe"), e.getMessage());
        SQLException isolation = assertThrows(SQLException.class,
                () -> parse("jdbc:pgmux:postgresql://db/app?transactionIsolation=TRANSACTION_NONE").driverValues());
        assertTrue(isolation.getMessage().startsWith("transactionIsolation=TRANSACTION_NONE"),
                isolation.getMessage());
    }

    @Test
    void refusesMalformedPercentEncodingInAPoolValue() {
        SQLException e = assertThrows(SQLException.class,
                () -> parse("jdbc:pgmux:postgresql://db/app?connectionInitSql=SET%2"));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("connectionInitSql"), e.getMessage());
    }

    @Test
    void refusesNonStringPropertyValuesAsPgjdbcDoes() {
        Properties given = new Properties();
        given.put("maximumPoolSize", 5);
        SQLException e = assertThrows(SQLException.class,
                () -> ConnectionUrl.parse("jdbc:pgmux:postgresql://db/app", given));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("maximumPoolSize"), e.getMessage());
    }

    @Test
    void keepsEachSettingUnderTheNameItWasWritten() throws SQLException {
        ConnectionUrl url = parse("jdbc:pgmux:postgresql://db/app?query_wait_timeout=5");
        assertEquals(Map.of(ConfigKey.QUERY_WAIT_TIMEOUT, new Setting("query_wait_timeout", "5")), url.poolSettings());
        assertNull(url.driverSettings().get(DriverProperty.AUTO_COMMIT));
    }
}
