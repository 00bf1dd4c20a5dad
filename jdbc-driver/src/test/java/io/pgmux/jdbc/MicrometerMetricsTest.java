package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/** PgMuxDataSource publishing to a real Micrometer registry while real traffic reaches PostgreSQL. */
@PostgresTest
class MicrometerMetricsTest {
    private final TestDatabase database;
    private final MeterRegistry registry = new SimpleMeterRegistry();

    MicrometerMetricsTest(TestDatabase database) {
        this.database = database;
    }

    private PgMuxDataSource dataSource(String poolName) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(database.jdbcUrl());
        ds.setUsername(database.superuser());
        ds.setPassword(database.superuserPassword());
        ds.setPoolName(poolName);
        ds.setMetricRegistry(registry);
        return ds;
    }

    private Gauge gauge(String name, String pool) {
        return registry.get(name).tag("pool", pool).gauge();
    }

    private double counter(String name, String pool) {
        return registry.get(name).tag("pool", pool).functionCounter().count();
    }

    /** Gauges are read from figures cached for up to a second, so they are polled until they match. */
    private static void awaitValue(double expected, DoubleSupplier actual, String what) throws InterruptedException {
        await(() -> actual.getAsDouble() == expected, what);
        assertEquals(expected, actual.getAsDouble(), what);
    }

    private static void await(BooleanSupplier condition, String what) {
        Await.until(condition::getAsBoolean, Duration.ofSeconds(10), what);
    }

    @Test
    void tagsEveryMeterWithPoolDatabaseUserAndMode() throws SQLException {
        try (PgMuxDataSource ds = dataSource("tagged")) {
            ds.setPoolMode(PoolMode.TRANSACTION);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            Meter active = registry.get("pgmux.connections.active").tag("pool", "tagged").meter();
            assertEquals(database.name(), active.getId().getTag("database"));
            assertEquals(database.superuser(), active.getId().getTag("user"));
            assertEquals("transaction", active.getId().getTag("mode"));
            for (Meter m : registry.find("pgmux.connections.acquire").meters()) {
                assertNotNull(m.getId().getTag("mode"), m.getId().toString());
            }
        }
    }

    @Test
    void gaugesFollowTheConnectionsInUse() throws Exception {
        try (PgMuxDataSource ds = dataSource("gauges")) {
            ds.setMaximumPoolSize(3);
            ds.setMinimumIdle(1);
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.execute("SELECT 1");
                }
                awaitValue(1, () -> gauge("pgmux.connections.active", "gauges").value(), "active inside a transaction");
                awaitValue(1, () -> gauge("pgmux.clients.active", "gauges").value(), "cl_active");
                c.commit();
                awaitValue(0, () -> gauge("pgmux.connections.active", "gauges").value(), "active after commit");
                assertTrue(gauge("pgmux.connections.idle", "gauges").value() >= 1);
            }
            assertEquals(3, gauge("pgmux.connections.max", "gauges").value());
            assertEquals(1, gauge("pgmux.connections.min", "gauges").value());
            assertEquals(0, gauge("pgmux.connections.pending", "gauges").value());
        }
    }

    @Test
    void countsTransactionsAndQueriesAsTrafficFlows() throws Exception {
        try (PgMuxDataSource ds = dataSource("traffic")) {
            ds.setPoolMode(PoolMode.TRANSACTION);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    st.execute("SELECT " + i);
                }
                c.setAutoCommit(false);
                st.execute("CREATE TEMP TABLE t (x int) ON COMMIT DROP");
                st.execute("INSERT INTO t VALUES (1)");
                c.commit();
            }
            // Five statements alone, then one transaction of two statements and its COMMIT.
            awaitValue(6, () -> counter("pgmux.transactions", "traffic"), "pgmux.transactions");
            awaitValue(8, () -> counter("pgmux.queries", "traffic"), "pgmux.queries");
            assertTrue(counter("pgmux.queries.time", "traffic") > 0);
        }
    }

    @Test
    void timesAcquisitionsUsageAndServerLogins() throws Exception {
        try (PgMuxDataSource ds = dataSource("timers")) {
            for (int i = 0; i < 3; i++) {
                try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                    st.execute("SELECT 1");
                }
            }
            assertTrue(registry.get("pgmux.connections.acquire").tag("pool", "timers").timer().count() >= 3);
            assertTrue(registry.get("pgmux.connections.usage").tag("pool", "timers").timer().count() >= 3);
            assertEquals(1, registry.get("pgmux.connections.creation").tag("pool", "timers").timer().count());
            FunctionTimer wait = registry.get("pgmux.clients.wait").tag("pool", "timers").functionTimer();
            await(() -> wait.count() >= 3, "server assignments counted by pgmux.clients.wait");
        }
    }

    @Test
    void countsClientsThatTimedOutWaiting() throws SQLException {
        try (PgMuxDataSource ds = dataSource("timeouts")) {
            ds.setMaximumPoolSize(1);
            try (Connection holder = ds.getConnection(); Statement st = holder.createStatement();
                 Connection other = ds.getConnection(); Statement late = other.createStatement()) {
                holder.setAutoCommit(false);
                st.execute("SELECT 1");
                // short only now: the holder's own first login may take longer on a busy machine
                ds.setConnectionTimeout(200);
                SQLException e = assertThrows(SQLException.class, () -> late.execute("SELECT 1"));
                assertEquals("08001", e.getSQLState());
                holder.rollback();
            }
            assertEquals(1, registry.get("pgmux.connections.timeout").tag("pool", "timeouts").counter().count());
        }
    }

    @Test
    void countsServerLoginFailures() {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        try (PgMuxDataSource ds = dataSource("logins")) {
            ds.setUsername(user.name());
            ds.setPassword("not-" + user.password());
            ds.setInitializationFailTimeout(-1);
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                    st.execute("SELECT 1");
                }
            });
            assertEquals("28P01", e.getSQLState());
            assertEquals(1, registry.get("pgmux.connections.login.failures").tag("pool", "logins").counter().count());
        }
    }

    @Test
    void countsPinsByReason() throws SQLException {
        try (PgMuxDataSource ds = dataSource("pins")) {
            ds.setPoolMode(PoolMode.TRANSACTION);
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("LISTEN pgmux_metrics");
            }
            Counter pinned = registry.get("pgmux.connections.pinned").tag("pool", "pins").counter();
            assertEquals(1, pinned.count());
            assertEquals("LISTEN", pinned.getId().getTag("reason"));
        }
    }

    @Test
    void removesItsMetersWhenThePoolCloses() throws SQLException {
        PgMuxDataSource ds = dataSource("closing");
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
        assertNotNull(registry.find("pgmux.connections").tag("pool", "closing").gauge());
        ds.close();
        assertNull(registry.find("pgmux.connections").tag("pool", "closing").gauge());
        assertNull(registry.find("pgmux.transactions").tag("pool", "closing").meter());
    }

    @Test
    void refusesAMetricRegistryTogetherWithAMetricsTrackerFactory() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setMetricRegistry(registry);
        assertThrows(IllegalArgumentException.class, () -> ds.setMetricsTrackerFactory((name, stats) -> null));
        ds.setMetricRegistry(null);
        ds.setMetricsTrackerFactory((name, stats) -> null);
        assertThrows(IllegalArgumentException.class, () -> ds.setMetricRegistry(registry));
    }
}
