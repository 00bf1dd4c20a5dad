package io.pgmux.proxy;

import static io.pgmux.testing.Sql.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.core.pool.PinReason;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * LISTEN in transaction mode without pinning: a LISTEN or UNLISTEN sent alone outside a transaction is answered
 * by the proxy, and one server connection of the pool listens for all its clients; the clients stay
 * transaction-pooled and get their notifications between their transactions, as on a direct connection.
 * pgjdbc speaks the simple protocol here, as psql, psycopg2 and node-postgres do for a LISTEN.
 */
@PostgresTest
class ListenHubTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;
    private final Map<Connection, ArrayDeque<PGNotification>> inboxes = new HashMap<>();

    ListenHubTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(3));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    @Test
    void aListenerReceivesANotificationSentByAnotherClientWithoutKeepingAServer() throws Exception {
        try (Connection listener = connect(); Connection notifier = connect()) {
            execute(listener, "LISTEN hub_channel");
            assertEquals(1, ProxyFixture.awaitActive(pool(), 1), "only the hub's server is held");
            execute(notifier, "NOTIFY hub_channel, 'hello'");
            PGNotification n = awaitNotification(listener);
            assertEquals("hub_channel", n.getName());
            assertEquals("hello", n.getParameter());
            assertEquals(0, pins().pinsTotal(PinReason.LISTEN), "the listener was never pinned");
        }
    }

    @Test
    void tenListenersShareOneServerAndEachReceivesEveryNotification() throws Exception {
        List<Connection> listeners = new ArrayList<>();
        try (Connection notifier = connect()) {
            for (int i = 0; i < 10; i++) {
                Connection c = connect();
                listeners.add(c);
                execute(c, "LISTEN \"Shared Channel\"");
            }
            assertEquals(1, ProxyFixture.awaitActive(pool(), 1));
            execute(notifier, "NOTIFY \"Shared Channel\", 'one'");
            execute(notifier, "NOTIFY \"Shared Channel\", 'two'");
            for (Connection c : listeners) {
                assertEquals("one", awaitNotification(c).getParameter());
                assertEquals("two", awaitNotification(c).getParameter());
            }
        } finally {
            for (Connection c : listeners) {
                c.close();
            }
        }
    }

    @Test
    void aListenerInsideATransactionGetsTheNotificationOnlyAfterItsTransactionEnds() throws Exception {
        try (Connection listener = connect(); Connection notifier = connect()) {
            execute(listener, "LISTEN in_transaction_channel");
            listener.setAutoCommit(false);
            Sql.value(listener, "SELECT 1");
            execute(notifier, "NOTIFY in_transaction_channel, 'later'");
            // wait until the hub has received it: a marker the listener's own transaction cannot see
            execute(notifier, "NOTIFY in_transaction_channel, 'marker'");
            assertEquals(0, notYetTaken(listener), "nothing arrives inside the transaction");
            listener.commit();
            assertEquals("later", awaitNotification(listener).getParameter());
            assertEquals("marker", awaitNotification(listener).getParameter());
        }
    }

    @Test
    void unlistenOfOneChannelStopsItsNotificationsButNotTheOthers() throws Exception {
        try (Connection listener = connect(); Connection notifier = connect()) {
            execute(listener, "LISTEN kept");
            execute(listener, "LISTEN dropped");
            execute(listener, "UNLISTEN dropped");
            execute(notifier, "NOTIFY dropped, 'not for you'");
            execute(notifier, "NOTIFY kept, 'for you'");
            // notifications of one sender arrive in order: once "kept" is here, "dropped" would have been too
            assertEquals("kept", awaitNotification(listener).getName());
            assertEquals(0, notYetTaken(listener));
        }
    }

    @Test
    void theHubsServerGoesBackToThePoolWithoutItsChannelsWhenTheLastListenerLeaves() throws Exception {
        try (PgMuxProxy oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1))) {
            Properties simple = new Properties();
            simple.setProperty("preferQueryMode", "simple");
            Pool<ServerConnection> pool;
            try (Connection listener = ProxyFixture.connect(oneServer, db.name(), ProxyFixture.USER,
                    ProxyFixture.PASSWORD, simple)) {
                execute(listener, "LISTEN leaving");
                pool = ProxyFixture.pool(oneServer, db);
                assertEquals(1, ProxyFixture.awaitActive(pool, 1));
            }
            assertEquals(0, ProxyFixture.awaitActive(pool, 0));
            try (Connection next = ProxyFixture.connect(oneServer, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                    simple)) {
                assertEquals("0", Sql.value(next, "SELECT count(*) FROM pg_listening_channels()"),
                        "the only server went back without the hub's channels");
                assertEquals(1, pool.getTotalConnections());
            }
        }
    }

    @Test
    void unlistenAllAndDiscardAllEndTheClientsListens() throws Exception {
        try (Connection listener = connect(); Connection notifier = connect()) {
            execute(listener, "LISTEN a_channel");
            execute(listener, "UNLISTEN *");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
            execute(listener, "LISTEN b_channel");
            execute(listener, "DISCARD ALL");
            execute(listener, "LISTEN c_channel");
            execute(notifier, "NOTIFY a_channel");
            execute(notifier, "NOTIFY b_channel");
            execute(notifier, "NOTIFY c_channel");
            assertEquals("c_channel", awaitNotification(listener).getName());
            assertEquals(0, notYetTaken(listener));
        }
    }

    @Test
    void aLostListeningServerIsReplacedAndItsClientsAreWarned() throws Exception {
        try (Connection listener = connect(); Connection notifier = connect(); Connection direct = db.connect()) {
            execute(listener, "LISTEN survives");
            String hubPid = Sql.value(direct, "SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN \"survives\"'");
            assertNotNull(hubPid);
            execute(direct, "SELECT pg_terminate_backend(" + hubPid + ", 5000)");
            // the warning comes as a notice; pgjdbc reads it with the next statement's results
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            SQLWarning warning = null;
            while (warning == null && System.nanoTime() < deadline) {
                try (Statement s = listener.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
                    warning = s.getWarnings();
                }
            }
            assertNotNull(warning, "the listener was told");
            assertTrue(warning.getMessage().contains("notifications sent until it listened again"), warning.getMessage());
            PGNotification n = null;
            while (n == null && System.nanoTime() < deadline) {
                execute(notifier, "NOTIFY survives, 'again'");
                PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(200);
                n = got == null || got.length == 0 ? null : got[got.length - 1];
            }
            assertNotNull(n, "a notification after the hub listened again arrives");
        }
    }

    /**
     * A LISTEN whose channel holds a NUL byte is PostgreSQL's to refuse on the sender's own server (the text ends
     * at the NUL, so the message is malformed): the hub's shared connection never sees it, and the listeners go on.
     */
    @Test
    void aListenWithANulByteGetsPostgresqlsErrorAloneAndTheOtherListenersKeepTheirNotifications() throws Exception {
        List<Connection> listeners = new ArrayList<>();
        try (Connection notifier = connect();
                RawClient sender = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            for (int i = 0; i < 3; i++) {
                Connection c = connect();
                listeners.add(c);
                execute(c, "LISTEN shared");
            }
            sender.send('Q', "LISTEN \"a\0b\"\0".getBytes(StandardCharsets.US_ASCII));
            List<RawClient.Message> answer = sender.readUntilReady();
            assertEquals("EZ", RawClient.types(answer));
            assertEquals("ERROR", answer.get(0).field('S'));
            assertEquals("08P01", answer.get(0).field('C'));
            assertEquals("invalid message format", answer.get(0).field('M'));
            sender.send('Q', "SELECT 'still usable'\0".getBytes(StandardCharsets.US_ASCII));
            assertEquals("still usable", RawClient.firstColumn(sender.readUntilReady()));
            execute(notifier, "NOTIFY shared, 'after'");
            for (Connection c : listeners) {
                assertEquals("after", awaitNotification(c).getParameter());
            }
            try (Connection late = connect()) {
                execute(late, "LISTEN shared");
                execute(notifier, "NOTIFY shared, 'for the late one too'");
                assertEquals("for the late one too", awaitNotification(late).getParameter());
            }
        } finally {
            for (Connection c : listeners) {
                c.close();
            }
        }
    }

    /** pgjdbc's default: Parse, Bind, Describe, Execute and Sync of the unnamed statement. */
    @Test
    void aListenInTheExtendedProtocolIsAnsweredByTheHubToo() throws Exception {
        try (Connection listener = ProxyFixture.connect(proxy, db); Connection notifier = connect()) {
            execute(listener, "LISTEN extended_channel");
            assertEquals(1, ProxyFixture.awaitActive(pool(), 1), "only the hub's server is held");
            execute(notifier, "NOTIFY extended_channel, 'parsed'");
            assertEquals("parsed", awaitNotification(listener).getParameter());
            execute(listener, "UNLISTEN extended_channel");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
            assertEquals(0, pins().pinsTotal(PinReason.LISTEN));
        }
    }

    @Test
    void aListenInsideATransactionBlockStillPinsItsClient() throws Exception {
        try (Connection listener = connect(); Connection notifier = connect()) {
            execute(listener, "BEGIN; LISTEN pinned_anyway; COMMIT");
            execute(notifier, "NOTIFY pinned_anyway, 'direct'");
            assertEquals("direct", awaitNotification(listener).getParameter());
            // counted once the pooler's check after the transaction returned, which may be after the notification
            Await.equal(1L, () -> pins().pinsTotal(PinReason.LISTEN), Duration.ofSeconds(5), "LISTEN pins");
        }
    }

    private Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, props);
    }

    private Pool<ServerConnection> pool() {
        return ProxyFixture.pool(proxy, db);
    }

    private PinCounts pins() {
        return proxy.pinCounts(db.name(), db.superuser());
    }

    /** The next notification for {@code c}, reading up to 10 s; one read may bring several, kept for later calls. */
    private PGNotification awaitNotification(Connection c) throws SQLException {
        ArrayDeque<PGNotification> kept = inboxes.computeIfAbsent(c, k -> new ArrayDeque<>());
        if (kept.isEmpty()) {
            PGNotification[] got = c.unwrap(PGConnection.class).getNotifications(10_000);
            assertTrue(got != null && got.length >= 1, "a notification within 10 s");
            kept.addAll(List.of(got));
        }
        return kept.poll();
    }

    /** What arrived for {@code c} beyond what the test took, without waiting. */
    private int notYetTaken(Connection c) throws SQLException {
        PGNotification[] got = c.unwrap(PGConnection.class).getNotifications();
        return inboxes.getOrDefault(c, new ArrayDeque<>()).size() + (got == null ? 0 : got.length);
    }
}
