package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/** The proxy publishing its pools to a real Micrometer registry while pgjdbc clients send real traffic. */
@PostgresTest
class MicrometerMetricsTest {
    private final TestDatabase db;
    private final MeterRegistry registry = new SimpleMeterRegistry();

    MicrometerMetricsTest(TestDatabase db) {
        this.db = db;
    }

    private double counter(String name) {
        return registry.get(name).tag("database", db.name()).functionCounter().count();
    }

    /** The registry reads figures cached for up to a second: polled until they match. */
    private static void awaitValue(double expected, DoubleSupplier actual, String what) {
        Await.equal(expected, actual::getAsDouble, Duration.ofSeconds(10), what);
    }

    @Test
    void countsClientsPinnedToTheirServerByReason() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.metricRegistry(registry));
                Connection c = ProxyFixture.connect(proxy, db);
                Statement st = c.createStatement()) {
            st.execute("SELECT pg_advisory_lock(5150)");
            awaitValue(1, () -> registry.find("pgmux.connections.pinned").tag("database", db.name())
                    .tag("reason", "ADVISORY_LOCK").counters().stream().mapToDouble(Counter::count).sum(),
                    "pinned for a session advisory lock");
            st.execute("SELECT pg_advisory_unlock_all()");
        }
    }

    @Test
    void publishesShowStatsTotalsAndShowPoolsFiguresPerPool() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.metricRegistry(registry))) {
            try (Connection c = ProxyFixture.connect(proxy, db)) {
                Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
                long xactsBefore = pool.getTransactionCount();
                long queriesBefore = pool.getQueryCount();
                try (Statement st = c.createStatement()) {
                    for (int i = 0; i < 5; i++) {
                        st.execute("SELECT " + i);
                    }
                    c.setAutoCommit(false);
                    st.execute("SELECT 1");
                    st.execute("SELECT 2");
                    Meter active = registry.get("pgmux.connections.active").tag("database", db.name()).gauge();
                    assertEquals(db.superuser(), active.getId().getTag("user"));
                    assertEquals("transaction", active.getId().getTag("mode"));
                    assertEquals(db.name() + "/" + db.superuser(), active.getId().getTag("pool"));
                    awaitValue(1, () -> registry.get("pgmux.connections.active").tag("database", db.name()).gauge()
                            .value(), "sv_active inside a transaction");
                    awaitValue(1, () -> registry.get("pgmux.clients.active").tag("database", db.name()).gauge()
                            .value(), "cl_active");
                    c.commit();
                }
                assertEquals(6, pool.getTransactionCount() - xactsBefore);
                assertTrue(pool.getQueryCount() - queriesBefore >= 8, "queries counted");
                awaitValue(pool.getTransactionCount(), () -> counter("pgmux.transactions"), "pgmux.transactions");
                awaitValue(pool.getQueryCount(), () -> counter("pgmux.queries"), "pgmux.queries");
                assertTrue(counter("pgmux.bytes.received") > 0, "bytes received from the client");
                assertTrue(counter("pgmux.bytes.sent") > 0, "bytes sent to the client");
                assertEquals(4, registry.get("pgmux.connections.max").tag("database", db.name()).gauge().value());
                assertTrue(registry.get("pgmux.connections.creation").tag("database", db.name()).timer().count() >= 1,
                        "server logins");
            }
        }
    }

    @Test
    void refusesARegistryThatIsNotAMeterRegistry() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PgMuxProxy.builder().metricRegistry("registry"));
        assertTrue(e.getMessage().contains("MeterRegistry"), e.getMessage());
    }
}
