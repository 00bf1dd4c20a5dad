package io.pgmux.jdbc.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a fleet member shows of its fleet, through the pool's MXBean and its Micrometer meters: its share, the
 * capacity it lends or borrows against its equal part of the budget, the members it sees, its fallback state.
 */
@PostgresTest
class FleetFiguresTest {
    private static final Duration SHARE_MOVES = Duration.ofSeconds(15);

    private final TestDatabase db;
    private final String fleet = "figures_" + System.nanoTime();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<PgMuxDataSource> toClose = new ArrayList<>();
    private final AtomicBoolean loaded = new AtomicBoolean(true);
    private final List<Thread> load = new ArrayList<>();

    FleetFiguresTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        loaded.set(false);
        for (Thread t : load) {
            t.join();
        }
        toClose.forEach(PgMuxDataSource::close);
    }

    @Test
    void theMXBeanShowsTheShareLentAndBorrowedCapacityAndTheMembers() throws Exception {
        PgMuxDataSource busy = member("busy", 8);
        PgMuxDataSource idle = member("idle", 8);
        query(idle);
        query(busy);
        load(busy, 12);
        PgMuxPoolMXBean busyBean = busy.getPoolMXBean();
        PgMuxPoolMXBean idleBean = idle.getPoolMXBean();
        awaitTrue(() -> busyBean.getFleetShare() == 7, "the busy member's share is all but the idle one's 1");
        assertEquals(fleet, busyBean.getFleet());
        assertEquals(3, busyBean.getFleetBorrowed(), "7 of 8, 3 above its equal part of 4");
        assertEquals(0, busyBean.getFleetLent());
        assertEquals(2, busyBean.getFleetMembers());
        assertEquals(false, busyBean.isFleetFallback());
        awaitTrue(() -> idleBean.getFleetLent() == 3, "the idle member lends 3 of its equal part of 4");
        assertEquals(1, idleBean.getFleetShare());
        assertEquals(0, idleBean.getFleetBorrowed());
    }

    @Test
    void theMetersShowTheShareLentAndBorrowedCapacityAndTheMembers() throws Exception {
        PgMuxDataSource busy = member("busy", 8);
        busy.setMetricRegistry(registry);
        PgMuxDataSource idle = member("idle", 8);
        query(idle);
        load(busy, 12);
        awaitTrue(() -> gauge("pgmux.fleet.share") == 7, "the busy member's share in its meter");
        awaitTrue(() -> gauge("pgmux.fleet.borrowed") == 3, "the busy member's borrowed capacity in its meter");
        assertEquals(0, gauge("pgmux.fleet.lent"));
        assertEquals(2, gauge("pgmux.fleet.members"));
        assertEquals(8, gauge("pgmux.fleet.budget"));
        assertEquals(0, gauge("pgmux.fleet.fallback"));
    }

    @Test
    void aPoolOutsideAFleetHasNoFleetMeters() throws Exception {
        PgMuxDataSource plain = new PgMuxDataSource();
        plain.setJdbcUrl(db.jdbcUrl());
        plain.setUsername(db.superuser());
        plain.setPassword(db.superuserPassword());
        plain.setPoolName(fleet + "-plain");
        plain.setMetricRegistry(registry);
        toClose.add(plain);
        query(plain);
        assertNull(registry.find("pgmux.fleet.share").gauge());
        assertEquals("", plain.getPoolMXBean().getFleet());
    }

    @Test
    void theMXBeanAndTheMetersShowAFallback() throws Exception {
        PgMuxDataSource a = member("a", 8);
        a.setMetricRegistry(registry);
        query(a);
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA pgmux_fleet CASCADE");
        }
        awaitTrue(() -> a.getPoolMXBean().isFleetFallback(), "the MXBean shows the fallback");
        awaitTrue(() -> gauge("pgmux.fleet.fallback") == 1, "the meter shows the fallback");
    }

    /** NaN until the meter is made. */
    private double gauge(String name) {
        Gauge gauge = registry.find(name).tag("fleet", fleet).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    private PgMuxDataSource member(String name, int budget) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(db.jdbcUrl());
        ds.setUsername(db.superuser());
        ds.setPassword(db.superuserPassword());
        ds.setPoolName(fleet + "-" + name);
        ds.setMaximumPoolSize(budget);
        ds.setConnectionTimeout(60_000);
        ds.setFleet(fleet);
        ds.setFleetMaxServers(budget);
        toClose.add(ds);
        return ds;
    }

    private static void query(PgMuxDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
    }

    private void load(PgMuxDataSource ds, int threads) {
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                    while (loaded.get()) {
                        st.execute("SELECT pg_sleep(0.02)");
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            load.add(t);
        }
    }

    private static void awaitTrue(Await.Probe<Boolean> condition, String what) {
        Await.until(condition, SHARE_MOVES, what);
    }
}
