package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pool held to its fleet's share: no server opens above the cap, a lower cap closes the surplus, and a share not
 * renewed in time falls to the fenced cap.
 */
class PoolFleetCapTest {
    private final FakeConnector connector = new FakeConnector();
    private final PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(connector)
            .config(PoolConfig.jdbcDefaults().defaultPoolSize(10).queryWaitTimeout(Duration.ofMillis(200)).build())
            .janitorPeriod(Duration.ZERO).build();
    private final Pool<Conn> pool = registry.pool("app", "alice");
    /** A pool on a clock the fence tests move. */
    private final ManualClock clock = new ManualClock();
    private final FakeConnector clockedConnector = new FakeConnector();
    private final PoolRegistry<Conn> clockedRegistry = PoolRegistry.<Conn>builder().connector(clockedConnector)
            .config(PoolConfig.jdbcDefaults().defaultPoolSize(10).build()).clock(clock)
            .janitorPeriod(Duration.ZERO).build();
    private final Pool<Conn> clocked = clockedRegistry.pool("app", "alice");

    @AfterEach
    void close() {
        registry.close();
        clockedRegistry.close();
    }

    @Test
    void noServerOpensAboveTheCap() throws Exception {
        pool.fleetCap(3);
        List<Lease<Conn>> held = borrow(3);
        assertThrows(PoolTimeoutException.class, () -> pool.acquire(100, TimeUnit.MILLISECONDS));
        assertEquals(3, connector.live());
        held.forEach(Lease::release);
    }

    @Test
    void aLowerCapClosesIdleServersAboveItAtOnce() throws Exception {
        borrow(6).forEach(Lease::release);
        assertEquals(6, connector.live());
        pool.fleetCap(2);
        assertEquals(2, connector.live());
    }

    @Test
    void aLowerCapClosesServersInUseAboveItAsTheyComeBack() throws Exception {
        List<Lease<Conn>> held = borrow(5);
        pool.fleetCap(2);
        assertEquals(5, connector.live());
        held.forEach(Lease::release);
        assertEquals(2, connector.live());
    }

    @Test
    void aHigherCapServesTheClientsWaiting() throws Exception {
        pool.fleetCap(1);
        List<Lease<Conn>> held = borrow(1);
        CompletableFuture<Lease<Conn>> waiting = pool.acquireAsync().toCompletableFuture();
        pool.fleetCap(2);
        held.add(waiting.get(1, TimeUnit.SECONDS));
        assertEquals(2, connector.live());
        held.forEach(Lease::release);
    }

    @Test
    void aShareNotRenewedWithinItsBoundClosesIdleServersAboveTheFencedCap() throws Exception {
        clocked.fleetCap(6, Duration.ofSeconds(3).toNanos(), 2);
        borrow(clocked, 6).forEach(Lease::release);
        clock.advance(Duration.ofSeconds(3));
        clockedRegistry.runJanitor();
        assertEquals(2, clockedConnector.live());
    }

    @Test
    void aShareNotRenewedWithinItsBoundOpensNoServerAboveTheFencedCap() throws Exception {
        clocked.fleetCap(6, Duration.ofSeconds(3).toNanos(), 2);
        clock.advance(Duration.ofSeconds(3));
        List<Lease<Conn>> held = borrow(clocked, 2);
        CompletableFuture<Lease<Conn>> third = clocked.acquireAsync().toCompletableFuture();
        assertFalse(third.isDone());
        assertEquals(2, clockedConnector.live());
        held.forEach(Lease::release);
        third.get(1, TimeUnit.SECONDS).release();
    }

    @Test
    void aRenewedShareLiftsTheFence() throws Exception {
        clocked.fleetCap(6, Duration.ofSeconds(3).toNanos(), 2);
        clock.advance(Duration.ofSeconds(3));
        clocked.fleetCap(6, Duration.ofSeconds(3).toNanos(), 2);
        List<Lease<Conn>> held = borrow(clocked, 6);
        assertEquals(6, clockedConnector.live());
        held.forEach(Lease::release);
    }

    private List<Lease<Conn>> borrow(int n) throws Exception {
        return borrow(pool, n);
    }

    private static List<Lease<Conn>> borrow(Pool<Conn> from, int n) throws Exception {
        List<Lease<Conn>> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            held.add(from.acquire(1, TimeUnit.SECONDS));
        }
        return held;
    }
}
