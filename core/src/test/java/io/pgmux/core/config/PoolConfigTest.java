package io.pgmux.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolConfigTest {

    @Test
    void pgbouncerHikariAndPgmuxNamesSetTheSameSetting() {
        assertEquals(7, PoolConfig.jdbcDefaults().set("default_pool_size", "7").build().defaultPoolSize());
        assertEquals(7, PoolConfig.jdbcDefaults().set("maximumPoolSize", "7").build().defaultPoolSize());
        assertEquals(7, PoolConfig.jdbcDefaults().set("defaultPoolSize", "7").build().defaultPoolSize());
        assertEquals(3, PoolConfig.jdbcDefaults().set("minimumIdle", "3").build().minPoolSize());
    }

    @Test
    void bareNumbersAreSecondsUnderPgbouncerNamesAndMillisecondsUnderCamelCaseNames() {
        assertEquals(Duration.ofSeconds(5).toNanos(),
                PoolConfig.jdbcDefaults().set("query_wait_timeout", "5").build().queryWaitTimeoutNanos());
        assertEquals(Duration.ofMillis(5000).toNanos(),
                PoolConfig.jdbcDefaults().set("connectionTimeout", "5000").build().queryWaitTimeoutNanos());
        assertEquals(Duration.ofMillis(250).toNanos(),
                PoolConfig.jdbcDefaults().set("queryWaitTimeout", "250").build().queryWaitTimeoutNanos());
    }

    @Test
    void durationsAcceptUnitsFractionsAndIso8601() {
        assertEquals(Duration.ofMillis(500).toNanos(),
                PoolConfig.jdbcDefaults().set("reserve_pool_timeout", "0.5").build().reservePoolTimeoutNanos());
        assertEquals(Duration.ofMinutes(2).toNanos(),
                PoolConfig.jdbcDefaults().set("serverIdleTimeout", "2m").build().serverIdleTimeoutNanos());
        assertEquals(Duration.ofHours(1).toNanos(),
                PoolConfig.jdbcDefaults().set("maxLifetime", "PT1H").build().serverLifetimeNanos());
        assertEquals(Duration.ofMillis(1500).toNanos(),
                PoolConfig.jdbcDefaults().set("server_login_retry", "1500ms").build().serverLoginRetryNanos());
    }

    @Test
    void jdbcAndProxyDefaultsFollowHikariAndPgbouncerHabits() {
        PoolConfig jdbc = PoolConfig.jdbcDefaults().build();
        PoolConfig proxy = PoolConfig.proxyDefaults().build();
        assertEquals(PoolMode.TRANSACTION, jdbc.poolMode());
        assertEquals(PoolMode.SESSION, proxy.poolMode());
        assertEquals(Duration.ofSeconds(30).toNanos(), jdbc.queryWaitTimeoutNanos());
        assertEquals(Duration.ofSeconds(120).toNanos(), proxy.queryWaitTimeoutNanos());
        assertEquals(100, proxy.maxClientConn());
        assertEquals(20, jdbc.defaultPoolSize());
    }

    @Test
    void anUnknownNameIsRefusedWithTheNearestKnownName() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.jdbcDefaults().set("defualt_pool_size", "5"));
        assertEquals("defualt_pool_size", e.setting());
        assertTrue(e.getMessage().contains("did you mean 'default_pool_size'"), e.getMessage());
    }

    @Test
    void aMalformedNumberNamesTheSettingAndTheValue() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.jdbcDefaults().set("maximumPoolSize", "ten"));
        assertEquals("maximumPoolSize=ten: must be a whole number", e.getMessage());
    }

    @Test
    void aDurationWithAnUnknownUnitIsRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.jdbcDefaults().set("idleTimeout", "10 fortnights"));
        assertTrue(e.getMessage().contains("unknown unit 'fortnights'"), e.getMessage());
    }

    @Test
    void negativeSizesAreRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.jdbcDefaults().set("reserve_pool_size", "-1").build());
        assertEquals("reserve_pool_size=-1: must be at least 0", e.getMessage());
    }

    @Test
    void aPoolSizeOfZeroIsRefused() {
        assertThrows(ConfigException.class, () -> PoolConfig.jdbcDefaults().defaultPoolSize(0).build());
    }

    @Test
    void negativeDurationsAreRefusedShowingTheValueAsWritten() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.jdbcDefaults().set("server_lifetime", "-5").build());
        assertEquals("server_lifetime=-5: must not be negative (0 disables it)", e.getMessage());
    }

    @Test
    void minLargerThanPoolSizeIsRefusedNamingBothSettingsAsWritten() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.jdbcDefaults().set("minimumIdle", "30").set("maximumPoolSize", "10").build());
        assertTrue(e.getMessage().startsWith("minimumIdle=30 is larger than maximumPoolSize=10"), e.getMessage());
    }

    @Test
    void anUnknownPoolModeListsTheValidOnes() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> PoolConfig.proxyDefaults().set("pool_mode", "transactions"));
        assertTrue(e.getMessage().contains("session, transaction, statement"), e.getMessage());
    }

    @Test
    void resetOnReleaseAppliesToSessionModeOrWhenAskedAlways() {
        assertTrue(PoolConfig.proxyDefaults().poolMode(PoolMode.SESSION).build().resetOnRelease());
        assertFalse(PoolConfig.proxyDefaults().poolMode(PoolMode.TRANSACTION).build().resetOnRelease());
        assertTrue(PoolConfig.proxyDefaults().poolMode(PoolMode.TRANSACTION).serverResetQueryAlways(true).build()
                .resetOnRelease());
        assertFalse(PoolConfig.proxyDefaults().serverResetQuery("").build().resetOnRelease());
    }

    @Test
    void describeListsEverySettingUnderItsPgbouncerName() {
        Map<String, String> d = PoolConfig.proxyDefaults().build().describe();
        assertEquals("session", d.get("pool_mode"));
        assertEquals("120s", d.get("query_wait_timeout"));
        assertEquals("DISCARD ALL", d.get("server_reset_query"));
        assertEquals(ConfigKey.values().length, d.size());
    }

    @Test
    void toBuilderKeepsEveryValue() {
        PoolConfig c = PoolConfig.jdbcDefaults().defaultPoolSize(9).poolMode(PoolMode.STATEMENT).build();
        PoolConfig copy = c.toBuilder().build();
        assertEquals(c.describe(), copy.describe());
    }
}
