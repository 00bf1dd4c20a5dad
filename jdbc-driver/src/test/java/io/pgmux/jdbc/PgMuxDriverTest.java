package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import io.pgmux.jdbc.logical.LogicalConnection;
import io.pgmux.jdbc.pool.JdbcPool;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The driver against a real server, through DriverManager as applications use it. Every test closes the
 * driver's pools afterwards: they outlive connections by design, and must not leak into the next test.
 */
@PostgresTest
class PgMuxDriverTest {
    private static final AtomicInteger APPLICATIONS = new AtomicInteger();

    private final TestDatabase database;
    private final String application = "pgmux-driver-test-" + APPLICATIONS.incrementAndGet();

    PgMuxDriverTest(TestDatabase database) {
        this.database = database;
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    /** The test database's URL as a pgmux URL, tagged with this test's application_name, plus a query. */
    private String url(String query) {
        return "jdbc:pgmux:" + database.jdbcUrl().substring("jdbc:".length()) + "?ApplicationName=" + application
                + (query.isEmpty() ? "" : "&" + query);
    }

    private Connection connect(String query) throws SQLException {
        return DriverManager.getConnection(url(query), database.superuser(), database.superuserPassword());
    }

    private int serverConnections() {
        return database.countConnections(Backends.withApplicationName(application));
    }

    @Test
    void runsQueriesThroughDriverManager() throws SQLException {
        try (Connection c = connect("")) {
            assertTrue(c.isWrapperFor(LogicalConnection.class));
            assertEquals("1", Sql.value(c, "SELECT 1"));
            assertEquals(database.name(), Sql.value(c, "SELECT current_database()"));
        }
    }

    @Test
    void sharesOnePoolBetweenConnectionsOfTheSameUrlAndCredentials() throws SQLException {
        try (Connection first = connect("maximumPoolSize=1"); Connection second = connect("maximumPoolSize=1")) {
            Sql.value(first, "SELECT 1");
            Sql.value(second, "SELECT 2");
            assertEquals(1, PgMuxDriver.pools().size());
            assertEquals(1, serverConnections());
        }
    }

    @Test
    void sharesOnePoolHoweverASettingIsSpelt() throws SQLException {
        for (String setting : new String[] {"maximumPoolSize=4", "default_pool_size=4",
                "defaultPoolSize=4&autoCommit=true&poolMode=transaction"}) {
            try (Connection c = connect(setting)) {
                Sql.value(c, "SELECT 1");
            }
        }
        assertEquals(1, PgMuxDriver.pools().size());
    }

    @Test
    void opensAPoolPerDistinctSettings() throws SQLException {
        for (String settings : new String[] {"maximumPoolSize=2", "maximumPoolSize=3",
                "maximumPoolSize=3&poolMode=statement"}) {
            try (Connection c = connect(settings)) {
                Sql.value(c, "SELECT 1");
            }
        }
        assertEquals(3, PgMuxDriver.pools().size());
    }

    @Test
    void opensAPoolPerUser() throws SQLException {
        TestUser other = database.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection superuser = connect("");
             Connection user = DriverManager.getConnection(url(""), other.name(), other.password())) {
            assertEquals(other.name(), Sql.value(user, "SELECT current_user"));
            assertEquals(database.superuser(), Sql.value(superuser, "SELECT current_user"));
            assertEquals(2, PgMuxDriver.pools().size());
        }
    }

    @Test
    void appliesThePoolSettingsOfTheUrl() throws SQLException, InterruptedException {
        JdbcPool pool;
        try (Connection c = connect("poolMode=session&maximumPoolSize=2&connectionTimeout=7s")) {
            pool = PgMuxDriver.pools().iterator().next();
            assertEquals(PoolMode.SESSION, pool.config().poolMode());
            assertEquals(2, pool.config().defaultPoolSize());
            assertEquals(Duration.ofSeconds(7).toNanos(), pool.config().queryWaitTimeoutNanos());
            // Session mode: the logical connection holds its server connection from the start.
            assertTrue(c.unwrap(LogicalConnection.class).holdsServerConnection());
        }
        awaitResetDone(pool);
    }

    /**
     * A server connection given back in session mode is reset (DISCARD ALL) before it is idle again; the
     * pool is closed only once that is done, so that the drain finds it idle.
     */
    private static void awaitResetDone(JdbcPool pool) {
        Await.equal(0, pool.pool()::getServersTested, Duration.ofSeconds(5), "servers being reset");
    }

