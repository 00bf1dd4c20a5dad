package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A client that goes away while it waits for a server connection: the server handed to it later, on its own event
 * loop, goes back to the pool, and the loop serves the other clients on. The fuzz test of the client-facing
 * protocol found the loop spinning for ever in the pool's hand-off instead.
 */
@PostgresTest
class ClientGoneWhileWaitingTest {
    private final TestDatabase db;

    ClientGoneWhileWaitingTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void aServerHandedToAClientGoneWhileWaitingGoesBackAndItsEventLoopServesOthers() throws Exception {
        // one event loop: the hand-off to the waiting client runs on the loop of the client that releases
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.threads(1).defaultPoolSize(1)
                        // the janitor serves waiters too, and would end the spin by chance
                        .janitorPeriod(Duration.ofHours(1)));
                RawClient holder = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            holder.query("BEGIN");
            holder.readUntilReady();
            try (RawClient waiting = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                waiting.query("SELECT 1");
                ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            }
            Await.equal(1, proxy::clientCount, Duration.ofSeconds(10), "the waiting client gone");
            holder.query("COMMIT");
            holder.readUntilReady();
            try (RawClient next = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                next.readTimeout(5_000);
                next.query("SELECT 2");
                assertEquals("2", RawClient.firstColumn(next.readUntilReady()));
            }
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
        }
    }
}
