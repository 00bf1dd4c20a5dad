package io.pgmux.proxy;

import static io.pgmux.testing.Sql.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.core.pool.PinReason;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * 500 clients in transaction mode over 20 server connections, of which 10 listen for notifications and 10 hold a
 * session advisory lock: the lock holders are pinned (10 servers), the listeners share the listener hub's one, and
 * the 480 others keep being served by the 9 left; every notification sent reaches every listener.
 */
@PostgresTest
class ListenersAndLocksUnderLoadTest {
    private static final int POOL_SIZE = 20;
    private static final int LISTENERS = 10;
    private static final int LOCK_HOLDERS = 10;
    private static final int WORKERS = 480;
    private static final int TRANSACTIONS_PER_WORKER = 5;
    private static final int NOTIFICATIONS = 100;
    private static final int THREADS = 40;

    private final TestDatabase db;

    ListenersAndLocksUnderLoadTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void listenersAndLockHoldersLeaveTheOtherClientsServedAndEveryNotificationArrives() throws Exception {
        List<Connection> all = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .defaultPoolSize(POOL_SIZE)
                .maxClientConn(1000)
                .queryWaitTimeout(Duration.ofSeconds(60)))) {
            List<Connection> listeners = open(proxy, LISTENERS, all, true);
            for (Connection c : listeners) {
                execute(c, "LISTEN load_channel");
            }
            List<Connection> lockHolders = open(proxy, LOCK_HOLDERS, all, false);
            for (int i = 0; i < lockHolders.size(); i++) {
                execute(lockHolders.get(i), "SELECT pg_advisory_lock(" + (4200 + i) + ")");
            }
            List<Future<Connection>> opening = new ArrayList<>();
            for (int i = 0; i < WORKERS; i++) {
                opening.add(threads.submit(() -> ProxyFixture.connect(proxy, db)));
            }
            List<Connection> workers = new ArrayList<>();
            for (Future<Connection> f : opening) {
                Connection c = f.get(2, TimeUnit.MINUTES);
                all.add(c);
                workers.add(c);
            }
            PinCounts pins = proxy.pinCounts(db.name(), db.superuser());
            assertEquals(LOCK_HOLDERS, pins.pinnedNow(PinReason.ADVISORY_LOCK));

            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                done.add(threads.submit(() -> {
                    int ran = 0;
                    for (int round = 0; round < TRANSACTIONS_PER_WORKER; round++) {
                        for (int w = first; w < workers.size(); w += THREADS) {
                            Connection c = workers.get(w);
                            c.setAutoCommit(false);
                            query(c, "SELECT count(*) FROM pg_class");
                            c.commit();
                            c.setAutoCommit(true);
                            ran++;
                        }
                    }
                    return ran;
                }));
            }
            try (Connection notifier = ProxyFixture.connect(proxy, db)) {
                for (int i = 0; i < NOTIFICATIONS; i++) {
                    execute(notifier, "NOTIFY load_channel, '" + i + "'");
                }
            }
            int transactions = 0;
            for (Future<Integer> f : done) {
                transactions += f.get(5, TimeUnit.MINUTES);
            }
            assertEquals(WORKERS * TRANSACTIONS_PER_WORKER, transactions);
            for (Connection listener : listeners) {
                assertEquals(NOTIFICATIONS, receive(listener, NOTIFICATIONS), "every notification reaches every listener");
            }
            assertEquals(0, pins.pinsTotal(PinReason.LISTEN), "listeners are never pinned");
            assertTrue(ProxyFixture.pool(proxy, db).getTotalConnections() <= POOL_SIZE);

            for (Connection c : lockHolders) {
                execute(c, "SELECT pg_advisory_unlock_all()");
            }
            // the check that unpins runs after the unlock's ReadyForQuery went to the client
            Await.equal(0, () -> pins.pinnedNow(PinReason.ADVISORY_LOCK), Duration.ofSeconds(10),
                    "unlocked clients are transaction-pooled again");
        } finally {
            threads.shutdownNow();
            for (Connection c : all) {
                c.close();
            }
        }
    }

    private List<Connection> open(PgMuxProxy proxy, int count, List<Connection> all, boolean simpleProtocol)
            throws SQLException {
        Properties props = new Properties();
        if (simpleProtocol) {
            props.setProperty("preferQueryMode", "simple");
        }
        List<Connection> opened = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, props);
            all.add(c);
            opened.add(c);
        }
        return opened;
    }

    /** Reads notifications until {@code expected} arrived or none came for 10 s; says how many arrived. */
    private static int receive(Connection listener, int expected) throws SQLException {
        int received = 0;
        while (received < expected) {
            PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(10_000);
            if (got == null || got.length == 0) {
                break;
            }
            for (PGNotification n : got) {
                assertEquals(String.valueOf(received), n.getParameter(), "in the order they were sent");
                received++;
            }
        }
        return received;
    }

    private static void query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
        }
    }
}
