package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.PoolStats;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** PgMuxDataSource as a JavaBean, before it starts: HikariCP's names, values and properties files. */
class PgMuxDataSourceConfigTest {

    /** A tracker factory a properties file can name by class. */
    public static final class NoMetrics implements MetricsTrackerFactory {
        @Override
        public IMetricsTracker create(String poolName, PoolStats poolStats) {
            return new IMetricsTracker() {
            };
        }
    }

    @Test
    void startsWithTheJdbcDriversDefaults() {
        PgMuxDataSource ds = new PgMuxDataSource();
        assertEquals(PoolMode.TRANSACTION, ds.getPoolMode());
        assertEquals(20, ds.getMaximumPoolSize());
        assertEquals(0, ds.getMinimumIdle());
        assertEquals(30_000, ds.getConnectionTimeout());
        assertEquals(600_000, ds.getIdleTimeout());
        assertEquals(3_600_000, ds.getMaxLifetime());
        assertEquals(0, ds.getLeakDetectionThreshold());
        assertEquals(1, ds.getInitializationFailTimeout());
        assertTrue(ds.isAutoCommit());
        assertFalse(ds.isReadOnly());
        assertNull(ds.getPoolName());
        assertNull(ds.getConnectionTestQuery());
        assertFalse(ds.isRunning());
        assertFalse(ds.isClosed());
        assertNull(ds.getPoolMXBean());
    }

    @Test
    void startsWithTheDriverPropertiesDefaults() {
        PgMuxDataSource ds = new PgMuxDataSource();
        assertFalse(ds.isRegisterMbeans());
        assertEquals(0, ds.getIdleTransactionTimeout());
        assertEquals("off", ds.getReadRouting());
        assertEquals(1000, ds.getReplicaCheckPeriod());
        assertTrue(ds.isReadYourWrites());
        assertEquals(100, ds.getReplicaWaitTimeout());
        assertEquals(0, ds.getReplicaMaxLag());
        assertEquals(0, ds.getPasswordCommandCacheTime());
        assertNull(ds.getFleet());
        assertEquals(0, ds.getFleetMaxServers());
    }

