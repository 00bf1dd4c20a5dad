package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import io.pgmux.jdbc.pool.JdbcPool;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PgMuxDataSource against a real server, configured as a HikariDataSource would be. */
@PostgresTest
class PgMuxDataSourceTest {
    private static final AtomicInteger APPLICATIONS = new AtomicInteger();

    private final TestDatabase database;
    private final String application = "pgmux-ds-test-" + APPLICATIONS.incrementAndGet();

    PgMuxDataSourceTest(TestDatabase database) {
        this.database = database;
    }

    /** Configured with HikariCP's names only, tagged with this test's application_name. */
    private PgMuxDataSource hikariStyle() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(database.jdbcUrl());
        ds.setUsername(database.superuser());
        ds.setPassword(database.superuserPassword());
        ds.addDataSourceProperty("ApplicationName", application);
        return ds;
    }

    private Backends ours() {
        return Backends.withApplicationName(application);
    }

    @Test
    void servesConnectionsConfiguredWithHikariNames() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setMaximumPoolSize(2);
            ds.setMinimumIdle(1);
            ds.setConnectionTimeout(5_000);
            ds.setIdleTimeout(60_000);
            ds.setMaxLifetime(600_000);
            ds.setPoolName("hikari-style-" + application);
            try (Connection c = ds.getConnection()) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
                assertEquals(application, Sql.value(c, "SELECT current_setting('application_name')"));
            }
            assertTrue(ds.isRunning());
            assertEquals("hikari-style-" + application, ds.getPoolName());
            PgMuxPoolMXBean mxBean = ds.getPoolMXBean();
            assertNotNull(mxBean);
            assertEquals(1, mxBean.getTotalConnections());
            assertEquals("transaction", mxBean.getPoolMode());
            assertEquals(1, database.countConnections(ours()));
        }
    }

    @Test
    void acceptsPgmuxUrlsWithPoolSettingsInTheirQuery() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setJdbcUrl("jdbc:pgmux:" + database.jdbcUrl().substring("jdbc:".length())
                    + "?poolMode=statement&maximumPoolSize=3");
            try (Connection c = ds.getConnection()) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
            assertEquals(PoolMode.STATEMENT, ds.getPoolMode());
            assertEquals(3, ds.getMaximumPoolSize());
        }
    }

    @Test
    void letsSettersWinOverTheUrl() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setJdbcUrl(database.jdbcUrl() + "?maximumPoolSize=3&poolMode=statement");
            ds.setMaximumPoolSize(5);
            ds.getConnection().close();
            assertEquals(5, ds.getMaximumPoolSize());
            assertEquals(PoolMode.STATEMENT, ds.getPoolMode());
        }
    }

    @Test
    void sealsItsConfigurationOnceStarted() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.getConnection().close();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ds.setPoolMode(PoolMode.SESSION));
            assertEquals("The configuration of the pool is sealed once started. Use the PgMuxConfigMXBean setters"
                    + " for run-time changes.", e.getMessage());
            assertThrows(IllegalStateException.class, () -> ds.setJdbcUrl("jdbc:postgresql://elsewhere/db"));
            assertThrows(IllegalStateException.class, () -> ds.addDataSourceProperty("sslmode", "require"));
            assertThrows(IllegalStateException.class, () -> ds.setUsername("someone_else"));
            assertThrows(IllegalStateException.class, () -> ds.setKeepaliveTime(60_000));
            assertEquals(PoolMode.TRANSACTION, ds.getPoolMode());
        }
    }

    @Test
    void failsFastWithTheServersErrorWhenTheFirstLoginIsRefused() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setUsername(user.name());
            ds.setPassword("wrong-" + user.password());
            ds.setConnectionTimeout(30_000);
            long start = System.nanoTime();
            SQLException refused = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("28P01", refused.getSQLState());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "failed fast");
            assertFalse(ds.isRunning());
            assertNull(ds.getPoolMXBean());
            // Not started, so not sealed: the configuration can be put right and the start retried.
            ds.setPassword(user.password());
            try (Connection c = ds.getConnection()) {
                assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
            }
        }
    }

    @Test
    void refusesToStartWhenTheServerFailsTheConnectionTestQuery() {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setConnectionTestQuery("SELECT 1 FROM DUAL");
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("connectionTestQuery") && e.getMessage().contains("SELECT 1 FROM DUAL"),
                    e.getMessage());
            assertEquals("42P01", e.getNextException().getSQLState());
            assertFalse(ds.isRunning());
        }
    }

    @Test
    void startsDespiteARefusedLoginWhenInitializationFailTimeoutIsNegative() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setUsername(user.name());
            ds.setPassword("wrong");
            ds.setInitializationFailTimeout(-1);
            try (Connection c = ds.getConnection()) {
                assertTrue(ds.isRunning());
                SQLException refused = assertThrows(SQLException.class, () -> Sql.value(c, "SELECT 1"));
                assertEquals("28P01", refused.getSQLState());
            }
        }
    }

    @Test
    void registersItsMxBeanWhenAskedAndUnregistersItAtClose() throws Exception {
        String poolName = "ds-jmx-" + application;
        ObjectName name = new ObjectName("io.pgmux:type=Pool,name=" + ObjectName.quote(poolName));
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        PgMuxDataSource ds = hikariStyle();
        ds.setRegisterMbeans(true);
        ds.setPoolName(poolName);
        ds.setMinimumIdle(1);
        assertFalse(server.isRegistered(name));
        ds.getConnection().close();
        assertTrue(server.isRegistered(name));
        assertEquals(1, server.getAttribute(name, "TotalConnections"));
        ds.close();
        assertFalse(server.isRegistered(name));
    }

    @Test
    void mxBeanCountsTransactionsAndQueriesAsPgBouncerDoes() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setPoolMode(PoolMode.TRANSACTION);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                for (int i = 0; i < 3; i++) {
                    st.execute("SELECT " + i);
                }
                c.setAutoCommit(false);
                st.execute("SELECT 1");
                st.execute("SELECT 2");
                c.rollback();
                st.execute("SELECT 3");
                c.commit();
            }
            PgMuxPoolMXBean mxBean = ds.getPoolMXBean();
            // Autocommit statements are transactions of their own; ROLLBACK and COMMIT are queries.
            assertEquals(5, mxBean.getTransactionCount());
            assertEquals(8, mxBean.getQueryCount());
        }
    }

    @Test
    void loadsAHikariPropertiesFileAndConnects(@TempDir Path dir) throws IOException, SQLException {
        Path file = dir.resolve("hikari.properties");
        Files.writeString(file, String.join("\n",
                "jdbcUrl=" + database.jdbcUrl(),
                "username=" + database.superuser(),
                "password=" + database.superuserPassword(),
                "maximumPoolSize=4",
                "connectionTimeout=10000",
                "autoCommit=false",
                "transactionIsolation=TRANSACTION_REPEATABLE_READ",
                "dataSource.ApplicationName=" + application,
                ""));
        try (PgMuxDataSource ds = new PgMuxDataSource(file.toString()); Connection c = ds.getConnection()) {
            assertFalse(c.getAutoCommit());
            assertEquals("repeatable read", Sql.value(c, "SHOW transaction_isolation"));
            assertEquals(application, Sql.value(c, "SELECT current_setting('application_name')"));
            c.rollback();
            assertEquals(4, ds.getMaximumPoolSize());
        }
    }

    @Test
    void startsEveryConnectionInTheConfiguredState() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setReadOnly(true);
            ds.setAutoCommit(false);
            ds.setSchema("pg_catalog");
            ds.setConnectionInitSql("SET statement_timeout = '4321ms'");
            try (Connection c = ds.getConnection()) {
                assertTrue(c.isReadOnly());
                assertFalse(c.getAutoCommit());
                assertEquals("pg_catalog", c.getSchema());
                assertEquals("4321ms", Sql.value(c, "SHOW statement_timeout"));
                c.rollback();
            }
        }
    }

    @Test
    void evictsTheServerConnectionAConnectionHolds() throws SQLException, InterruptedException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.setAutoCommit(false);
            Connection c = ds.getConnection();
            String pid = Sql.value(c, "SELECT pg_backend_pid()");
            ds.evictConnection(c);
            assertTrue(c.isClosed());
            try (Connection admin = database.connect()) {
                Await.equal("0", () -> Sql.value(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid),
                        Duration.ofSeconds(5), "backends with the closed connection's pid");
            }
            try (Connection next = ds.getConnection()) {
                assertTrue(!pid.equals(Sql.value(next, "SELECT pg_backend_pid()")));
                next.rollback();
            }
        }
    }

    @Test
    void closeDrainsThePoolAndRefusesFurtherConnections() throws SQLException {
        PgMuxDataSource ds = hikariStyle();
        ds.setMinimumIdle(2);
        ds.getConnection().close();
        assertEquals(2, database.awaitConnections(ours(), 2, Duration.ofSeconds(5)));
        ds.close();
        assertTrue(ds.isClosed());
        assertFalse(ds.isRunning());
        assertNull(ds.getPoolMXBean());
        assertEquals(0, database.awaitConnections(ours(), 0, Duration.ofSeconds(5)));
        SQLException e = assertThrows(SQLException.class, ds::getConnection);
        assertEquals("08003", e.getSQLState());
    }

    @Test
    void aConnectionWithoutAServerConnectionIsClosedOnceThePoolIs() throws SQLException {
        PgMuxDataSource ds = hikariStyle();
        ds.setPoolMode(PoolMode.TRANSACTION);
        Connection c = ds.getConnection();
        assertEquals("1", Sql.value(c, "SELECT 1"));
        assertFalse(c.isClosed());
        ds.close();
        assertTrue(c.isClosed());
        SQLException e = assertThrows(SQLException.class, () -> Sql.value(c, "SELECT 1"));
        assertEquals("08003", e.getSQLState());
    }

    @Test
    void isNotRunningWhileItsPoolIsSuspended() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            ds.getConnection().close();
            assertTrue(ds.isRunning());
            ds.getPoolMXBean().suspendPool();
            assertFalse(ds.isRunning());
            ds.getPoolMXBean().resumePool();
            assertTrue(ds.isRunning());
        }
    }

    @Test
    void startsOnePoolWhenManyThreadsAskForTheFirstConnectionAtOnce() throws Exception {
        int threads = 8;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try (PgMuxDataSource ds = hikariStyle()) {
            Callable<JdbcPool> firstUse = () -> {
                try (Connection c = ds.getConnection()) {
                    Sql.value(c, "SELECT 1");
                }
                return ds.unwrap(JdbcPool.class);
            };
            Future<?>[] results = new Future<?>[threads];
            for (int i = 0; i < threads; i++) {
                results[i] = executor.submit(firstUse);
            }
            JdbcPool first = (JdbcPool) results[0].get();
            for (Future<?> f : results) {
                assertSame(first, f.get());
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void unwrapsToItsPoolAndMxBean() throws SQLException {
        try (PgMuxDataSource ds = hikariStyle()) {
            assertFalse(ds.isWrapperFor(JdbcPool.class));
            ds.getConnection().close();
            assertTrue(ds.isWrapperFor(JdbcPool.class));
            assertSame(ds.getPoolMXBean(), ds.unwrap(PgMuxPoolMXBean.class));
            assertSame(ds, ds.unwrap(PgMuxDataSource.class));
            assertThrows(SQLException.class, () -> ds.unwrap(String.class));
        }
    }

    /**
     * HikariCP's run-time configuration (its HikariConfigMXBean): the pool sizes, timeouts and password change
     * while the pool runs.
     */
    @Nested
    class AtRunTime {
        private static final Duration WAIT = Duration.ofSeconds(30);

        /** A connection inside a transaction: it holds its server connection until closed. */
        private static Connection holding(PgMuxDataSource ds) throws SQLException {
            Connection c = ds.getConnection();
            c.setAutoCommit(false);
            Sql.value(c, "SELECT 1");
            return c;
        }

        @Test
        void aLargerMaximumPoolSizeServesABorrowerAlreadyWaiting() throws Exception {
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setMaximumPoolSize(1);
                ds.setConnectionTimeout(0);
                try (Connection held = holding(ds); Connection other = ds.getConnection()) {
                    CompletableFuture<String> waiting = Sql.async(() -> Sql.value(other, "SELECT 'served'"));
                    Await.equal(1, () -> ds.getPoolMXBean().getThreadsAwaitingConnection(), WAIT,
                            "a borrower waiting");

                    ds.setMaximumPoolSize(2);

                    assertEquals("served", waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                    assertEquals(2, ds.getMaximumPoolSize());
                }
            }
        }

        @Test
        void aSmallerMaximumPoolSizeClosesIdleServerConnectionsAboveIt() throws SQLException {
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setMaximumPoolSize(3);
                try (Connection a = holding(ds); Connection b = holding(ds); Connection c = holding(ds)) {
                    assertEquals(3, database.countConnections(ours()));
                }
                ds.setMaximumPoolSize(1);

                Await.equal(1, () -> database.countConnections(ours()), WAIT,
                        "server connections after maximumPoolSize went down to 1");
            }
        }

        @Test
        void aLargerMinimumIdleOpensServerConnectionsAtOnce() throws SQLException {
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setMaximumPoolSize(5);
                ds.getConnection().close();

                ds.setMinimumIdle(3);

                Await.equal(3, () -> database.countConnections(ours()), WAIT,
                        "server connections after minimumIdle went up to 3");
                assertEquals(3, ds.getMinimumIdle());
            }
        }

        @Test
        void aShorterConnectionTimeoutAppliesToTheNextBorrow() throws SQLException {
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setMaximumPoolSize(1);
                ds.setConnectionTimeout(0); // waits forever: only the change can end the wait below
                try (Connection held = holding(ds); Connection other = ds.getConnection()) {
                    ds.setConnectionTimeout(250);

                    SQLException e = assertTimeoutPreemptively(WAIT,
                            () -> assertThrows(SQLException.class, () -> Sql.value(other, "SELECT 1")));
                    assertEquals("08001", e.getSQLState());
                    assertEquals(250, ds.getConnectionTimeout());
                }
            }
        }

        @Test
        void aNewPasswordIsUsedByTheNextServerLogin() throws SQLException {
            TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setUsername(user.name());
                ds.setPassword(user.password());
                ds.getConnection().close();
                String rotated = user.password() + "_rotated";
                try (Connection admin = database.connect(); Statement st = admin.createStatement()) {
                    st.execute("SET password_encryption = 'scram-sha-256'");
                    st.execute("ALTER ROLE " + user.name() + " PASSWORD '" + rotated + "'");
                }

                ds.setPassword(rotated);
                ds.getPoolMXBean().softEvictConnections();

                try (Connection c = ds.getConnection()) {
                    assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
                }
            }
        }

        @Test
        void aValueTheSettingCannotTakeIsRefusedAndChangesNothing() throws SQLException {
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setMaximumPoolSize(4);
                ds.setMinimumIdle(2);
                ds.getConnection().close();

                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> ds.setMaximumPoolSize(1));

                assertEquals("minimumIdle=2 is larger than maximumPoolSize=1: the pool cannot keep more connections"
                        + " than it may open", e.getMessage());
                assertEquals(4, ds.getMaximumPoolSize());
            }
        }

        @Test
        void registeredAsAnMXBeanItsAttributesChangeThePool() throws Exception {
            try (PgMuxDataSource ds = hikariStyle()) {
                ds.setPoolName(application);
                ds.setRegisterMbeans(true);
                ds.getConnection().close();
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName name = new ObjectName("io.pgmux:type=PoolConfig,name=" + ObjectName.quote(application));

                server.setAttribute(name, new Attribute("MaximumPoolSize", 7));

                assertEquals(7, ds.getMaximumPoolSize());
                assertEquals(7, server.getAttribute(name, "MaximumPoolSize"));
                assertSame(ds, ds.getConfigMXBean());
                ds.close();
                assertFalse(server.isRegistered(name));
            }
        }
    }
}
