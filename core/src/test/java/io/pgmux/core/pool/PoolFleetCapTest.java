package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

/** A pool held to its fleet's share: no server opens above the cap, and a lower cap closes the surplus. */
class PoolFleetCapTest {
    private final FakeConnector connector = new FakeConnector();
    private final PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(connector)
            .config(PoolConfig.jdbcDefaults().defaultPoolSize(10).queryWaitTimeout(Duration.ofMillis(200)).build())
            .janitorPeriod(Duration.ZERO).build();
    private final Pool<Conn> pool = registry.pool("app", "alice");

    @AfterEach
    void close() {
        registry.close();
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

    private List<Lease<Conn>> borrow(int n) throws Exception {
        List<Lease<Conn>> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            held.add(pool.acquire(1, TimeUnit.SECONDS));
        }
        return held;
    }
}
