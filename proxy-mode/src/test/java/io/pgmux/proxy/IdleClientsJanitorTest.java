package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The janitor as the proxy times it, with idle clients connected under PgBouncer's defaults, which set no client
 * timeout: nothing can be due for them, so it sleeps its quiet period (6 s) as with no client; a client timeout set
 * meanwhile wakes it, and ends them in its own time rather than after that sleep.
 */
@PostgresTest
class IdleClientsJanitorTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    IdleClientsJanitorTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aClientIdleTimeoutSetWhileTheJanitorSleepsEndsAnIdleClientInItsTime() throws Exception {
        proxy = PgMuxProxy.builder()
                .listen("127.0.0.1", 0)
                .database(db.name(), ProxyFixture.serverUrl(db))
                .poolMode(PoolMode.TRANSACTION)
                .authType(AuthType.MD5)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(1)
                .start();
        try (RawClient idle = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            // the janitor's pass after the login (within its period of 1 s) finds nothing due, and sleeps
            Thread.sleep(1_500);
            proxy.set(ProxySetting.CLIENT_IDLE_TIMEOUT, "1");
            idle.readTimeout(3_000);
            List<RawClient.Message> last = idle.readUntilClosed();
            assertTrue(last.stream().anyMatch(m -> m.type() == 'E' && m.text().contains("client_idle_timeout")),
                    RawClient.types(last));
        }
    }
}
