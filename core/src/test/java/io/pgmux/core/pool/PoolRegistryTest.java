package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Looking up the pools of a registry, and what its listener hears of them. */
class PoolRegistryTest {

    @Test
    void findReturnsAnExistingPoolAndNeverCreatesOne() {
        try (PoolRegistry<Conn> r = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .config(PoolConfig.proxyDefaults().build()).janitorPeriod(Duration.ZERO).build()) {
            assertTrue(r.find("app", "u").isEmpty());
            assertEquals(0, r.pools().size());
            Pool<Conn> app = r.pool("app", "u");
            assertSame(app, r.find("app", "u").orElseThrow());
            assertTrue(r.find("app", "other").isEmpty());
            assertEquals(1, r.pools().size());
        }
    }

    @Test
    void theListenerHearsOfAPoolBeforeItsFirstServerAndOfItsRemovalAndTheRegistrysClose() {
        FakeConnector connector = new FakeConnector();
        List<String> heard = new ArrayList<>();
        PoolListener<Conn> listener = new PoolListener<>() {
            @Override
            public void created(Pool<Conn> pool) {
                heard.add("created " + pool.key().database() + " after " + connector.opened.get() + " servers");
            }

            @Override
            public void removed(Pool<Conn> pool) {
                heard.add("removed " + pool.key().database());
            }
        };
        try (PoolRegistry<Conn> r = PoolRegistry.<Conn>builder().connector(connector)
                .config(PoolConfig.proxyDefaults().minPoolSize(1).build()).janitorPeriod(Duration.ZERO)
                .listener(listener).build()) {
            r.removePool(r.pool("gone", "u"));
            r.pool("kept", "u");
        }
        assertEquals(List.of("created gone after 0 servers", "removed gone", "created kept after 1 servers",
                "removed kept"), heard);
    }
}