    @Test
    void takesPoolSettingsFromThePropertiesToo() throws SQLException {
        Properties info = new Properties();
        info.setProperty("user", database.superuser());
        info.setProperty("password", database.superuserPassword());
        info.setProperty("pool_mode", "statement");
        try (Connection c = DriverManager.getConnection(url(""), info)) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
            assertEquals(PoolMode.STATEMENT, PgMuxDriver.pools().iterator().next().config().poolMode());
        }
    }

    @Test
    void passesPgjdbcPropertiesToPgjdbc() throws SQLException {
        try (Connection c = connect("")) {
            assertEquals(application, Sql.value(c, "SELECT current_setting('application_name')"));
        }
    }

    @Test
    void runsConnectionInitSqlOnEveryServerConnection() throws SQLException {
        try (Connection c = connect("connectionInitSql=SET%20statement_timeout%20%3D%20%2712345ms%27")) {
            assertEquals("12345ms", Sql.value(c, "SHOW statement_timeout"));
        }
    }

    @Test
    void startsEveryConnectionInTheStateTheUrlAsksFor() throws SQLException {
        try (Connection c = connect("autoCommit=false&readOnly=true&transactionIsolation=TRANSACTION_SERIALIZABLE")) {
            assertFalse(c.getAutoCommit());
            assertTrue(c.isReadOnly());
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
            assertEquals("serializable", Sql.value(c, "SHOW transaction_isolation"));
            SQLException write = assertThrows(SQLException.class,
                    () -> c.createStatement().execute("CREATE TABLE refused (id int)"));
            assertEquals("25006", write.getSQLState());
            c.rollback();
        }
    }

    @Test
    void failsConnectWithTheServersErrorWhenItRefusesTheLogin() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        SQLException refused = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(url(""), user.name(), "wrong-" + user.password()));
        assertEquals("28P01", refused.getSQLState());
        assertTrue(PgMuxDriver.pools().isEmpty(), "a pool that could not log in is not kept");
        try (Connection c = DriverManager.getConnection(url(""), user.name(), user.password())) {
            assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
        }
    }

    @Test
    void startsWithoutLoggingInWhenInitializationFailTimeoutIsNegative() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection c = DriverManager.getConnection(url("initializationFailTimeout=-1"), user.name(), "wrong")) {
            SQLException refused = assertThrows(SQLException.class, () -> Sql.value(c, "SELECT 1"));
            assertEquals("28P01", refused.getSQLState());
        }
    }

    @Test
    void registersThePoolMxBeanWhenAsked() throws Exception {
        String poolName = "driver-jmx-" + application;
        ObjectName name = new ObjectName("io.pgmux:type=Pool,name=" + ObjectName.quote(poolName));
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (Connection c = connect("registerMbeans=true&minimumIdle=1&poolName=" + poolName)) {
            Sql.value(c, "SELECT 1");
            assertTrue(server.isRegistered(name));
            assertEquals(1, server.getAttribute(name, "TotalConnections"));
            assertEquals("transaction", server.getAttribute(name, "PoolMode"));
        }
        PgMuxDriver.closeAll();
        assertFalse(server.isRegistered(name));
    }

    @Test
    void doesNotRegisterAnMxBeanUnlessAsked() throws Exception {
        String poolName = "driver-nojmx-" + application;
        try (Connection c = connect("poolName=" + poolName)) {
            Sql.value(c, "SELECT 1");
            assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(
                    new ObjectName("io.pgmux:type=Pool,name=" + ObjectName.quote(poolName))));
        }
    }

    @Test
    void closeAllClosesTheServerConnectionsAndLaterConnectsStartAfresh() throws SQLException {
        JdbcPool before;
        try (Connection c = connect("minimumIdle=1")) {
            Sql.value(c, "SELECT 1");
            before = PgMuxDriver.pools().iterator().next();
        }
        assertEquals(1, serverConnections());
        PgMuxDriver.closeAll();
        assertTrue(before.isClosed());
        assertTrue(PgMuxDriver.pools().isEmpty());
        assertEquals(0, database.awaitConnections(Backends.withApplicationName(application), 0, Duration.ofSeconds(5)));
        try (Connection c = connect("minimumIdle=1")) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
            List<JdbcPool> pools = List.copyOf(PgMuxDriver.pools());
            assertEquals(1, pools.size());
            assertNotSame(before, pools.get(0));
        }
    }

    @Test
    void connectionsOpenAtCloseAllFailAtTheirNextUse() throws SQLException {
        try (Connection c = connect("")) {
            Sql.value(c, "SELECT 1");
            PgMuxDriver.closeAll();
            SQLException e = assertThrows(SQLException.class, () -> Sql.value(c, "SELECT 1"));
            assertTrue(e.getSQLState().startsWith("08"), e.getSQLState());
        }
    }

    @Test
    void startsOnePoolWhenManyThreadsConnectAtOnce() throws Exception {
        int threads = 8;
        JdbcPool[] seen = new JdbcPool[threads];
        Thread[] workers = new Thread[threads];
        Throwable[] failures = new Throwable[threads];
        for (int i = 0; i < threads; i++) {
            int n = i;
            workers[i] = new Thread(() -> {
                try (Connection c = connect("maximumPoolSize=2")) {
                    Sql.value(c, "SELECT 1");
                    seen[n] = PgMuxDriver.pools().iterator().next();
                } catch (Throwable t) {
                    failures[n] = t;
                }
            });
        }
        for (Thread t : workers) {
            t.start();
        }
        for (Thread t : workers) {
            t.join();
        }
        for (int i = 0; i < threads; i++) {
            if (failures[i] != null) {
                throw new AssertionError("thread " + i + " failed", failures[i]);
            }
            assertSame(seen[0], seen[i]);
        }
        assertEquals(1, PgMuxDriver.pools().size());
    }
}
