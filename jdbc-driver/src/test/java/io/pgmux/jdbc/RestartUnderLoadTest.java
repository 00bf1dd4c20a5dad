package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.OutageWatch;
import io.pgmux.testing.PgbenchTables;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * A fast restart of the server under 32 threads running pgbench's TPC-B transaction through a PgMuxDataSource of
 * 20 server connections, with idle logical connections and a prober beside them. The restart's budget: only the
 * transactions running on a server the restart killed after their first statement was answered may fail, at most
 * one per server connection; idle connections see no error; the balances stay exact. The time without service is
 * logged (docs/benchmarks.md, "Server restart under load"), never asserted. Short on purpose: the machine is shared.
 */
@PostgresTest
class RestartUnderLoadTest {
    private static final int LOAD_THREADS = 32;
    private static final int IDLE_CLIENTS = 8;
    private static final int POOL_SIZE = 20;
    private static final long LOAD_MILLIS = 10_000;
    /** The floor: a transaction in flight on each server connection of the dying server, and nothing else. */
    private static final int MAX_FAILED_TRANSACTIONS_PER_RESTART = POOL_SIZE;

    private final TestDatabase db;
    private final LongAdder committed = new LongAdder();
    private static final int FAILURES_LISTED = 20;
    private final LongAdder failed = new LongAdder();
    private final LongAdder failedAtFirstStatement = new LongAdder();
    /** The first failures, for the assertions' messages. */
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();

    RestartUnderLoadTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void aFastRestartUnderTpcbCostsIdleConnectionsNoErrorAndLosesNoMoney() throws Exception {
        PgbenchTables.initialize(db);
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl(db.jdbcUrl());
            ds.setUsername(db.superuser());
            ds.setPassword(db.superuserPassword());
            ds.setMaximumPoolSize(POOL_SIZE);
            ds.setConnectionTimeout(60_000);
            try (OutageWatch watch = OutageWatch.start(ds::getConnection, IDLE_CLIENTS)) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOAD_MILLIS);
                List<Thread> load = new ArrayList<>();
                for (int i = 0; i < LOAD_THREADS; i++) {
                    Thread t = new Thread(() -> runTpcb(ds, deadline), "tpcb-" + i);
                    t.setDaemon(true);
                    t.start();
                    load.add(t);
                }
                while (committed.sum() < 100) {
                    assertTrue(System.nanoTime() < deadline, "the load committed fewer than 100 transactions");
                    Thread.sleep(20);
                }
                long committedBefore = committed.sum();
                watch.outageBegins();
                watch.runIdleClientsOnceRefusedBy(db);
                db.server().restart();
                watch.serverBack();
                OutageWatch.Report report = watch.report(60, TimeUnit.SECONDS);
                for (Thread t : load) {
                    t.join(TimeUnit.MINUTES.toMillis(1));
                }
                System.out.printf("RESTART jdbc: restart %d ms, without service %d ms (%d ms after the server was "
                        + "back), %d idle connections served %d ms after the server was back with %d errors, prober "
                        + "errors %s, %d of %d load threads' transactions failed (in a transaction on a dying "
                        + "server), %d committed before the restart and %d in all%n",
                        report.restartMillis(), report.withoutServiceMillis(), report.afterServerBackMillis(),
                        report.idleClients(), report.slowestIdleClientMillis(), report.idleClientErrors().size(),
                        report.proberErrors(), failed.sum(), LOAD_THREADS, committedBefore, committed.sum());
                assertAll(
                        () -> assertTrue(failed.sum() <= MAX_FAILED_TRANSACTIONS_PER_RESTART, "at most "
                                + MAX_FAILED_TRANSACTIONS_PER_RESTART + " transactions fail, one per server "
                                + "connection of the dying server; failed " + failed.sum() + ", the first: "
                                + failures),
                        () -> assertEquals(0, failedAtFirstStatement.sum(), "no transaction fails before its "
                                + "first statement was answered; the first failures: " + failures),
                        () -> assertEquals(List.of(), report.idleClientErrors(), "idle connections saw no error"));
            }
        }
        PgbenchTables.assertBalancesExact(db);
    }

    /** One load thread: TPC-B transactions on its own logical connection; a failed one is rolled back and counted. */
    private void runTpcb(PgMuxDataSource ds, long deadline) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() < deadline) {
                int aid = random.nextInt(1, 100_001);
                int tid = random.nextInt(1, 11);
                int delta = random.nextInt(-5000, 5001);
                boolean first = true;
                try {
                    update(c, "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?", delta, aid);
                    first = false;
                    update(c, "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?", delta, tid);
                    update(c, "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?", delta, 1);
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO pgbench_history (tid, bid, aid, delta,"
                            + " mtime) VALUES (?, 1, ?, ?, CURRENT_TIMESTAMP)")) {
                        ps.setInt(1, tid);
                        ps.setInt(2, aid);
                        ps.setInt(3, delta);
                        ps.executeUpdate();
                    }
                    c.commit();
                    committed.increment();
                } catch (SQLException e) {
                    failed.increment();
                    if (first) {
                        failedAtFirstStatement.increment();
                    }
                    if (failures.size() < FAILURES_LISTED) {
                        failures.add((first ? "at the first statement: " : "") + e.getSQLState() + " "
                                + e.getMessage());
                    }
                    c.rollback();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void update(Connection c, String sql, int delta, int key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, delta);
            ps.setInt(2, key);
            ps.executeUpdate();
        }
    }
}
