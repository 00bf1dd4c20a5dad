package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * HikariCP's run-time configuration (its HikariConfigMXBean): the pool sizes, timeouts and password change while
 * the pool runs, against a real server.
 */
@PostgresTest
class PgMuxConfigMXBeanTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicInteger APPLICATIONS = new AtomicInteger();

    private final TestDatabase database;
    private final String application = "pgmux-config-mx-" + APPLICATIONS.incrementAndGet();

    PgMuxConfigMXBeanTest(TestDatabase database) {
        this.database = database;
    }

    private PgMuxDataSource dataSource() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(database.jdbcUrl());
        ds.setUsername(database.superuser());
        ds.setPassword(database.superuserPassword());
        ds.addDataSourceProperty("ApplicationName", application);
        return ds;
    }

    private int servers() {
        return database.countConnections(Backends.withApplicationName(application));
    }

    /** A connection inside a transaction: it holds its server connection until closed. */
    private static Connection holding(PgMuxDataSource ds) throws SQLException {
        Connection c = ds.getConnection();
        c.setAutoCommit(false);
        Sql.value(c, "SELECT 1");
        return c;
    }

    @Test
    void aLargerMaximumPoolSizeServesABorrowerAlreadyWaiting() throws Exception {
        try (PgMuxDataSource ds = dataSource()) {
            ds.setMaximumPoolSize(1);
            ds.setConnectionTimeout(0);
            try (Connection held = holding(ds); Connection other = ds.getConnection()) {
                CompletableFuture<String> waiting = Sql.async(() -> Sql.value(other, "SELECT 'served'"));
                Await.equal(1, () -> ds.getPoolMXBean().getThreadsAwaitingConnection(), WAIT, "a borrower waiting");

                ds.setMaximumPoolSize(2);

                assertEquals("served", waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                assertEquals(2, ds.getMaximumPoolSize());
            }
        }
    }

    @Test
    void aSmallerMaximumPoolSizeClosesIdleServerConnectionsAboveIt() throws SQLException {
        try (PgMuxDataSource ds = dataSource()) {
            ds.setMaximumPoolSize(3);
            try (Connection a = holding(ds); Connection b = holding(ds); Connection c = holding(ds)) {
                assertEquals(3, servers());
            }
            ds.setMaximumPoolSize(1);

            Await.equal(1, this::servers, WAIT, "server connections after maximumPoolSize went down to 1");
        }
    }

    @Test
    void aLargerMinimumIdleOpensServerConnectionsAtOnce() throws SQLException {
        try (PgMuxDataSource ds = dataSource()) {
            ds.setMaximumPoolSize(5);
            ds.getConnection().close();

            ds.setMinimumIdle(3);

            Await.equal(3, this::servers, WAIT, "server connections after minimumIdle went up to 3");
            assertEquals(3, ds.getMinimumIdle());
        }
    }

    @Test
    void aShorterConnectionTimeoutAppliesToTheNextBorrow() throws SQLException {
        try (PgMuxDataSource ds = dataSource()) {
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
        try (PgMuxDataSource ds = dataSource()) {
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
        try (PgMuxDataSource ds = dataSource()) {
            ds.setMaximumPoolSize(4);
            ds.setMinimumIdle(2);
            ds.getConnection().close();

            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ds.setMaximumPoolSize(1));

            assertEquals("minimumIdle=2 is larger than maximumPoolSize=1: the pool cannot keep more connections than"
                    + " it may open", e.getMessage());
            assertEquals(4, ds.getMaximumPoolSize());
        }
    }

    @Test
    void registeredAsAnMXBeanItsAttributesChangeThePool() throws Exception {
        try (PgMuxDataSource ds = dataSource()) {
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
