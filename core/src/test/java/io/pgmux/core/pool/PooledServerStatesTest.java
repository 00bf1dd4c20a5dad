package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A pooled server's states as one machine: every change a transition from the state it was in, CLOSING final. */
class PooledServerStatesTest {
    private final FakeConnector connector = new FakeConnector();
    private final PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(connector)
            .config(PoolConfig.jdbcDefaults().defaultPoolSize(1).build()).janitorPeriod(Duration.ZERO).build();
    private final Pool<Conn> pool = registry.pool("app", "alice");

    @AfterEach
    void closeRegistry() {
        registry.close();
    }

    @Test
    void aServerClosedWhileLentIsClosedOnceWhenItsClientGivesItBack() throws InterruptedException {
        Lease<Conn> lease = pool.acquire();
        pool.closeNow();
        assertTrue(lease.connection().closed, "closeNow closes the servers in use too");

        lease.release();
        assertEquals(1, connector.closedCount.get(), "the connector closed it once");
        assertEquals(0, pool.getTotalConnections());
    }

    @Test
    void noTransitionLeavesClosing() {
        PooledServer<Conn> s = new PooledServer<>(pool, 0);
        assertFalse(s.to(PooledServer.IDLE, PooledServer.ACTIVE), "a server logging in is not idle");
        assertTrue(s.to(PooledServer.LOGIN, PooledServer.ACTIVE));
        assertTrue(s.to(PooledServer.ACTIVE, PooledServer.CLOSING));
        assertFalse(s.to(PooledServer.ACTIVE, PooledServer.IDLE), "a holder's late give-back fails");
        assertThrows(AssertionError.class, () -> s.to(PooledServer.CLOSING, PooledServer.IDLE));
        assertEquals(PooledServer.CLOSING, s.state());
    }
}
