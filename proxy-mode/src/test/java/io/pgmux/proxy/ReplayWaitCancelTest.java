package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A CancelRequest for a read that waits for a standby to replay its client's last commit ends the wait as one for a
 * server ends: 57014, the read never runs, and the client stays usable.
 */
class ReplayWaitCancelTest {
    private static StandbyPair pair;

    @BeforeAll
    static void startPair() {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE ledger (n int)");
        pair.awaitStandbyCaughtUp();
    }

    @AfterAll
    static void stopPair() {
        if (pair != null) {
            pair.close();
        }
    }

    private static void standby(String sql) throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void aCancelOfAReadWaitingForReplayGets57014() throws Exception {
        // a wait far longer than the test's: only the cancel can end it
        try (PgMuxProxy proxy = ReadRoutingTest.routingProxy(pair, " replica_wait_timeout=600")) {
            ReadRoutingTest.awaitStandbyRead(proxy);
            try (Connection c = ReadRoutingTest.connect(proxy, new Properties()); Statement st = c.createStatement()) {
                standby("SELECT pg_wal_replay_pause()");
                st.executeUpdate("INSERT INTO ledger VALUES (1)");
                c.setAutoCommit(false);
                c.setReadOnly(true);
                CompletableFuture<Void> read = CompletableFuture.runAsync(() -> {
                    try (ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger")) {
                        rs.next();
                    } catch (SQLException e) {
                        throw new CompletionException(e);
                    }
                });
                // pgjdbc sends a cancel only while its statement runs; one sent before the read reached the proxy
                // finds the client idle
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!read.isDone() && System.nanoTime() < deadline) {
                    st.cancel();
                    Thread.sleep(100);
                }
                assertTrue(read.isDone(), "the read still waits for replay after its cancels");
                CompletionException e = assertThrows(CompletionException.class, read::join);
                SQLException cancelled = assertInstanceOf(SQLException.class, e.getCause());
                assertEquals("57014", cancelled.getSQLState(), cancelled.getMessage());
                c.rollback();
                c.setReadOnly(false);
                c.setAutoCommit(true);
                assertEquals("primary", ReadRoutingTest.where(st));
            } finally {
                standby("SELECT pg_wal_replay_resume()");
                pair.awaitStandbyCaughtUp();
            }
        }
    }
}
