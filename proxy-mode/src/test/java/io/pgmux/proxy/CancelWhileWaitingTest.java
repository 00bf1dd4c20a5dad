package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A CancelRequest for a client whose request still waits for a server connection (issue 29, item 10): the
 * request is answered with PostgreSQL's 57014 and never runs, and the client stays usable.
 */
@PostgresTest
class CancelWhileWaitingTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;
    private String table;

    CancelWhileWaitingTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() throws SQLException {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
        table = "cancelled_" + System.nanoTime();
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("CREATE TABLE " + table + " (n int)");
            s.execute("GRANT ALL ON " + table + " TO PUBLIC");
        }
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    /** The pool's only server, held in a transaction until the returned connection commits. */
    private Connection holdTheOnlyServer() throws SQLException {
        Connection holder = ProxyFixture.connect(proxy, db);
        holder.setAutoCommit(false);
        Sql.value(holder, "SELECT 1");
        return holder;
    }

    private long rows() throws SQLException {
        try (Connection direct = db.connect()) {
            return Long.parseLong(Sql.value(direct, "SELECT count(*) FROM " + table));
        }
    }

    @Test
    void pgjdbcStatementCancelOfAWaitingQueryGets57014AndTheQueryNeverRuns() throws Exception {
        // pgjdbc runs a SET as it connects: it logs in before the only server is taken
        try (Connection waiting = ProxyFixture.connect(proxy, db); Connection holder = holdTheOnlyServer();
                Statement insert = waiting.createStatement()) {
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
                try {
                    insert.execute("INSERT INTO " + table + " VALUES (1)");
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            insert.cancel();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> run.get(30, TimeUnit.SECONDS));
            assertEquals("57014", ((SQLException) failed.getCause()).getSQLState());
            holder.commit();
            assertEquals("still usable", Sql.value(waiting, "SELECT 'still usable'"));
            assertEquals(0, rows(), "the cancelled INSERT never ran");
        }
    }

    @Test
    void psqlInterruptedWhileItsQueryWaitsPrintsPostgresqlsCancelError() throws Exception {
        try (Connection holder = holdTheOnlyServer()) {
            Process psql = new ProcessBuilder(List.of(Clients.executable("psql", "install the PostgreSQL client"
                    + " tools (postgresql-client) to run this test").toString(), "-X", "-c",
                    "INSERT INTO " + table + " VALUES (1)", "host=127.0.0.1 port=" + proxy.port() + " dbname="
                    + db.name() + " user=" + ProxyFixture.USER + " password=" + ProxyFixture.PASSWORD))
                    .redirectErrorStream(true).start();
            try {
                ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
                // psql's SIGINT handler sends the CancelRequest, as Ctrl-C does
                assertEquals(0, new ProcessBuilder("kill", "-INT", String.valueOf(psql.pid())).start().waitFor());
                assertTrue(psql.waitFor(30, TimeUnit.SECONDS), "psql ended");
                String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(output.contains("ERROR:  canceling statement due to user request"), output);
            } finally {
                psql.destroyForcibly();
            }
            holder.commit();
            assertEquals(0, rows(), "the cancelled INSERT never ran");
        }
    }

    @Test
    void aCancelledWaitingQueryOfARawClientIsAnsweredWithErrorAndReadyForQuery() throws Exception {
        try (Connection holder = holdTheOnlyServer();
                RawClient waiting = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            waiting.query("INSERT INTO " + table + " VALUES (1)");
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            waiting.cancel();
            List<RawClient.Message> answer = waiting.readUntilReady().stream().filter(m -> m.type() != 'N').toList();
            assertEquals("EZ", RawClient.types(answer));
            assertEquals("ERROR", answer.get(0).field('S'));
            assertEquals("57014", answer.get(0).field('C'));
            assertEquals("canceling statement due to user request", answer.get(0).field('M'));
            assertEquals('I', (char) answer.get(1).body()[0]);
            holder.commit();
            waiting.query("SELECT 'still usable'");
            assertEquals("still usable", RawClient.firstColumn(waiting.readUntilReady()));
            assertEquals(0, rows(), "the cancelled INSERT never ran");
        }
    }

    @Test
    void aCancelledWaitingBatchWithoutItsSyncYetIsAnsweredAtTheSyncAndItsRestDropped() throws Exception {
        try (Connection holder = holdTheOnlyServer();
                RawClient waiting = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            waiting.parse("", "INSERT INTO " + table + " VALUES (1)");
            waiting.send('H', new byte[0]);
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            waiting.cancel();
            RawClient.Message error = waiting.read();
            while (error.type() == 'N') {
                error = waiting.read();
            }
            assertEquals("57014", error.field('C'));
            waiting.bind("");
            waiting.execute();
            waiting.sync();
            assertEquals("Z", RawClient.types(waiting.readUntilReady()));
            holder.commit();
            waiting.query("SELECT 'still usable'");
            assertEquals("still usable", RawClient.firstColumn(waiting.readUntilReady()));
            assertEquals(0, rows(), "the cancelled INSERT never ran");
        }
    }

    @Test
    void aCancelledWaitingFunctionCallIsAnsweredWithErrorAndReadyForQuery() throws Exception {
        try (Connection holder = holdTheOnlyServer();
                RawClient waiting = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            // pg_backend_pid() (oid 2026): no argument formats, no arguments, a text result
            waiting.send('F', RawClient.concat(RawClient.int32(2026), new byte[] {0, 0, 0, 0, 0, 0}));
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            waiting.cancel();
            List<RawClient.Message> answer = waiting.readUntilReady().stream().filter(m -> m.type() != 'N').toList();
            assertEquals("EZ", RawClient.types(answer));
            assertEquals("57014", answer.get(0).field('C'));
            holder.commit();
            waiting.query("SELECT 'still usable'");
            assertEquals("still usable", RawClient.firstColumn(waiting.readUntilReady()));
        }
    }

    @Test
    void aQueryPipelinedBehindTheCancelledOneRunsOnceAServerIsFree() throws Exception {
        try (Connection holder = holdTheOnlyServer();
                RawClient waiting = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            waiting.sendRaw(RawClient.concat(
                    RawClient.frame('Q', RawClient.cstring("INSERT INTO " + table + " VALUES (1)")),
                    RawClient.frame('Q', RawClient.cstring("INSERT INTO " + table + " VALUES (2)"))));
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            waiting.cancel();
            assertEquals("EZ", RawClient.types(waiting.readUntilReady()));
            holder.commit();
            assertEquals("CZ", RawClient.types(waiting.readUntilReady()));
            try (Connection direct = db.connect()) {
                assertEquals("2", Sql.value(direct, "SELECT string_agg(n::text, ',') FROM " + table));
            }
        }
    }
}
