package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Pools made from the global settings with their database's and user's overrides on top. */
class PoolRegistryOverridesTest {

    private static PoolRegistry<Conn> registry(PoolConfig config, PoolOverrides overrides) {
        return PoolRegistry.<Conn>builder().connector(new FakeConnector()).config(config).overrides(overrides)
                .janitorPeriod(Duration.ZERO).build();
    }

    @Test
    void aPoolTakesItsDatabasesAndUsersSettings() {
        PoolOverrides o = PoolOverrides.builder().database("app", "default_pool_size", "2")
                .database("app", "pool_mode", "transaction").user("batch", "pool_mode", "session").build();
        try (PoolRegistry<Conn> r = registry(PoolConfig.proxyDefaults().defaultPoolSize(10).build(), o)) {
            assertEquals(2, r.pool("app", "web").config().defaultPoolSize());
            assertEquals(PoolMode.TRANSACTION, r.pool("app", "web").config().poolMode());
            assertEquals(PoolMode.SESSION, r.pool("app", "batch").config().poolMode());
            assertEquals(10, r.pool("reports", "web").config().defaultPoolSize());
        }
    }

    @Test
    void aDatabasesPoolSizeCapsItsServerConnections() throws Exception {
        PoolOverrides o = PoolOverrides.builder().database("small", "default_pool_size", "1").build();
        try (PoolRegistry<Conn> r = registry(PoolConfig.proxyDefaults().defaultPoolSize(5)
                .queryWaitTimeout(Duration.ofMillis(50)).build(), o)) {
            Lease<Conn> first = r.pool("small", "u").acquire();
            assertThrows(PoolTimeoutException.class, () -> r.pool("small", "u").acquire());
            Lease<Conn> other1 = r.pool("big", "u").acquire();
            Lease<Conn> other2 = r.pool("big", "u").acquire();
            assertEquals(2, r.pool("big", "u").getTotalConnections());
            first.release();
            other1.release();
            other2.release();
        }
    }

    @Test
    void reconfigureKeepsOverridesOnTopOfTheNewGlobals() {
        PoolOverrides o = PoolOverrides.builder().database("app", "default_pool_size", "2").build();
        try (PoolRegistry<Conn> r = registry(PoolConfig.proxyDefaults().defaultPoolSize(10).build(), o)) {
            Pool<Conn> app = r.pool("app", "u");
            Pool<Conn> other = r.pool("other", "u");
            r.reconfigure(PoolConfig.proxyDefaults().defaultPoolSize(30).poolMode(PoolMode.TRANSACTION).build());
            assertEquals(2, app.config().defaultPoolSize(), "the database's own pool_size stays");
            assertEquals(PoolMode.TRANSACTION, app.config().poolMode(), "what it does not set follows the reload");
            assertEquals(30, other.config().defaultPoolSize());
        }
    }

    @Test
    void reconfigureWithNewOverridesAppliesThemToExistingPools() {
        try (PoolRegistry<Conn> r = registry(PoolConfig.proxyDefaults().build(), PoolOverrides.none())) {
            Pool<Conn> app = r.pool("app", "u");
            r.reconfigure(r.config(), PoolOverrides.builder().database("app", "default_pool_size", "3").build());
            assertEquals(3, app.config().defaultPoolSize());
        }
    }

    /** As PgBouncer: a database's (or the global) min_pool_size above a pool's size keeps the pool at its size. */
    @Test
    void aMinPoolSizeAboveAPoolsSizeKeepsThePoolAtItsSize() {
        PoolOverrides o = PoolOverrides.builder().database("app", "min_pool_size", "3")
                .user("batch", "default_pool_size", "2").build();
        try (PoolRegistry<Conn> r = registry(PoolConfig.proxyDefaults().build(), o)) {
            Pool<Conn> batch = r.pool("app", "batch");
            batch.ensureMin();
            assertEquals(2, batch.getTotalConnections());
            Pool<Conn> web = r.pool("app", "web");
            web.ensureMin();
            assertEquals(3, web.getTotalConnections());
        }
    }

    @Test
    void aReloadThatDoesNotFitTheOverridesChangesNothing() {
        PoolOverrides o = PoolOverrides.builder().database("app", "server_connect_timeout", "5").build();
        try (PoolRegistry<Conn> r = registry(PoolConfig.proxyDefaults().defaultPoolSize(10).build(), o)) {
            Pool<Conn> other = r.pool("other", "u");
            assertThrows(ConfigException.class, () -> r.reconfigure(PoolConfig.proxyDefaults().defaultPoolSize(4)
                    .build(), PoolOverrides.builder().database("app", "default_pool_size", "0").build()));
            assertEquals(10, other.config().defaultPoolSize());
            assertEquals(10, r.config().defaultPoolSize());
        }
    }
}
