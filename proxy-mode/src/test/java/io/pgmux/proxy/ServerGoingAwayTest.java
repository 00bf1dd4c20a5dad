package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client outside a transaction whose request reached a server that was going away (a fast shutdown or
 * pg_terminate_backend: FATAL 57P01 before any answer) sees no error: nothing of the request can have taken effect,
 * so it runs on another server. Sent again while its servers were connected before its first one went away (a
 * restart kills them all at once), to a newer one once only, and never once the server began to answer.
 */
@PostgresTest
class ServerGoingAwayTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int ROUNDS = 5;

    private final TestDatabase db;
    private PgMuxProxy proxy;

    ServerGoingAwayTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() throws SQLException {
        admin("DROP TABLE IF EXISTS runs, gate", "DROP SEQUENCE IF EXISTS attempts",
                "CREATE TABLE runs (pid int)", "CREATE TABLE gate (open boolean)", "CREATE SEQUENCE attempts");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(2));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    private void admin(String... statements) throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    private long adminCount(String query) throws SQLException {
        try (Connection c = db.connect()) {
            return Long.parseLong(Sql.value(c, query));
        }
    }

    /** A client speaking the simple query protocol, as psql does: a DO statement answers nothing until it ends. */
    private Connection simpleClient() throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, simple);
    }

    private void terminate(int pid) throws SQLException {
        assertEquals(1, adminCount("SELECT count(*) FILTER (WHERE pg_terminate_backend(" + pid + ", 10000))"));
    }

    @Test
    void aRequestWhoseServerWasTerminatedBeforeAnsweringRunsOnAnotherServer() throws Exception {
        String waitsForTheGate = "DO $$BEGIN WHILE NOT EXISTS (SELECT FROM gate) LOOP PERFORM pg_sleep(0.05); END LOOP;"
                + " INSERT INTO runs VALUES (pg_backend_pid()); END$$";
        try (Connection c = simpleClient()) {
            CompletableFuture<Boolean> request = Sql.async(() -> {
                try (Statement st = c.createStatement()) {
                    return st.execute(waitsForTheGate);
                }
            });
            int first = db.awaitRunningQuery(waitsForTheGate, WAIT);
            terminate(first);
            admin("INSERT INTO gate VALUES (true)");

            request.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(1, adminCount("SELECT count(*) FROM runs"));
            assertEquals(0, adminCount("SELECT count(*) FROM runs WHERE pid = " + first));
        }
    }

    @Test
    void anIdleClientsNextTransactionAfterItsBackendWasTerminatedRunsOnAnotherServer() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            c.setAutoCommit(false);
            for (int round = 0; round < ROUNDS; round++) {
                int before = Sql.backendPid(c);
                c.commit();
                terminate(before);

                int after = Sql.backendPid(c);
                c.commit();
                assertNotEquals(before, after, "round " + round);
            }
        }
    }

    @Test
    void aRequestIsSentAgainToEachServerConnectedBeforeItsFirstWentAway() throws Exception {
        openServers(2);
        try (Connection c = simpleClient(); Statement st = c.createStatement()) {
            st.execute("DO $$BEGIN IF nextval('attempts') < 3 THEN PERFORM pg_terminate_backend(pg_backend_pid());"
                    + " PERFORM pg_sleep(10); END IF; END$$");
        }
        assertEquals(3, adminCount("SELECT last_value FROM attempts"), "the third attempt ran on a new server");
    }

    /** Puts {@code count} idle servers in the pool: as many clients in a transaction at once. */
    private void openServers(int count) throws SQLException {
        Connection[] clients = new Connection[count];
        try {
            for (int i = 0; i < count; i++) {
                clients[i] = ProxyFixture.connect(proxy, db);
                clients[i].setAutoCommit(false);
                Sql.backendPid(clients[i]);
            }
        } finally {
            for (Connection c : clients) {
                if (c != null) {
                    c.commit();
                    c.close();
                }
            }
        }
        Await.until(() -> ProxyFixture.pool(proxy, db).getIdleConnections() == count, WAIT,
                count + " idle servers in the pool");
    }

    @Test
    void aRequestIsNotSentAgainToAServerConnectedAfterItsFirstWentAway() throws SQLException {
        try (Connection c = simpleClient(); Statement st = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> st.execute("DO $$BEGIN PERFORM nextval('attempts');"
                    + " PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(10); END$$"));
            assertEquals("57P01", e.getSQLState(), e.toString());
        }
        assertEquals(2, adminCount("SELECT last_value FROM attempts"));
    }

    @Test
    void aSessionClientWhoseServerIsTerminatedGetsTheServersErrorAndTheNextClientIsServed() throws Exception {
        try (PgMuxProxy session = ProxyFixture.start(db, PoolMode.SESSION, b -> b.defaultPoolSize(1));
             Connection c = ProxyFixture.connect(session, db)) {
            int before = Sql.backendPid(c);
            terminate(before);

            // the session's state died with its server: the client learns it at its next statement (the server's
            // FATAL, or the closed connection after it) and is disconnected, as PgBouncer disconnects it
            SQLException e = assertThrows(SQLException.class, () -> Sql.backendPid(c));
            assertTrue(e.getSQLState().equals("57P01") || e.getSQLState().startsWith("08"), e.toString());
            assertFalse(c.isValid(5));
            try (Connection next = ProxyFixture.connect(session, db)) {
                assertNotEquals(before, Sql.backendPid(next));
            }
        }
    }

    @Test
    void aRequestTheServerBeganToAnswerIsNotSentAgain() throws SQLException {
        try (Connection c = simpleClient(); Statement st = c.createStatement()) {
            assertThrows(SQLException.class, () -> st.execute("SELECT nextval('attempts'); DO $$BEGIN"
                    + " PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(10); END$$"));
        }
        assertEquals(1, adminCount("SELECT last_value FROM attempts"));
    }
}
