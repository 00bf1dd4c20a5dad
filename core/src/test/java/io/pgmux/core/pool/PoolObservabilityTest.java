package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.PoolStats;
import io.pgmux.core.stats.TrafficStats;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** What monitoring sees: the HikariCP-shaped MXBean and metrics tracker, and the SHOW STATS totals. */
class PoolObservabilityTest {
    private final ManualClock clock = new ManualClock();

    @Test
    void theMxbeanIsRegisteredUnderThePoolNameAndShowsLiveCounts() throws Exception {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .config(PoolConfig.jdbcDefaults().poolName("orders-pool").defaultPoolSize(3).build())
                .registerMbeans(true).janitorPeriod(Duration.ZERO).build()) {
            Pool<Conn> pool = registry.pool("orders", "app");
            Lease<Conn> lease = pool.acquire();
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.pgmux:type=Pool,name=\"orders-pool\"");
            assertEquals(1, server.getAttribute(name, "ActiveConnections"));
            assertEquals(0, server.getAttribute(name, "IdleConnections"));
            assertEquals(1, server.getAttribute(name, "TotalConnections"));
            assertEquals("transaction", server.getAttribute(name, "PoolMode"));
            lease.release();
            server.invoke(name, "softEvictConnections", null, null);
            assertEquals(0, server.getAttribute(name, "TotalConnections"));
            registry.close();
            assertFalse(server.isRegistered(name), "unregistered when the registry closes");
        }
    }

    @Test
    void theMetricsTrackerSeesCreationAcquisitionUsageAndTimeouts() throws Exception {
        AtomicInteger created = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger used = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        AtomicReference<PoolStats> gauges = new AtomicReference<>();
        AtomicReference<String> poolName = new AtomicReference<>();
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(1).minPoolSize(1)
                        .queryWaitTimeout(Duration.ofSeconds(1)).build())
                .clock(clock).janitorPeriod(Duration.ZERO)
                .metricsTrackerFactory((name, stats) -> {
                    poolName.set(name);
                    gauges.set(stats);
                    return new IMetricsTracker() {
                        @Override
                        public void recordConnectionCreatedMillis(long ms) {
                            created.incrementAndGet();
                        }

                        @Override
                        public void recordConnectionAcquiredNanos(long nanos) {
                            acquired.incrementAndGet();
                        }

                        @Override
                        public void recordConnectionUsageMillis(long ms) {
                            used.incrementAndGet();
                        }

                        @Override
                        public void recordConnectionTimeout() {
                            timeouts.incrementAndGet();
                        }
                    };
                }).build()) {
            Pool<Conn> pool = registry.pool("app", "alice");
            Lease<Conn> lease = pool.acquireAsync().toCompletableFuture().join();
            CompletableFuture<Lease<Conn>> waiting = pool.acquireAsync().toCompletableFuture();
            clock.advance(Duration.ofSeconds(1));
            registry.runJanitor();
            assertTrue(waiting.isCompletedExceptionally());
            lease.release();

            assertEquals("app/alice", poolName.get());
            assertEquals(1, created.get());
            assertEquals(1, acquired.get());
            assertEquals(1, used.get());
            assertEquals(1, timeouts.get());
            assertEquals(1, gauges.get().getTotalConnections());
            assertEquals(1, gauges.get().getMaxConnections());
            assertEquals(1, gauges.get().getMinConnections());
        }
    }

    @Test
    void serverSnapshotsShowEachServerInItsShowServersStateAndTheReconnectMark() throws Exception {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(2).build())
                .clock(clock).janitorPeriod(Duration.ZERO).build()) {
            Pool<Conn> pool = registry.pool("orders", "app");
            Lease<Conn> busy = pool.acquire();
            Lease<Conn> returned = pool.acquire();
            returned.release();
            java.util.Map<String, Long> states = new java.util.TreeMap<>();
            pool.view().serverSnapshots().forEach(s -> states.merge(s.state, 1L, Long::sum));
            assertEquals(java.util.Map.of("active", 1L, "idle", 1L), states);
            clock.advance(Duration.ofSeconds(31));
            assertTrue(pool.view().serverSnapshots().stream().anyMatch(s -> s.state.equals("used")),
                    "idle longer than server_check_delay is used");
            pool.softEvictConnections();
            assertEquals(1, pool.view().serverSnapshots().size(), "the idle one closed");
            assertTrue(pool.view().serverSnapshots().get(0).closeNeeded, "the busy one closes when released");
            assertEquals(busy.connection(), pool.view().serverSnapshots().get(0).connection);
            busy.release();
        }
    }

    @Test
    void showStatsAveragesDescribeTheLastStatsPeriod() {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .config(PoolConfig.jdbcDefaults().build()).clock(clock).janitorPeriod(Duration.ZERO)
                .statsPeriod(Duration.ofSeconds(10)).build()) {
            Pool<Conn> pool = registry.pool("app", "alice");
            for (int i = 0; i < 50; i++) {
                pool.traffic().recordTransaction(Duration.ofMillis(4).toNanos());
                pool.traffic().recordQuery(Duration.ofMillis(2).toNanos());
                pool.traffic().recordQuery(Duration.ofMillis(2).toNanos());
                pool.traffic().recordBytes(100, 1000);
            }
            clock.advance(Duration.ofSeconds(10));
            registry.runJanitor();
            assertEquals(5, pool.traffic().averages().xactCount, "50 transactions in 10 s");
            assertEquals(10, pool.traffic().averages().queryCount);
            assertEquals(4000, pool.traffic().averages().xactTimeMicros);
            assertEquals(2000, pool.traffic().averages().queryTimeMicros);
            assertEquals(500, pool.traffic().averages().received);
            assertEquals(5000, pool.traffic().averages().sent);
            assertEquals(100, pool.traffic().totals().queryCount);
        }
    }

    @Test
    void aClosedStatsPeriodReachesItsListenersSummedOverEveryPool() {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .config(PoolConfig.jdbcDefaults().build()).clock(clock).janitorPeriod(Duration.ZERO)
                .statsPeriod(Duration.ofSeconds(10)).build()) {
            List<TrafficStats.Period> closed = new ArrayList<>();
            registry.addStatsPeriodListener(closed::add);
            for (int i = 0; i < 20; i++) {
                registry.pool("app", "alice").traffic().recordTransaction(Duration.ofMillis(1).toNanos());
                registry.pool("app", "bob").traffic().recordTransaction(Duration.ofMillis(4).toNanos());
            }
            clock.advance(Duration.ofSeconds(5));
            registry.runJanitor();
            assertEquals(List.of(), closed, "the period has not ended");
            clock.advance(Duration.ofSeconds(5));
            registry.runJanitor();
            assertEquals(1, closed.size());
            assertEquals(4, closed.get(0).averages().xactCount, "40 transactions in 10 s");
            assertEquals(2500, closed.get(0).averages().xactTimeMicros);
            assertEquals(closed.get(0).averages().xactCount,
                    registry.pool("app", "alice").traffic().averages().xactCount * 2, "the pools' own periods closed too");
        }
    }
}
