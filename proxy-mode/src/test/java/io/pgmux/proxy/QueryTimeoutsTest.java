package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.PostgresTest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PgBouncer's query_timeout and transaction_timeout, globally and per user, and the per-user client_idle_timeout and
 * idle_transaction_timeout: a client that runs out of one gets PgBouncer's FATAL 08P01 text and its server
 * connection is closed, also when the backend never answers.
 */
@PostgresTest
class QueryTimeoutsTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    QueryTimeoutsTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private void start(Consumer<ProxyBuilder> settings) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.authType(AuthType.TRUST).users(Map.of("raw", "", "other", ""));
            settings.accept(b);
        });
    }

    private RawClient login(String user) throws IOException {
        return RawClient.login(proxy, db.name(), user, "");
    }

    /** Opens a transaction and returns its backend's pid. */
    private static int begin(RawClient client) throws IOException {
        client.query("BEGIN; SELECT pg_backend_pid()");
        return Integer.parseInt(RawClient.firstColumn(client.readUntilReady()));
    }

    private static void assertClosedWith(String message, RawClient client) throws IOException {
        List<RawClient.Message> messages = client.readUntilClosed();
        RawClient.Message error = messages.get(messages.size() - 1);
        assertEquals('E', error.type(), RawClient.types(messages));
        assertEquals("FATAL", error.field('S'));
        assertEquals("08P01", error.field('C'));
        assertEquals(message, error.field('M'));
    }

    @Test
    void aQueryRunningLongerThanQueryTimeoutEndsTheClientAndItsServer() throws Exception {
        start(b -> b.queryTimeout(Duration.ofMillis(500)));
        try (RawClient client = login("raw")) {
            int pid = begin(client);
            client.query("SELECT pg_sleep(60)");
            assertClosedWith("query timeout", client);
            assertTrue(db.awaitBackendExit(pid, Duration.ofSeconds(10)), "backend " + pid + " still runs");
        }
    }

    @Test
    void queryTimeoutCountsEachQueryNotTheSession() throws Exception {
        start(b -> b.queryTimeout(Duration.ofMillis(400)));
        try (RawClient client = login("raw")) {
            // ten queries of 100 ms each: a second and more in all, each well under the timeout
            for (int i = 0; i < 10; i++) {
                client.query("SELECT pg_sleep(0.1)");
                assertEquals("TDCZ", RawClient.types(client.readUntilReady()));
            }
        }
    }

    @Test
    void aClientWaitingForAServerLongerThanQueryTimeoutGetsPgBouncersWaitingText() throws Exception {
        start(b -> b.defaultPoolSize(1).queryTimeout(Duration.ofMillis(500)));
        try (RawClient holder = login("raw"); RawClient waiter = login("raw")) {
            begin(holder);
            waiter.query("SELECT 1");
            assertClosedWith("query_timeout", waiter);
        }
    }

    @Test
    void aTransactionLeftOpenPastTransactionTimeoutEndsTheClientAndItsServer() throws Exception {
        start(b -> b.transactionTimeout(Duration.ofMillis(700)));
        try (RawClient client = login("raw")) {
            int pid = begin(client);
            assertClosedWith("transaction timeout", client);
            assertTrue(db.awaitBackendExit(pid, Duration.ofSeconds(10)), "backend " + pid + " still runs");
        }
    }

    @Test
    void transactionTimeoutLeavesClientsOutsideATransactionAlone() throws Exception {
        // five statements of 0.5 s: longer than the timeout together, each far shorter even on a busy machine
        start(b -> b.transactionTimeout(Duration.ofSeconds(2)));
        try (RawClient client = login("raw")) {
            for (int i = 0; i < 5; i++) {
                client.query("SELECT pg_sleep(0.5)");
                assertEquals("TDCZ", RawClient.types(client.readUntilReady()));
            }
            client.query("SELECT 1");
            assertEquals("1", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    @Test
    void aUsersOwnQueryTimeoutAppliesToItsClientsOnly() throws Exception {
        start(b -> b.userSetting("raw", "query_timeout", "0.5"));
        try (RawClient limited = login("raw"); RawClient other = login("other")) {
            other.query("SELECT pg_sleep(1.2)");
            limited.query("SELECT pg_sleep(60)");
            assertClosedWith("query timeout", limited);
            assertEquals("TDCZ", RawClient.types(other.readUntilReady()));
        }
    }

    @Test
    void aUsersOwnTransactionAndIdleTimeoutsWinOverTheGlobalOnes() throws Exception {
        start(b -> b.transactionTimeout(Duration.ofHours(1))
                .userSetting("raw", "transaction_timeout", "0.5")
                .userSetting("other", "client_idle_timeout", "0.5"));
        try (RawClient inTransaction = login("raw"); RawClient idle = login("other")) {
            begin(inTransaction);
            assertClosedWith("transaction timeout", inTransaction);
            assertClosedWith("client_idle_timeout", idle);
        }
    }

    @Test
    void aUsersOwnIdleTransactionTimeoutClosesItsIdleTransaction() throws Exception {
        start(b -> b.userSetting("raw", "idle_transaction_timeout", "0.4"));
        try (RawClient client = login("raw")) {
            int pid = begin(client);
            assertClosedWith("idle transaction timeout", client);
            assertTrue(db.awaitBackendExit(pid, Duration.ofSeconds(10)), "backend " + pid + " still runs");
        }
    }

    /**
     * A backend that stops answering (SIGSTOP) holds its client only until query_timeout: the client gets the
     * error, the server connection is closed, and the pool's one slot serves the next client (which would wait
     * for query_wait_timeout while the hung connection held it).
     */
    @Test
    void aHungBackendIsClosedAtQueryTimeoutAndThePoolServesTheNextClient() throws Exception {
        start(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(60)).queryTimeout(Duration.ofSeconds(1)));
        try (RawClient hung = login("raw"); RawClient next = login("raw")) {
            int pid = begin(hung);
            signal("STOP", pid);
            try {
                hung.query("SELECT 1");
                assertClosedWith("query timeout", hung);
                next.query("SELECT 42");
                assertEquals("42", RawClient.firstColumn(next.readUntilReady()));
            } finally {
                signal("CONT", pid);
            }
            assertTrue(db.awaitBackendExit(pid, Duration.ofSeconds(10)), "backend " + pid + " still runs");
        }
    }

    private static void signal(String signal, int pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal + " " + pid);
    }
}
