package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.FakeConnector.Conn;
import io.pgmux.core.stats.PoolSnapshot;
import io.pgmux.core.stats.TrafficStats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The MXBean's figures, read from counters and one pass over the servers, agree with SHOW POOLS. */
class PoolViewTest {
    private final ManualClock clock = new ManualClock();
    private final FakeConnector connector = new FakeConnector();
    private PoolRegistry<Conn> registry;

    @AfterEach
    void closeRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    private PoolConfig.Builder settings() {
        return PoolConfig.jdbcDefaults().serverCheckDelay(Duration.ofSeconds(30))
                .serverIdleTimeout(Duration.ofHours(1));
    }

    private Pool<Conn> pool(PoolConfig config) {
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        return registry.pool("app", "alice");
    }

    private static Lease<Conn> now(CompletionStage<Lease<Conn>> stage) {
        CompletableFuture<Lease<Conn>> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "expected a connection at once");
        return f.join();
    }

    private static void assertGettersMatch(PoolSnapshot row, Pool<Conn> pool) {
        assertEquals(row.svActive + row.svTested, pool.getActiveConnections(), "active");
        assertEquals(row.svIdle + row.svUsed, pool.getIdleConnections(), "idle");
        assertEquals(row.svTotal(), pool.getTotalConnections(), "total");
        assertEquals(row.svTested, pool.getServersTested(), "tested");
        assertEquals(row.svLogin, pool.getServersLogin(), "login");
        assertEquals(row.clWaiting, pool.getThreadsAwaitingConnection(), "waiting");
        assertEquals(row.clActive, pool.getClientsActive(), "clients active");
        assertEquals(row.maxwait * 1_000_000 + row.maxwaitUs, pool.getMaxWaitMicros(), "maxwait");
        assertEquals(row.poolMode, pool.getPoolMode(), "pool mode");
    }

    @Test
    void serverFiguresMatchShowPoolsWithAServerInEachState() {
        PoolConfig config = settings().defaultPoolSize(5).poolMode(PoolMode.SESSION).build();
        Pool<Conn> pool = pool(config);
        Lease<Conn> active = now(pool.acquireAsync());
        Lease<Conn> resetting = now(pool.acquireAsync());
        Lease<Conn> used = now(pool.acquireAsync());
        Lease<Conn> idle = now(pool.acquireAsync());
        used.release();
        connector.holdLogins = true;
        registry.reconfigure(config.toBuilder().minPoolSize(5).build());
        registry.runJanitor();
        // past server_check_delay, and no janitor run since to check it in the background
        clock.advance(Duration.ofSeconds(31));
        idle.release();
        connector.holdResets = true;
        resetting.release();

        PoolSnapshot row = pool.view().snapshot();
        assertEquals(1, row.svActive);
        assertEquals(1, row.svIdle);
        assertEquals(1, row.svUsed);
        assertEquals(1, row.svTested);
        assertEquals(1, row.svLogin);
        assertGettersMatch(row, pool);
        assertFalse(active.isEnded());
    }

    @Test
    void clientFiguresMatchShowPoolsWithClientsWaiting() {
        Pool<Conn> pool = pool(settings().defaultPoolSize(1).build());
        for (int i = 0; i < 3; i++) {
            registry.admitClient(pool, false);
        }
        now(pool.acquireAsync());
        pool.acquireAsync();
        clock.advance(Duration.ofMillis(1_500));
        pool.acquireAsync();
        clock.advance(Duration.ofMillis(250));

        PoolSnapshot row = pool.view().snapshot();
        assertEquals(2, row.clWaiting);
        assertEquals(1, row.clActive);
        assertEquals(1_750_000, row.maxwait * 1_000_000 + row.maxwaitUs);
        assertGettersMatch(row, pool);
    }

    @Test
    void trafficFiguresMatchShowStatsTotals() {
        Pool<Conn> pool = pool(settings().defaultPoolSize(1).build());
        Lease<Conn> first = now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        clock.advance(Duration.ofSeconds(2));
        first.release();
        now(waiting).release();
        pool.traffic().recordTransaction(5_000);
        pool.traffic().recordQuery(1_000);
        pool.traffic().recordQuery(2_000);

        TrafficStats.Totals totals = pool.traffic().totals();
        assertEquals(1, pool.getTransactionCount());
        assertEquals(totals.xactCount, pool.getTransactionCount());
        assertEquals(2, pool.getQueryCount());
        assertEquals(totals.queryCount, pool.getQueryCount());
        assertEquals(2_000_000, pool.getTotalWaitTimeMicros());
        assertEquals(totals.waitTimeMicros, pool.getTotalWaitTimeMicros());
    }
}
