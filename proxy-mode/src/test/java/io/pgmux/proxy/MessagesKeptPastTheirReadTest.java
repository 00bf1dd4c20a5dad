package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Messages the proxy keeps after the read that brought them, each sent in a read of its own: the client decoder hands
 * such a read over in a holder it reuses for the next one, so whatever keeps a message must keep it whole. Two event
 * loops, so that the server a client gets may be on the other.
 */
@PostgresTest
class MessagesKeptPastTheirReadTest {
    /** Long enough for the proxy to take each write as a read of its own. */
    private static final long BETWEEN_WRITES_MILLIS = 30;

    private final TestDatabase db;
    private PgMuxProxy proxy;

    MessagesKeptPastTheirReadTest(TestDatabase db) {
        this.db = db;
    }

    private void start(int poolSize) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(poolSize).threads(2));
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void requestsSentOneReadAtATimeWhileTheClientWaitsReachItsServerIntact() throws Exception {
        start(1);
        try (RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
                Connection holder = ProxyFixture.connect(proxy, db)) {
            client.readTimeout(10_000);
            holder.setAutoCommit(false);
            Sql.value(holder, "SELECT 1");
            client.query("SELECT 1");
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            client.query("SELECT 2");
            pause();
            client.parse("", "SELECT 3");
            pause();
            client.bind("");
            pause();
            client.execute();
            pause();
            client.sync();
            pause();
            holder.commit();

            assertEquals("1", RawClient.firstColumn(client.readUntilReady()));
            assertEquals("2", RawClient.firstColumn(client.readUntilReady()));
            List<RawClient.Message> extended = client.readUntilReady();
            assertEquals("12DCZ", RawClient.types(extended));
            assertEquals("3", RawClient.firstColumn(extended));
        }
    }

    /**
     * A client keeps one holder of its own for what it sends while it waits and reuses it from wait to wait: each wait
     * sends the requests of that wait, a Query and a batch in one write each, whichever came first.
     */
    @Test
    void aClientThatWaitsAgainAndAgainSendsEachTimeWhatItSentThen() throws Exception {
        start(1);
        try (RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
                Connection holder = ProxyFixture.connect(proxy, db)) {
            client.readTimeout(10_000);
            holder.setAutoCommit(false);
            for (int wait = 1; wait <= 4; wait++) {
                Sql.value(holder, "SELECT 1");
                boolean queryFirst = wait % 2 == 1;
                if (queryFirst) {
                    client.query("SELECT " + wait);
                } else {
                    client.sendRaw(batch("SELECT " + (100 + wait)));
                }
                ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
                pause();
                if (queryFirst) {
                    client.sendRaw(batch("SELECT " + (100 + wait)));
                } else {
                    client.query("SELECT " + wait);
                }
                pause();
                holder.commit();

                List<RawClient.Message> first = client.readUntilReady();
                List<RawClient.Message> second = client.readUntilReady();
                List<RawClient.Message> query = queryFirst ? first : second;
                List<RawClient.Message> batch = queryFirst ? second : first;
                assertEquals(String.valueOf(wait), RawClient.firstColumn(query));
                assertEquals("12DCZ", RawClient.types(batch));
                assertEquals(String.valueOf(100 + wait), RawClient.firstColumn(batch));
            }
        }
    }

    /** Parse, Bind, Execute and Sync of {@code sql} in one write, which the proxy reads as one run. */
    private static byte[] batch(String sql) {
        return RawClient.concat(RawClient.parseFrame("", sql), RawClient.bindFrame(""), RawClient.executeFrame(),
                RawClient.syncFrame());
    }

    @Test
    void aListenSentOneMessageAReadIsAnsweredByTheHubAndHearsItsChannel() throws Exception {
        start(2);
        try (RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
                Connection notifier = ProxyFixture.connect(proxy, db)) {
            client.readTimeout(10_000);
            client.parse("", "LISTEN kept_past_read");
            pause();
            client.bind("");
            pause();
            client.execute();
            pause();
            client.sync();

            assertEquals("12CZ", RawClient.types(client.readUntilReady()));
            Sql.execute(notifier, "NOTIFY kept_past_read, 'hello'");
            RawClient.Message notification;
            do {
                notification = client.read();
            } while (notification.type() != 'A');
            assertTrue(new String(notification.body(), StandardCharsets.UTF_8).contains("hello"));
        }
    }

    private static void pause() throws InterruptedException {
        Thread.sleep(BETWEEN_WRITES_MILLIS);
    }
}
