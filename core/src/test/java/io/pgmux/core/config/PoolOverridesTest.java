package io.pgmux.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PoolOverridesTest {
    private final PoolConfig global = PoolConfig.proxyDefaults().defaultPoolSize(20).build();

    @Test
    void databaseSettingsApplyToEveryPoolOfThatDatabaseOnly() {
        PoolOverrides o = PoolOverrides.builder().database("app", "default_pool_size", "5")
                .database("app", "pool_mode", "transaction").build();
        PoolConfig app = o.apply(global, "app", "alice");
        assertEquals(5, app.defaultPoolSize());
        assertEquals(PoolMode.TRANSACTION, app.poolMode());
        assertSame(global, o.apply(global, "other", "alice"), "nothing differs for another database");
    }

    @Test
    void userSettingsWinOverTheirDatabasesAsInPgBouncer() {
        PoolOverrides o = PoolOverrides.builder().database("app", "pool_mode", "transaction")
                .database("app", "default_pool_size", "5").user("batch", "pool_mode", "session").build();
        PoolConfig c = o.apply(global, "app", "batch");
        assertEquals(PoolMode.SESSION, c.poolMode());
        assertEquals(5, c.defaultPoolSize(), "what the user does not set comes from the database");
    }

    @Test
    void aUsersOwnSettingsAreReadWhileDatabasesHaveSettingsOfTheirOwn() {
        PoolOverrides o = PoolOverrides.builder().database("app", "default_pool_size", "5")
                .database("other", "pool_mode", "session").build();
        assertSame(global, o.forUser(global, "alice"), "SHOW USERS of a user without settings of its own");
    }

    @Test
    void theLastValueOfASettingWinsWhicheverNameItCameUnder() {
        PoolOverrides o = PoolOverrides.builder().database("app", "reserve_pool_size", "3")
                .database("app", "reservePoolSize", "4").build();
        assertEquals(4, o.apply(global, "app", "u").reservePoolSize());
    }

    @Test
    void unknownSettingIsRefusedNamingItsOwnerAndTheNearestName() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolOverrides.builder().database("app", "min_pool_sise", "1"));
        assertEquals("database app: unknown pool setting 'min_pool_sise'; did you mean 'min_pool_size'?",
                e.getMessage());
    }

    @Test
    void malformedValueIsRefusedNamingItsOwner() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolOverrides.builder().user("bob", "max_user_connections", "many"));
        assertEquals("user bob: max_user_connections=many: must be a whole number", e.getMessage());
    }

    @Test
    void poolerWideAndOtherOwnersLimitsAreRefused() {
        assertThrows(ConfigException.class, () -> PoolOverrides.builder().database("app", "max_client_conn", "5"));
        assertThrows(ConfigException.class,
                () -> PoolOverrides.builder().database("app", "max_user_connections", "5"));
        assertThrows(ConfigException.class, () -> PoolOverrides.builder().user("bob", "max_db_connections", "5"));
    }

    @Test
    void validateRefusesACombinationThatCannotWorkNamingDatabaseAndUser() {
        PoolOverrides o = PoolOverrides.builder().database("app", "min_pool_size", "4")
                .user("bob", "default_pool_size", "2").build();
        ConfigException e = assertThrows(ConfigException.class,
                () -> o.validate(PoolConfig.jdbcDefaults().defaultPoolSize(20).build()));
        assertEquals("database app, user bob: min_pool_size=4 is larger than default_pool_size=2: the pool cannot "
                + "keep more connections than it may open", e.getMessage());
    }

    @Test
    void theProxyTakesAMinPoolSizeAboveAPoolsSizeAsPgBouncerDoes() {
        PoolOverrides o = PoolOverrides.builder().database("app", "min_pool_size", "4")
                .user("bob", "default_pool_size", "2").build();
        o.validate(global);
        assertEquals(4, o.apply(global, "app", "bob").minPoolSize());
    }
}
