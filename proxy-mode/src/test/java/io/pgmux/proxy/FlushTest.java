package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A Flush asks only for what is owed: it neither pins a server in transaction mode nor stops the client's timeouts. */
@PostgresTest
class FlushTest {
    private static final byte[] FLUSH_THEN_SELECT = RawClient.concat(RawClient.frame('H', new byte[0]),
            RawClient.frame('Q', RawClient.cstring("SELECT 1")));

    private final TestDatabase db;

    FlushTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void aFlushBeforeAQueryLeavesTheServerToThePoolAtItsReadyForQuery() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN));
                RawClient c = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            c.sendRaw(FLUSH_THEN_SELECT);
            assertEquals("1", RawClient.firstColumn(c.readUntilReady()));
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
            c.query("SELECT 2");
            assertEquals("2", RawClient.firstColumn(c.readUntilReady()));
        }
    }

    @Test
    void aFlushAloneTakesNoServerAndKeepsTheClientIdle() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN)
                        .clientIdleTimeout(Duration.ofSeconds(1)));
                RawClient c = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            c.send('H', new byte[0]);
            List<RawClient.Message> last = c.readUntilClosed();
            assertEquals("client_idle_timeout", last.get(0).field('M'));
            assertEquals(0, ProxyFixture.pool(proxy, db).getActiveConnections());
        }
    }

    @Test
    void clientIdleTimeoutEndsAClientIdleAfterAFlushAndAQuery() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN)
                        .clientIdleTimeout(Duration.ofSeconds(1)));
                RawClient c = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            c.sendRaw(FLUSH_THEN_SELECT);
            c.readUntilReady();
            List<RawClient.Message> last = c.readUntilClosed();
            assertEquals("client_idle_timeout", last.get(0).field('M'));
        }
    }

    @Test
    void idleTransactionTimeoutEndsAClientIdleInATransactionOpenedAfterAFlush() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN)
                        .idleTransactionTimeout(Duration.ofSeconds(1)));
                RawClient c = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            c.sendRaw(RawClient.concat(RawClient.frame('H', new byte[0]),
                    RawClient.frame('Q', RawClient.cstring("BEGIN"))));
            c.readUntilReady();
            List<RawClient.Message> last = c.readUntilClosed();
            assertEquals("idle transaction timeout", last.get(0).field('M'));
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
        }
    }
}
