package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Statement.cancel() and query timeouts reach the backend only while that statement runs there: the
 * cancelled backend stays healthy and is reused, and a late cancel never hits the next user of it.
 */
@PostgresTest
class CancelAndTimeoutTest {
    private static final String APP = "cancel";
    /** Far longer than any cancel takes, even on a loaded machine: an answer before its end is the cancel's. */
    private static final String SLEEP_LONG = "SELECT pg_sleep(120)";
    /** How long a cancelled statement may take to end before the test calls the cancel lost. */
    private static final long CANCEL_WAIT_SECONDS = 60;

    private final TestDatabase db;
    private final TestPools pools;

    CancelAndTimeoutTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool poolOfOne() {
        return pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
    }

    /** Runs the SQL on another thread; the future completes with the error, or null when it succeeded. */
    private static CompletableFuture<SQLException> runAsync(Statement st, String sql) {
        CompletableFuture<SQLException> outcome = new CompletableFuture<>();
        new Thread(() -> {
            try {
                st.execute(sql);
                outcome.complete(null);
            } catch (SQLException e) {
                outcome.complete(e);
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        }, "cancel-runner").start();
        return outcome;
    }


    @Test
    void cancelFromAnotherThreadStopsTheRunningStatementAndTheBackendIsReused() throws Exception {
        JdbcPool pool = poolOfOne();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            int backend = pid(c);
            long start = System.nanoTime();
            CompletableFuture<SQLException> outcome = runAsync(st, SLEEP_LONG);
            db.awaitRunningQuery(SLEEP_LONG, Duration.ofSeconds(10));
            st.cancel();
            SQLException e = outcome.get(CANCEL_WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals("57014", e == null ? "completed" : e.getSQLState());
            assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < CANCEL_WAIT_SECONDS,
                    "cancelled, not slept out");
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(backend, pid(c), "the cancelled backend is healthy and reused");
            assertEquals(1, pool.pool().getTotalConnections());
        }
    }

    @Test
    void aCancelAfterTheStatementFinishedDoesNotReachTheNextUserOfTheBackend() throws Exception {
        JdbcPool pool = poolOfOne();
        try (Connection first = pool.getConnection(); Statement finished = first.createStatement();
             Connection next = pool.getConnection(); Statement sleeping = next.createStatement()) {
            finished.executeQuery("SELECT 1").close();
            assertFalse(logical(first).holdsServerConnection(), "the finished statement gave the backend back");
            int backend = pid(first);
            assertEquals(backend, pid(next), "a pool of one: the next user gets the same backend");
            CompletableFuture<SQLException> outcome = runAsync(sleeping, "SELECT pg_sleep(1)");
            db.awaitRunningQuery("SELECT pg_sleep(1)", Duration.ofSeconds(10));
            finished.cancel();
            assertNull(outcome.get(CANCEL_WAIT_SECONDS, TimeUnit.SECONDS), "the other connection's statement completed");
        }
    }

    @Test
    void aQueryTimeoutOfOneSecondCancelsALongSleep() throws SQLException {
        JdbcPool pool = poolOfOne();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.setQueryTimeout(1);
            long start = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> st.execute(SLEEP_LONG));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals("57014", e.getSQLState());
            assertTrue(millis >= 900, "cancelled after the timeout, not before: " + millis + " ms");
            assertTrue(millis < TimeUnit.SECONDS.toMillis(CANCEL_WAIT_SECONDS), "cancelled, not slept out");
            assertEquals("1", TestPools.one(c, "SELECT 1"), "the connection works afterwards");
        }
    }

    @Test
    void aCancelledStatementInATransactionLeavesItFailedOnItsBackendUntilRollback() throws Exception {
        JdbcPool pool = poolOfOne();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            int backend = pid(c);
            CompletableFuture<SQLException> outcome = runAsync(st, SLEEP_LONG);
            db.awaitRunningQuery(SLEEP_LONG, Duration.ofSeconds(10));
            st.cancel();
            assertEquals("57014", outcome.get(CANCEL_WAIT_SECONDS, TimeUnit.SECONDS).getSQLState());
            assertEquals(backend, logical(c).currentBackendPid(), "the failed transaction keeps its backend");
            assertEquals("25P02", assertThrows(SQLException.class, () -> pid(c)).getSQLState());
            c.rollback();
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(backend, pid(c));
            c.commit();
        }
    }

    @Test
    void aCancelledStatementCanRunAgain() throws Exception {
        JdbcPool pool = poolOfOne();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            CompletableFuture<SQLException> outcome = runAsync(st, SLEEP_LONG);
            db.awaitRunningQuery(SLEEP_LONG, Duration.ofSeconds(10));
            st.cancel();
            assertEquals("57014", outcome.get(CANCEL_WAIT_SECONDS, TimeUnit.SECONDS).getSQLState());
            assertTrue(st.execute("SELECT pg_sleep(0.1)"), "the same statement runs to completion");
        }
    }
}
