package io.pgmux.proxy;

import static io.pgmux.testing.Sql.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.core.pool.PinReason;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * pin_session_state in transaction and statement mode, with pgjdbc: session state a transaction leaves on its server
 * keeps the client on that server, as on a direct connection, until the state is gone; then the client is
 * transaction-pooled again. A pinned client keeps its server while idle, so the pool's active count shows it.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionPinningTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    SessionPinningTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(2));
    }

    @AfterAll
    void stop() {
        proxy.close();
    }

    @Test
    void aListenerReceivesANotificationSentByAnotherClientAndIsPooledAgainAfterUnlisten() throws Exception {
        try (Connection listener = ProxyFixture.connect(proxy, db); Connection notifier = ProxyFixture.connect(proxy, db)) {
            long pinsBefore = counts().pinsTotal(PinReason.LISTEN);
            // with another statement, so that it reaches the server rather than the listener hub
            execute(listener, "LISTEN pinned_channel; SELECT 1");
            // at once: the notification may reach the listener's server while the pooler checks its state
            execute(notifier, "NOTIFY pinned_channel, 'hello'");
            PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(10_000);
            assertNotNull(received, "no notification within 10 s");
            assertEquals("pinned_channel", received[0].getName());
            assertEquals("hello", received[0].getParameter());
            assertPinned(PinReason.LISTEN);
            execute(listener, "UNLISTEN *");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0), "after UNLISTEN the server goes back");
            assertEquals(0, counts().pinnedNow(PinReason.LISTEN));
            assertEquals(pinsBefore + 1, counts().pinsTotal(PinReason.LISTEN));
        }
    }

    @Test
    void aSessionAdvisoryLockIsHeldAgainstOtherClientsUntilUnlocked() throws Exception {
        try (Connection holder = ProxyFixture.connect(proxy, db); Connection other = ProxyFixture.connect(proxy, db)) {
            query(holder, "SELECT pg_advisory_lock(4242)");
            assertPinned(PinReason.ADVISORY_LOCK);
            assertEquals("f", query(other, "SELECT pg_try_advisory_lock(4242)"));
            assertEquals("t", query(holder, "SELECT pg_advisory_unlock(4242)"));
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0), "unlocked: the holder is pooled again");
            assertEquals("t", query(other, "SELECT pg_try_advisory_lock(4242)"));
            query(other, "SELECT pg_advisory_unlock_all()");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    @Test
    void aTransactionLevelAdvisoryLockDoesNotPin() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            query(c, "SELECT pg_advisory_xact_lock(4343)");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    @Test
    void aTemporaryTableSurvivesIntoTheNextTransactionsUntilDropped() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            execute(c, "CREATE TEMP TABLE pinned_temp (x int)");
            execute(c, "INSERT INTO pinned_temp VALUES (1), (2)");
            assertEquals("2", query(c, "SELECT count(*) FROM pinned_temp"));
            assertPinned(PinReason.TEMPORARY_OBJECT);
            execute(c, "DROP TABLE pinned_temp");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
            assertEquals(0, counts().pinnedNow(PinReason.TEMPORARY_OBJECT));
        }
    }

    @Test
    void aTemporaryTableMadeByCreateTableAsPinsThoughItsTagIsSelect() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            execute(c, "CREATE TEMPORARY TABLE pinned_copy AS SELECT generate_series(1, 3) AS x");
            assertEquals("3", query(c, "SELECT count(*) FROM pinned_copy"));
            assertPinned(PinReason.TEMPORARY_OBJECT);
            execute(c, "DISCARD TEMP");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    /**
     * Inside an open transaction pgjdbc's Parse, Bind, Describe, Execute and Sync reach the linked relay in one read,
     * which forwards them as one run: the pin check still reads the Parse's text (the command's tag is SELECT).
     */
    @Test
    void aTemporaryTableMadeInsideAnOpenTransactionPinsAfterItsCommit() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            c.setAutoCommit(false);
            assertEquals("1", query(c, "SELECT 1"));
            execute(c, "CREATE TEMP TABLE made_in_transaction AS SELECT 1 AS x");
            c.commit();
            assertPinned(PinReason.TEMPORARY_OBJECT);
            c.setAutoCommit(true);
            execute(c, "DROP TABLE made_in_transaction");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    @Test
    void aTemporaryTableDroppedAtCommitDoesNotPin() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            c.setAutoCommit(false);
            execute(c, "CREATE TEMP TABLE gone_at_commit (x int) ON COMMIT DROP");
            c.commit();
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    @Test
    void aWithHoldCursorFetchesInTheNextTransactionsUntilClosed() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            c.setAutoCommit(false);
            execute(c, "DECLARE pinned_cursor CURSOR WITH HOLD FOR SELECT generate_series(1, 3)");
            c.commit();
            c.setAutoCommit(true);
            assertEquals("1", query(c, "FETCH 1 FROM pinned_cursor"));
            assertPinned(PinReason.HOLD_CURSOR);
            assertEquals("2", query(c, "FETCH 1 FROM pinned_cursor"));
            execute(c, "CLOSE pinned_cursor");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    @Test
    void aStatementPreparedBySqlExecutesInTheNextTransactionsUntilDeallocated() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            execute(c, "PREPARE pinned_double (int) AS SELECT $1 * 2");
            assertEquals("42", query(c, "EXECUTE pinned_double (21)"));
            assertPinned(PinReason.PREPARED_STATEMENT);
            execute(c, "DEALLOCATE pinned_double");
            assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        }
    }

    @Test
    void aPinnedClientsStateIsDiscardedWhenItDisconnects() throws Exception {
        try (PgMuxProxy single = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1))) {
            String pid;
            try (Connection c = ProxyFixture.connect(single, db)) {
                execute(c, "LISTEN left_behind; SELECT 1");
                execute(c, "CREATE TEMP TABLE left_behind (x int)");
                query(c, "SELECT pg_advisory_lock(4444)");
                pid = query(c, "SELECT pg_backend_pid()");
            }
            try (Connection next = ProxyFixture.connect(single, db)) {
                assertEquals(pid, query(next, "SELECT pg_backend_pid()"), "the pool of one reuses the server");
                assertEquals("0|0|0", query(next, "SELECT (SELECT count(*) FROM pg_listening_channels()) || '|' ||"
                        + " (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())"
                        + " || '|' ||"
                        + " (SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema())"));
            }
        }
    }

    @Test
    void aPinnedClientMakesOthersWaitForThePoolsOtherServersAndReleasingLetsThemIn() throws Exception {
        try (PgMuxProxy single = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(1)))) {
            try (Connection pinned = ProxyFixture.connect(single, db);
                 Connection other = ProxyFixture.connect(single, db)) {
                execute(pinned, "CREATE TEMP TABLE hogged (x int)");
                SQLException waited = assertThrows(SQLException.class, () -> query(other, "SELECT 1"));
                assertEquals("08P01", waited.getSQLState(), waited.getMessage());
                execute(pinned, "DROP TABLE hogged");
            }
            try (Connection other = ProxyFixture.connect(single, db)) {
                assertEquals("1", query(other, "SELECT 1"));
            }
        }
    }

    @Test
    void settingsAPinnedClientChangedFollowItOnceItIsPooledAgainAndNeverReachTheNextClient() throws Exception {
        try (PgMuxProxy single = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1))) {
            try (Connection c = ProxyFixture.connect(single, db)) {
                execute(c, "CREATE TEMP TABLE with_settings (x int)");
                execute(c, "SET work_mem = '7MB'");
                execute(c, "DROP TABLE with_settings");
                assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(single, db), 0));
                try (Connection next = ProxyFixture.connect(single, db); Connection direct = db.connect()) {
                    assertEquals(query(direct, "SHOW work_mem"), query(next, "SHOW work_mem"));
                }
                assertEquals("7MB", query(c, "SHOW work_mem"));
            }
        }
    }

    @Test
    void statementModePinsAsTransactionModeDoes() throws Exception {
        try (PgMuxProxy statement = ProxyFixture.start(db, PoolMode.STATEMENT, b -> b.defaultPoolSize(2))) {
            PinCounts statementCounts = statement.pinCounts(db.name(), db.superuser());
            try (Connection c = ProxyFixture.connect(statement, db)) {
                Pool<ServerConnection> statementPool = ProxyFixture.pool(statement, db);
                execute(c, "CREATE TEMP TABLE statement_temp (x int)");
                execute(c, "INSERT INTO statement_temp VALUES (7)");
                assertEquals("7", query(c, "SELECT x FROM statement_temp"));
                assertEquals(1, awaitPinned(statementCounts, PinReason.TEMPORARY_OBJECT));
                assertEquals(1, statementPool.getActiveConnections());
                execute(c, "DROP TABLE statement_temp");
                assertEquals(0, ProxyFixture.awaitActive(statementPool, 0));
            }
        }
    }

    @Test
    void offLosesTheStateAsPgBouncerDoes() throws Exception {
        try (PgMuxProxy off = start(b -> b.pinSessionState(PinSessionState.OFF))) {
            try (Connection c = ProxyFixture.connect(off, db); Connection next = ProxyFixture.connect(off, db)) {
                execute(c, "LISTEN leaked_channel");
                assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(off, db), 0), "the server went back");
                assertEquals("1", query(next, "SELECT count(*) FROM pg_listening_channels()"),
                        "the next client of the pool of one gets the listening server");
                execute(next, "UNLISTEN *");
            }
            assertEquals(0, off.pinCounts(db.name(), db.superuser()).pinsTotal(PinReason.LISTEN));
        }
    }

    @Test
    void errorRefusesTheStatementThatLeftStateAndTheClientGoesOn() throws Exception {
        try (PgMuxProxy refusing = start(b -> b.databaseSetting(db.name(), "pin_session_state", "error"))) {
            try (Connection c = ProxyFixture.connect(refusing, db)) {
                SQLException e = assertThrows(SQLException.class, () -> execute(c, "LISTEN refused_channel; SELECT 1"));
                assertEquals("0A000", e.getSQLState());
                assertTrue(e.getMessage().contains(
                        "LISTEN is not supported in transaction pooling mode (pin_session_state = error)"),
                        e.getMessage());
                e = assertThrows(SQLException.class, () -> execute(c, "CREATE TEMP TABLE refused (x int)"));
                assertTrue(e.getMessage().contains("temporary tables are not supported"), e.getMessage());
                assertEquals("0|0", query(c, "SELECT (SELECT count(*) FROM pg_listening_channels()) || '|' ||"
                        + " (SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema())"),
                        "the state went with the server connection");
                assertEquals("1", query(c, "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(1)) l"),
                        "what leaves no state runs");
            }
        }
    }

    @Test
    void theRefusalEndsAnExplicitTransactionAtCommit() throws Exception {
        try (PgMuxProxy refusing = start(b -> b.pinSessionState(PinSessionState.ERROR))) {
            try (Connection c = ProxyFixture.connect(refusing, db)) {
                c.setAutoCommit(false);
                assertEquals("t", query(c, "SELECT pg_try_advisory_lock(4545)"));
                SQLException e = assertThrows(SQLException.class, c::commit);
                assertEquals("0A000", e.getSQLState());
                c.setAutoCommit(true);
                // the closed server connection's backend lets go of the lock when it has exited, a moment later
                Await.equal("0", () -> query(c, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                        + " AND objid = 4545"), Duration.ofSeconds(5), "the lock went with the server connection");
            }
        }
    }

    private PgMuxProxy start(Consumer<ProxyBuilder> settings) {
        return ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.defaultPoolSize(1);
            settings.accept(b);
        });
    }

    /**
     * The one client of the test is pinned for {@code reason} (the count changes once the check has run) and keeps
     * its server while idle.
     */
    private void assertPinned(PinReason reason) throws InterruptedException {
        assertEquals(1, awaitPinned(counts(), reason), reason + " pins");
        // another client's server may still be on its way back: its ReadyForQuery reaches the client first
        assertEquals(1, Await.value(() -> pool().getActiveConnections(), active -> active <= 1, Duration.ofSeconds(5)),
                "the pinned client keeps its server while idle");
    }

    private static int awaitPinned(PinCounts counts, PinReason reason) {
        return Await.value(() -> counts.pinnedNow(reason), pinned -> pinned == 1, Duration.ofSeconds(5));
    }

    /** The pool of the class's proxy; a client of the test has made it. */
    private Pool<ServerConnection> pool() {
        return ProxyFixture.pool(proxy, db);
    }

    private PinCounts counts() {
        return proxy.pinCounts(db.name(), db.superuser());
    }

    /** The first column of the first row, as text. */
    private static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            String value = rs.getString(1);
            assertFalse(rs.next(), sql);
            return value;
        }
    }
}
