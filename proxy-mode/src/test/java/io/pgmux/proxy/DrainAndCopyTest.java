package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * close() lets the transactions under way finish within drainTimeout; a COPY inside an explicit transaction keeps
 * its server to the end of the transaction while other clients wait for it.
 */
@PostgresTest
class DrainAndCopyTest {
    private final TestDatabase db;

    DrainAndCopyTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void closeLetsATransactionUnderWayCommitBeforeItDisconnects() throws Exception {
        PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.drainTimeout(Duration.ofSeconds(30)));
        try (Connection direct = db.connect(); Statement ds = direct.createStatement()) {
            ds.execute("CREATE TABLE drained (n int)");
            try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.execute("INSERT INTO drained VALUES (1)");
                CompletableFuture<Void> closing = CompletableFuture.runAsync(proxy::close);
                // the proxy stops listening first: then the transaction under way is what it waits for
                awaitRefused(proxy);
                assertTrue(!closing.isDone(), "close() waits for the open transaction");
                s.execute("INSERT INTO drained VALUES (2)");
                c.commit();
                closing.get(30, TimeUnit.SECONDS);
                assertThrows(SQLException.class, () -> s.execute("SELECT 1"), "disconnected once it finished");
            }
            try (ResultSet rs = ds.executeQuery("SELECT count(*) FROM drained")) {
                rs.next();
                assertEquals(2, rs.getInt(1), "both inserts committed");
            }
            ds.execute("DROP TABLE drained");
        } finally {
            proxy.close();
        }
    }

    @Test
    void aCopyInsideATransactionKeepsItsServerUntilCommitWhileOthersWait() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(30)));
                Connection direct = db.connect(); Statement ds = direct.createStatement()) {
            ds.execute("CREATE TABLE copied_in_tx (n int)");
            try (Connection copier = ProxyFixture.connect(proxy, db);
                    Connection other = ProxyFixture.connect(proxy, db)) {
                copier.setAutoCommit(false);
                CopyManager copy = copier.unwrap(PGConnection.class).getCopyAPI();
                assertEquals(3, copy.copyIn("COPY copied_in_tx FROM STDIN", new StringReader("1\n2\n3\n")));
                CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> count(other));
                // the other client waits for the only server, which the open transaction keeps
                Await.equal(1, ProxyFixture.pool(proxy, db)::getThreadsAwaitingConnection, Duration.ofSeconds(10),
                        "clients waiting");
                assertEquals(3, copy.copyIn("COPY copied_in_tx FROM STDIN", new StringReader("4\n5\n6\n")));
                copier.commit();
                assertEquals(6, waiting.get(30, TimeUnit.SECONDS), "it sees the whole transaction, after it");
            }
            ds.execute("DROP TABLE copied_in_tx");
        }
    }

    private static int count(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM copied_in_tx")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitRefused(PgMuxProxy proxy) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (java.net.Socket probe = new java.net.Socket("127.0.0.1", proxy.port())) {
                Thread.sleep(10);
            } catch (java.io.IOException refused) {
                return;
            }
        }
        throw new AssertionError("the proxy kept listening after close() began");
    }
}
