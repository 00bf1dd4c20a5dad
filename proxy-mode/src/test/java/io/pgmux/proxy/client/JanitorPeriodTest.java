package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolOverrides;
import io.pgmux.proxy.config.ProxySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How often the janitor runs: five passes in the shortest timeout set (globally or by a [databases] or [users]
 * entry), between 333 ms and 1 s; with no client connected, five in the shortest of those that run then, at most
 * every 10 s.
 */
class JanitorPeriodTest {

    private static ProxySettings settings(String... namesAndValues) {
        ProxySettings.Builder builder = ProxySettings.builder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            builder.set(namesAndValues[i], namesAndValues[i + 1], Path.of("."));
        }
        return builder.build();
    }

    private static Duration period(ProxySettings settings) {
        return JanitorPeriod.of(settings, PoolOverrides.none(), List.of());
    }

    @Test
    void withTheDefaultSettingsTheJanitorRunsOnceASecond() {
        assertEquals(Duration.ofSeconds(1), period(settings()));
    }

    @Test
    void aShortClientTimeoutMakesItRunFiveTimesInTheTimeout() {
        assertEquals(Duration.ofMillis(400), period(settings("client_idle_timeout", "2")));
    }

    @Test
    void queryWaitNotifyCountsAsATimeout() {
        assertEquals(Duration.ofMillis(600), period(settings("query_wait_notify", "3")));
    }

    @Test
    void aPoolTimeoutCounts() {
        assertEquals(Duration.ofMillis(400), period(settings("query_wait_timeout", "2")));
    }

    @Test
    void theReserveTimeoutCountsOnlyWithAReserve() {
        assertEquals(Duration.ofSeconds(1), period(settings("reserve_pool_timeout", "2")));
        assertEquals(Duration.ofMillis(400), period(
                settings("reserve_pool_timeout", "2", "reserve_pool_size", "1")));
    }

    @Test
    void aUsersOwnClientTimeoutCounts() {
        ClientTimeouts.Limits own = new ClientTimeouts.Limits(Duration.ZERO, Duration.ofSeconds(2), Duration.ZERO,
                Duration.ZERO);
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(settings(), PoolOverrides.none(), List.of(own)));
    }

    @Test
    void aDatabasesOwnPoolTimeoutCounts() {
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(settings(),
                PoolOverrides.builder().database("quick", "query_wait_timeout", "2").build(), List.of()));
    }

    @Test
    void aUsersOwnPoolTimeoutCounts() {
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(settings(),
                PoolOverrides.builder().user("batch", "query_wait_timeout", "2").build(), List.of()));
    }

    @Test
    void itNeverRunsMoreOftenThanThreeTimesASecond() {
        assertEquals(Duration.ofMillis(333), period(settings("query_timeout", "1")));
    }

    @Test
    void withNoClientAndTheDefaultSettingsItRunsEverySixSeconds() {
        assertEquals(Duration.ofSeconds(6), JanitorPeriod.quiet(settings(), PoolOverrides.none()));
    }

    @Test
    void withNoClientAClientTimeoutDoesNotCount() {
        assertEquals(Duration.ofSeconds(6), JanitorPeriod.quiet(
                settings("client_login_timeout", "1", "query_wait_notify", "1", "query_wait_timeout", "1"),
                PoolOverrides.none()));
    }

    @Test
    void withNoClientAnIdleServersTimeoutCounts() {
        assertEquals(Duration.ofSeconds(2), JanitorPeriod.quiet(settings("server_idle_timeout", "10"),
                PoolOverrides.none()));
        assertEquals(Duration.ofSeconds(2), JanitorPeriod.quiet(settings(),
                PoolOverrides.builder().database("quick", "server_lifetime", "10").build()));
    }

    @Test
    void withNoClientTheStatsPeriodCounts() {
        assertEquals(Duration.ofSeconds(1), JanitorPeriod.quiet(settings("stats_period", "5"), PoolOverrides.none()));
    }

    @Test
    void withNoClientItRunsAtLeastEveryTenSeconds() {
        assertEquals(Duration.ofSeconds(10), JanitorPeriod.quiet(settings("server_check_delay", "0"),
                PoolOverrides.none()));
    }
}
