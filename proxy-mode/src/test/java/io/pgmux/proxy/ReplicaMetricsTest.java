package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.stats.PgMuxReplicasMXBean;
import io.pgmux.testing.Await;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.management.JMX;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's read routing in the JDBC face's Replicas MXBean and Micrometer meters, one per routing pool: reads
 * routed per standby, reads sent to the primary for freshness, waits for replay.
 */
class ReplicaMetricsTest {
    private static StandbyPair pair;
    private SimpleMeterRegistry registry;
    private PgMuxProxy proxy;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @BeforeEach
    void start() throws Exception {
        registry = new SimpleMeterRegistry();
        proxy = ReadRoutingTest.routingProxy(pair, " replica_wait_timeout=0.2",
                b -> b.registerMbeans(true).metricRegistry(registry));
        ReadRoutingTest.awaitStandbyRead(proxy);
    }

    @AfterEach
    void stop() throws SQLException {
        proxy.close();
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_resume()");
        }
        pair.awaitStandbyCaughtUp();
    }

    private static String standbyHost() {
        return pair.host() + ":" + pair.standbyPort();
    }

    private static ObjectName name() throws MalformedObjectNameException {
        return new ObjectName("io.pgmux:type=Replicas,name=" + ObjectName.quote("app/" + pair.superuser()));
    }

    private static PgMuxReplicasMXBean mxBean() throws MalformedObjectNameException {
        return JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(), name(), PgMuxReplicasMXBean.class);
    }

    @Test
    void readsRoutedToTheStandbyAreCountedForIt() throws Exception {
        long before = mxBean().getReadsRouted().get(standbyHost());
        try (Connection c = ReadRoutingTest.connect(proxy, new Properties())) {
            for (int i = 0; i < 3; i++) {
                assertEquals("standby", ReadRoutingTest.readOnly(c, "SELECT count(*) FROM ledger"));
            }
        }
        assertEquals(before + 3, mxBean().getReadsRouted().get(standbyHost()));
        assertEquals(before + 3.0, registry.get("pgmux.replicas.reads").tag("standby", standbyHost())
                .functionCounter().count());
    }

    @Test
    void aReadOfAnUnreplayedWriteCountsItsWaitAndItsRunOnThePrimary() throws Exception {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_pause()");
        }
        try (Connection c = ReadRoutingTest.connect(proxy, new Properties()); Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO ledger VALUES (1)");
            assertEquals("primary", ReadRoutingTest.readOnly(c, "SELECT count(*) FROM ledger"));
        }
        PgMuxReplicasMXBean bean = mxBean();
        assertEquals(1, bean.getReadsToPrimaryForFreshness());
        assertEquals(1, bean.getReplayWaits());
        assertEquals(1.0, registry.get("pgmux.replicas.reads.primary").functionCounter().count());
        FunctionTimer waits = registry.get("pgmux.replicas.replay.wait").functionTimer();
        assertEquals(1.0, waits.count());
        assertTrue(waits.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS) > 0);
    }

    @Test
    void theMxBeanLeavesWithTheProxy() throws Exception {
        assertTrue(ManagementFactory.getPlatformMBeanServer().isRegistered(name()));
        proxy.close();
        assertFalse(Await.value(() -> ManagementFactory.getPlatformMBeanServer().isRegistered(name()), r -> !r,
                Duration.ofSeconds(10)));
    }
}