    @Test
    void keepsHikariTimesInMilliseconds() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setConnectionTimeout(2_500);
        ds.setIdleTimeout(45_000);
        ds.setMaxLifetime(900_000);
        ds.setKeepaliveTime(60_000);
        ds.setLeakDetectionThreshold(5_000);
        ds.setReservePoolTimeout(750);
        assertEquals(2_500, ds.getConnectionTimeout());
        assertEquals(45_000, ds.getIdleTimeout());
        assertEquals(900_000, ds.getMaxLifetime());
        assertEquals(60_000, ds.getKeepaliveTime());
        assertEquals(5_000, ds.getLeakDetectionThreshold());
        assertEquals(750, ds.getReservePoolTimeout());
    }

    @Test
    void refusesAnInvalidValueAtOnceNamingTheProperty() {
        PgMuxDataSource ds = new PgMuxDataSource();
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class, () -> ds.setMaximumPoolSize(0));
        assertTrue(size.getMessage().startsWith("maximumPoolSize=0"), size.getMessage());
        IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class,
                () -> ds.setConnectionTimeout(-1));
        assertTrue(timeout.getMessage().startsWith("connectionTimeout"), timeout.getMessage());
        assertEquals(20, ds.getMaximumPoolSize());
    }

    @Test
    void refusesANegativeTimeShowingTheMillisecondsGiven() {
        PgMuxDataSource ds = new PgMuxDataSource();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ds.setIdleTimeout(-1));
        assertEquals("idleTimeout=-1: must not be negative (0 disables it)", e.getMessage());
    }

    @Test
    void checksTheMinimumAgainstTheMaximumOnlyAtStartSoSetterOrderDoesNotMatter() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setMinimumIdle(40);
        ds.setMaximumPoolSize(50);
        assertEquals(40, ds.getMinimumIdle());
    }

    @Test
    void reportsAMinimumAboveTheMaximumWhenItStarts() {
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/app");
            ds.setMinimumIdle(50);
            ds.setMaximumPoolSize(10);
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("minimumIdle=50") && e.getMessage().contains("maximumPoolSize=10"),
                    e.getMessage());
            ds.setMaximumPoolSize(60);
        }
    }

    @Test
    void readsTransactionIsolationAsHikariDoes() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        assertEquals("TRANSACTION_SERIALIZABLE", ds.getTransactionIsolation());
        ds.setTransactionIsolation("4");
        assertEquals("4", ds.getTransactionIsolation());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ds.setTransactionIsolation("TRANSACTION_SNAPSHOT"));
        assertTrue(e.getMessage().startsWith("transactionIsolation=TRANSACTION_SNAPSHOT"), e.getMessage());
    }

    @Test
    void acceptsOnlyPostgresqlDriverClassNames() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setDriverClassName("org.postgresql.Driver");
        ds.setDriverClassName("io.pgmux.jdbc.PgMuxDriver");
        ds.setDriverClassName(null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ds.setDriverClassName("com.mysql.cj.jdbc.Driver"));
        assertTrue(e.getMessage().contains("com.mysql.cj.jdbc.Driver"), e.getMessage());
    }

    @Test
    void refusesHikariSettingsItCannotHonourSayingWhatToUseInstead() {
        PgMuxDataSource ds = new PgMuxDataSource();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ds.setDataSourceClassName("org.postgresql.ds.PGSimpleDataSource"));
        assertTrue(e.getMessage().contains("jdbcUrl"), e.getMessage());
        IllegalArgumentException registry = assertThrows(IllegalArgumentException.class,
                () -> ds.setMetricRegistry(new Object()));
        assertTrue(registry.getMessage().contains("MeterRegistry"), registry.getMessage());
        ds.setDataSourceClassName(null);
    }

    @Test
    void refusesPerCallCredentialsAsHikariDoes() {
        PgMuxDataSource ds = new PgMuxDataSource();
        assertThrows(SQLFeatureNotSupportedException.class, () -> ds.getConnection("someone", "secret"));
    }

    @Test
    void needsAJdbcUrlToStart() {
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("08001", e.getSQLState());
            assertTrue(e.getMessage().contains("jdbcUrl"), e.getMessage());
        }
    }

    @Test
    void refusesAJdbcUrlOfAnotherDatabase() {
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl("jdbc:mysql://db/app");
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("08001", e.getSQLState());
        }
    }

    @Test
    void answersToUrlAsSpringBootsDataSourceBuilderCallsIt() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setUrl("jdbc:postgresql://db/app");
        assertEquals("jdbc:postgresql://db/app", ds.getJdbcUrl());
        assertEquals("jdbc:postgresql://db/app", ds.getUrl());
    }

    @Test
    void cannotBeUsedAfterClose() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl("jdbc:postgresql://db/app");
        ds.close();
        assertTrue(ds.isClosed());
        SQLException e = assertThrows(SQLException.class, ds::getConnection);
        assertEquals("08003", e.getSQLState());
    }

    @Test
    void loadsHikariStylePropertiesWithTheDataSourcePrefixForPgjdbc() {
        Properties p = new Properties();
        p.setProperty("jdbcUrl", "jdbc:postgresql://db/app");
        p.setProperty("username", "app");
        p.setProperty("password", "secret");
        p.setProperty("maximumPoolSize", "12");
        p.setProperty("minimumIdle", "2");
        p.setProperty("connectionTimeout", "4000");
        p.setProperty("autoCommit", "false");
        p.setProperty("transactionIsolation", "TRANSACTION_REPEATABLE_READ");
        p.setProperty("registerMbeans", "true");
        p.setProperty("dataSource.prepareThreshold", "3");
        p.setProperty("dataSource.ApplicationName", "billing");
        PgMuxDataSource ds = new PgMuxDataSource(p);
        assertEquals("jdbc:postgresql://db/app", ds.getJdbcUrl());
        assertEquals("app", ds.getUsername());
        assertEquals("secret", ds.getPassword());
        assertEquals(12, ds.getMaximumPoolSize());
        assertEquals(2, ds.getMinimumIdle());
        assertEquals(4000, ds.getConnectionTimeout());
        assertFalse(ds.isAutoCommit());
        assertEquals("TRANSACTION_REPEATABLE_READ", ds.getTransactionIsolation());
        assertTrue(ds.isRegisterMbeans());
        assertEquals("3", ds.getDataSourceProperties().getProperty("prepareThreshold"));
        assertEquals("billing", ds.getDataSourceProperties().getProperty("ApplicationName"));
    }

    @Test
    void loadsPgmuxAndPgbouncerNamesWithTheirUnits() {
        Properties p = new Properties();
        p.setProperty("pool_mode", "session");
        p.setProperty("query_wait_timeout", "45");
        p.setProperty("reservePoolTimeout", "3s");
        p.setProperty("default_pool_size", "8");
        PgMuxDataSource ds = new PgMuxDataSource(p);
        assertEquals(PoolMode.SESSION, ds.getPoolMode());
        assertEquals(45_000, ds.getConnectionTimeout());
        assertEquals(3_000, ds.getReservePoolTimeout());
        assertEquals(8, ds.getMaximumPoolSize());
    }

    @Test
    void takesIdleTransactionTimeoutInMillisecondsOrUnderPgbouncersNameInSeconds() {
        PgMuxDataSource ds = new PgMuxDataSource();
        assertEquals(0, ds.getIdleTransactionTimeout());
        ds.setIdleTransactionTimeout(1500);
        assertEquals(1500, ds.getIdleTransactionTimeout());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ds.setIdleTransactionTimeout(-1));
        assertTrue(e.getMessage().contains("idleTransactionTimeout=-1"), e.getMessage());
        Properties p = new Properties();
        p.setProperty("idle_transaction_timeout", "3");
        assertEquals(3000, new PgMuxDataSource(p).getIdleTransactionTimeout());
    }

    @Test
    void acceptsObjectValuesAndClassNamesAsHikariDoes() {
        Properties p = new Properties();
        p.put("maximumPoolSize", 6);
        p.put("metricsTrackerFactory", NoMetrics.class.getName());
        PgMuxDataSource ds = new PgMuxDataSource(p);
        assertEquals(6, ds.getMaximumPoolSize());
        assertTrue(ds.getMetricsTrackerFactory() instanceof NoMetrics);
        MetricsTrackerFactory factory = new NoMetrics();
        Properties q = new Properties();
        q.put("metricsTrackerFactory", factory);
        assertSame(factory, new PgMuxDataSource(q).getMetricsTrackerFactory());
    }

    @Test
    void refusesAnUnknownPropertySuggestingTheNearestName() {
        Properties p = new Properties();
        p.setProperty("maximumPoolSise", "5");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PgMuxDataSource(p));
        assertTrue(e.getMessage().contains("maximumPoolSise") && e.getMessage().contains("maximumPoolSize"),
                e.getMessage());
        Properties q = new Properties();
        q.setProperty("frobnicate", "1");
        assertThrows(IllegalArgumentException.class, () -> new PgMuxDataSource(q));
    }

    /** Every HikariCP 7.1 setting without a pgmux meaning is refused by name, never bound and ignored. */
    @ParameterizedTest
    @ValueSource(strings = {"healthCheckProperties", "threadFactory", "scheduledExecutor", "dataSource",
            "exceptionOverride", "credentials"})
    void refusesAHikariPropertyWithoutAMeaningHereByName(String property) {
        Properties p = new Properties();
        p.put(property, "com.example.Whatever");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PgMuxDataSource(p));
        assertTrue(e.getMessage().startsWith(property + " is not supported by PgMuxDataSource: "), e.getMessage());
    }

    @Test
    void refusesAnInvalidValueInPropertiesNamingTheProperty() {
        Properties p = new Properties();
        p.setProperty("autoCommit", "sometimes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PgMuxDataSource(p));
        assertTrue(e.getMessage().startsWith("autoCommit=sometimes"), e.getMessage());
        Properties q = new Properties();
        q.setProperty("validationTimeout", "soon");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new PgMuxDataSource(q)).getMessage()
                .startsWith("validationTimeout=soon"));
    }

    @Test
    void loadsAPropertiesFileFromTheFileSystem(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("pool.properties");
        Files.writeString(file, "jdbcUrl=jdbc:postgresql://db/app\nmaximumPoolSize=9\ndataSource.sslmode=disable\n");
        PgMuxDataSource ds = new PgMuxDataSource(file.toString());
        assertEquals(9, ds.getMaximumPoolSize());
        assertEquals("disable", ds.getDataSourceProperties().getProperty("sslmode"));
    }

    @Test
    void loadsAPropertiesFileFromTheClassPath(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("config/hikari.properties");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "jdbcUrl=jdbc:postgresql://db.example:5432/shop\nusername=shop\n"
                + "maximumPoolSize=15\npoolName=shop-pool\ndataSource.prepareThreshold=0\n");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader classPath = new URLClassLoader(new URL[] {dir.toUri().toURL()}, previous)) {
            thread.setContextClassLoader(classPath);
            PgMuxDataSource ds = new PgMuxDataSource("/config/hikari.properties");
            assertEquals("jdbc:postgresql://db.example:5432/shop", ds.getJdbcUrl());
            assertEquals(15, ds.getMaximumPoolSize());
            assertEquals("shop-pool", ds.getPoolName());
            assertEquals("0", ds.getDataSourceProperties().getProperty("prepareThreshold"));
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Test
    void saysWhichPropertiesFileItCouldNotFind() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PgMuxDataSource("no/such/pool.properties"));
        assertTrue(e.getMessage().contains("no/such/pool.properties"), e.getMessage());
    }

    @Test
    void refusesACredentialsProviderClassNameThatNamesNoProviderAtOnce() {
        PgMuxDataSource ds = new PgMuxDataSource();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ds.setCredentialsProviderClassName(String.class.getName()));
        assertEquals("credentialsProviderClassName=java.lang.String: not a "
                + "io.pgmux.jdbc.credentials.CredentialsProvider", e.getMessage());
    }

    @Test
    void takesTheCredentialSourcesFromPropertiesUnderTheirNames() {
        Properties p = new Properties();
        p.setProperty("credentialsProviderClassName", StaticTestCredentials.class.getName());
        p.setProperty("passwordCommandCacheTime", "10m");
        PgMuxDataSource ds = new PgMuxDataSource(p);
        assertEquals(StaticTestCredentials.class.getName(), ds.getCredentialsProviderClassName());
        assertEquals(600_000, ds.getPasswordCommandCacheTime());
    }

    @Test
    void refusesACompanionSettingWithoutItsSourceWhenThePoolStarts() {
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/app");
            ds.setPasswordCommandCacheTime(60_000);
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("22023", e.getSQLState());
            assertEquals("passwordCommandCacheTime applies only to passwordCommand; set passwordCommand too",
                    e.getMessage());
        }
    }
}
