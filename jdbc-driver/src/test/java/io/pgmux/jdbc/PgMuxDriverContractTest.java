package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.ConfigKey;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The java.sql.Driver contract, checked without a server: nothing here gets as far as opening a pool. */
class PgMuxDriverContractTest {

    private final PgMuxDriver driver = new PgMuxDriver();

    @Test
    void isListedForServiceLoading() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(Driver.class).stream().forEach(p -> names.add(p.type().getName()));
        assertTrue(names.contains(PgMuxDriver.class.getName()), names.toString());
    }

    @Test
    void isWhatDriverManagerPicksForPgmuxUrls() throws SQLException {
        assertInstanceOf(PgMuxDriver.class, DriverManager.getDriver("jdbc:pgmux:postgresql://db/app"));
        assertInstanceOf(org.postgresql.Driver.class, DriverManager.getDriver("jdbc:postgresql://db/app"));
    }

    @Test
    void canBeDeregisteredAndRegisteredAgain() throws SQLException {
        assertTrue(PgMuxDriver.isRegistered());
        PgMuxDriver.deregister();
        try {
            assertFalse(PgMuxDriver.isRegistered());
            assertThrows(SQLException.class, () -> DriverManager.getDriver("jdbc:pgmux:postgresql://db/app"));
        } finally {
            PgMuxDriver.register();
        }
        assertInstanceOf(PgMuxDriver.class, DriverManager.getDriver("jdbc:pgmux:postgresql://db/app"));
        assertThrows(IllegalStateException.class, PgMuxDriver::register);
    }

    @Test
    void acceptsOnlyItsOwnPrefix() throws SQLException {
        assertTrue(driver.acceptsURL("jdbc:pgmux:postgresql://db/app"));
        assertTrue(driver.acceptsURL("jdbc:pgmux:postgresql:app"));
        assertFalse(driver.acceptsURL("jdbc:postgresql://db/app"));
        assertFalse(driver.acceptsURL("jdbc:pgmux:mysql://db/app"));
        assertFalse(driver.acceptsURL("jdbc:pgmuxpostgresql://db/app"));
    }

    @Test
    void acceptsItsPrefixEvenWhenTheRestIsMalformedSoThatConnectCanSayWhy() throws SQLException {
        assertTrue(driver.acceptsURL("jdbc:pgmux:postgresql:/"));
        SQLException e = assertThrows(SQLException.class, () -> driver.connect("jdbc:pgmux:postgresql:/", null));
        assertEquals("08001", e.getSQLState());
    }

    @Test
    void returnsNullForUrlsThatAreNotItsOwn() throws SQLException {
        assertNull(driver.connect("jdbc:postgresql://db/app", new Properties()));
        assertNull(driver.connect("jdbc:h2:mem:x", null));
    }

    @Test
    void refusesANullUrl() {
        assertThrows(SQLException.class, () -> driver.connect(null, new Properties()));
        assertThrows(SQLException.class, () -> driver.acceptsURL(null));
    }

    @Test
    void reportsBadSettingsFromConnectWithTheirSqlState() {
        SQLException misspelt = assertThrows(SQLException.class,
                () -> DriverManager.getConnection("jdbc:pgmux:postgresql://127.0.0.1:1/app?maximumPoolSise=5"));
        assertEquals("08001", misspelt.getSQLState());
        assertTrue(misspelt.getMessage().contains("maximumPoolSize"), misspelt.getMessage());
        SQLException invalid = assertThrows(SQLException.class,
                () -> DriverManager.getConnection("jdbc:pgmux:postgresql://127.0.0.1:1/app?maximumPoolSize=abc"));
        assertEquals("22023", invalid.getSQLState());
        assertTrue(invalid.getMessage().contains("maximumPoolSize=abc"), invalid.getMessage());
        SQLException combination = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                "jdbc:pgmux:postgresql://127.0.0.1:1/app?minimumIdle=50&maximumPoolSize=10"));
        assertEquals("22023", combination.getSQLState());
        assertTrue(combination.getMessage().contains("minimumIdle=50"), combination.getMessage());
    }

    @Test
    void listsItsOwnPropertiesFirstThenPgjdbcs() throws SQLException {
        DriverPropertyInfo[] info = driver.getPropertyInfo("jdbc:pgmux:postgresql://db/app", new Properties());
        int own = ConfigKey.values().length + DriverProperty.values().length;
        assertEquals(ConfigKey.POOL_MODE.camelName(), info[0].name);
        assertEquals("transaction", info[0].value);
        assertEquals(List.of("session", "transaction", "statement"), Arrays.asList(info[0].choices));
        DriverProperty[] driverProperties = DriverProperty.values();
        assertEquals(driverProperties[driverProperties.length - 1].propertyName(), info[own - 1].name);
        List<String> rest = new ArrayList<>();
        for (int i = own; i < info.length; i++) {
            rest.add(info[i].name);
        }
        assertTrue(rest.contains("sslmode") && rest.contains("user") && rest.contains("PGDBNAME"), rest.toString());
        for (DriverPropertyInfo i : info) {
            assertTrue(i.description != null && !i.description.isBlank(), i.name);
        }
    }

    @Test
    void describesEachPoolPropertyWithItsOtherNamesAndDefault() throws SQLException {
        DriverPropertyInfo size = find(driver.getPropertyInfo("jdbc:pgmux:postgresql://db/app", null),
                "defaultPoolSize");
        assertEquals("20", size.value);
        assertTrue(size.description.contains("default_pool_size") && size.description.contains("maximumPoolSize"),
                size.description);
        DriverPropertyInfo wait = find(driver.getPropertyInfo("jdbc:pgmux:postgresql://db/app", null),
                "queryWaitTimeout");
        assertEquals("30s", wait.value);
    }

    @Test
    void showsTheValuesGivenInTheUrlAndProperties() throws SQLException {
        Properties given = new Properties();
        given.setProperty("poolMode", "session");
        DriverPropertyInfo[] info = driver.getPropertyInfo(
                "jdbc:pgmux:postgresql://db/app?maximumPoolSize=7&sslmode=require", given);
        assertEquals("7", find(info, "defaultPoolSize").value);
        assertEquals("session", find(info, "poolMode").value);
        assertEquals("require", find(info, "sslmode").value);
    }

    @Test
    void answersVersionComplianceAndLogger() {
        assertEquals(PgMuxDriver.MAJOR_VERSION, driver.getMajorVersion());
        assertEquals(PgMuxDriver.MINOR_VERSION, driver.getMinorVersion());
        assertFalse(driver.jdbcCompliant());
        assertThrows(SQLFeatureNotSupportedException.class, driver::getParentLogger);
    }

    private static DriverPropertyInfo find(DriverPropertyInfo[] info, String name) {
        for (DriverPropertyInfo i : info) {
            if (i.name.equals(name)) {
                return i;
            }
        }
        throw new AssertionError(name + " not listed");
    }
}
