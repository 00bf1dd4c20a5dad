package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With no client connected the janitor sleeps its quiet period (10 s here: server_check_delay off leaves
 * stats_period's 60 s, five passes of which are above the 10-s bound), and the first client to connect wakes it:
 * client_login_timeout still ends a client that never logs in after the timeout and one pass, not after the
 * quiet period.
 */
@PostgresTest
class QuietJanitorTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    QuietJanitorTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void theFirstClientOfAnIdleProxyIsTimedOutAfterClientLoginTimeoutNotTheQuietPeriod() throws Exception {
        // the fixture's fixed janitor period would keep the janitor from ever sleeping: the settings' own here
        proxy = PgMuxProxy.builder().listen("127.0.0.1", 0).database(db.name(), ProxyFixture.serverUrl(db))
                .poolMode(PoolMode.TRANSACTION).authType(AuthType.TRUST).users(Map.of("raw", ""))
                .clientLoginTimeout(Duration.ofSeconds(1)).set("server_check_delay", "0").threads(1).start();
        // the janitor's first pass, a third of a second in, finds no client and sleeps the quiet period
        Thread.sleep(1_500);
        long start = System.nanoTime();
        try (RawClient idle = new RawClient(proxy.port())) {
            List<RawClient.Message> messages = idle.readUntilClosed();
            assertEquals("client_login_timeout", messages.get(0).field('M'));
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0,
                "client_login_timeout (1 s) fired after " + took.toMillis() + " ms: the janitor slept on");
    }
}
