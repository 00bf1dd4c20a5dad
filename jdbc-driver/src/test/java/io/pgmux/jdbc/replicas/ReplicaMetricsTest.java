package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import javax.management.JMX;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import io.pgmux.core.stats.PgMuxReplicasMXBean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A read-routing pool's figures, in its Replicas MXBean and in Micrometer: reads routed per standby, reads sent to
 * the primary for freshness, waits for replay, and each standby's lag.
 */
class ReplicaMetricsTest {
    private static StandbyPair pair;
    private SimpleMeterRegistry registry;
    private PgMuxDataSource ds;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @BeforeEach
    void pool() {
        registry = new SimpleMeterRegistry();
        ds = new PgMuxDataSource();
        ds.setJdbcUrl("jdbc:postgresql://" + pair.hostList() + "/postgres?readRouting=replicas&replicaCheckPeriod=100");
        ds.setUsername(pair.superuser());
        ds.setPoolName("replica-metrics");
        ds.setRegisterMbeans(true);
        ds.setMetricRegistry(registry);
    }

    @AfterEach
    void close() throws SQLException {
        ds.close();
        standby("SELECT pg_wal_replay_resume()");
        pair.awaitStandbyCaughtUp();
    }

    private static void standby(String sql) throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static String standbyHost() {
        return pair.host() + ":" + pair.standbyPort();
    }

    private static PgMuxReplicasMXBean mxBean() throws MalformedObjectNameException {
        return JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(),
                new ObjectName("io.pgmux:type=Replicas,name=" + ObjectName.quote("replica-metrics")),
                PgMuxReplicasMXBean.class);
    }

    private static void read(Connection c) throws SQLException {
        c.setReadOnly(true);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger")) {
            rs.next();
        }
    }

    @Test
    void readsRoutedToTheStandbyAreCountedForIt() throws Exception {
        try (Connection c = ds.getConnection()) {
            for (int i = 0; i < 3; i++) {
                read(c);
            }
        }
        assertEquals(3L, mxBean().getReadsRouted().get(standbyHost()));
        assertArrayEquals(new String[] {standbyHost()}, mxBean().getReadSet());
        assertEquals(3.0, registry.get("pgmux.replicas.reads").tag("standby", standbyHost()).functionCounter()
                .count());
    }

    @Test
    void aReadOfAnUnreplayedWriteCountsItsWaitAndItsRunOnThePrimary() throws Exception {
        pair.awaitStandbyCaughtUp();
        standby("SELECT pg_wal_replay_pause()");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO ledger VALUES (1)");
            }
            c.commit();
            c.setAutoCommit(true);
            read(c);
        }
        PgMuxReplicasMXBean bean = mxBean();
        assertEquals(1, bean.getReadsToPrimaryForFreshness());
        assertEquals(1, bean.getReplayWaits());
        assertEquals(0L, bean.getReadsRouted().get(standbyHost()));
        assertEquals(1.0, registry.get("pgmux.replicas.reads.primary").functionCounter().count());
        FunctionTimer waits = registry.get("pgmux.replicas.replay.wait").functionTimer();
        assertEquals(1.0, waits.count());
        assertTrue(waits.totalTime(TimeUnit.MILLISECONDS) > 0);
    }

    @Test
    void aStandbysLagIsShownOncePrimaryWritesItHasNotReplayed() throws Exception {
        try (Connection c = ds.getConnection()) {
            read(c);
            pair.awaitStandbyCaughtUp();
            standby("SELECT pg_wal_replay_pause()");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (mxBean().getStandbyLagMillis().getOrDefault(standbyHost(), 0L) < 300
                    && System.nanoTime() < deadline) {
                pair.executeOnPrimary("INSERT INTO ledger VALUES (2)");
                Thread.sleep(50);
            }
            assertTrue(mxBean().getStandbyLagMillis().get(standbyHost()) >= 300);
            assertTrue(registry.get("pgmux.replicas.lag").tag("standby", standbyHost()).timeGauge()
                    .value(TimeUnit.MILLISECONDS) >= 300);
        }
    }
}
