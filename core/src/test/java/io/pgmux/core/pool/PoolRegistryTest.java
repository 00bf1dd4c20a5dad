package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Looking up the pools of a registry. */
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
}
