package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.proxy.config.ProxySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How often the janitor runs: five passes in the shortest timeout set, between 333 ms and 1 s. */
class JanitorPeriodTest {

    private static ProxySettings settings(String... namesAndValues) {
        ProxySettings.Builder builder = ProxySettings.builder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            builder.set(namesAndValues[i], namesAndValues[i + 1], Path.of("."));
        }
        return builder.build();
    }

    @Test
    void withTheDefaultSettingsTheJanitorRunsOnceASecond() {
        assertEquals(Duration.ofSeconds(1), JanitorPeriod.of(settings(), List.of()));
    }

    @Test
    void aShortClientTimeoutMakesItRunFiveTimesInTheTimeout() {
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(settings("client_idle_timeout", "2"), List.of()));
    }

    @Test
    void queryWaitNotifyCountsAsATimeout() {
        assertEquals(Duration.ofMillis(600), JanitorPeriod.of(settings("query_wait_notify", "3"), List.of()));
    }

    @Test
    void aPoolTimeoutCounts() {
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(settings("query_wait_timeout", "2"), List.of()));
    }

    @Test
    void theReserveTimeoutCountsOnlyWithAReserve() {
        assertEquals(Duration.ofSeconds(1), JanitorPeriod.of(settings("reserve_pool_timeout", "2"), List.of()));
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(
                settings("reserve_pool_timeout", "2", "reserve_pool_size", "1"), List.of()));
    }

    @Test
    void aUsersOwnClientTimeoutCounts() {
        ClientTimeouts.Limits own = new ClientTimeouts.Limits(Duration.ZERO, Duration.ofSeconds(2), Duration.ZERO,
                Duration.ZERO);
        assertEquals(Duration.ofMillis(400), JanitorPeriod.of(settings(), List.of(own)));
    }

    @Test
    void itNeverRunsMoreOftenThanThreeTimesASecond() {
        assertEquals(Duration.ofMillis(333), JanitorPeriod.of(settings("query_timeout", "1"), List.of()));
    }
}
