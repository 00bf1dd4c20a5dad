package io.pgmux.jdbc.logical;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;

/**
 * pgbench's TPC-B transaction from 200 application threads over 16 server connections: whatever the
 * multiplexing does, money is neither created nor lost, and every committed transaction left exactly one
 * history row.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TpcbConsistencyTest {
    private static final Duration DURATION = Duration.ofSeconds(20);
    private static final int CLIENTS = 200;
    private static final int BACKENDS = 16;
    private static final int SCALE = 1;
    private static final int BRANCHES = SCALE;
    private static final int TELLERS = 10 * SCALE;
    private static final int ACCOUNTS = 100_000 * SCALE;

    private final TestDatabase db;
    private final TestPools pools;
    private final LongAdder committed = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private int mostServerConnections;

    TpcbConsistencyTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeAll
    void runTpcbForTwentySeconds() throws Exception {
        JdbcPool pool = pools.open("tpcb", PoolConfig.jdbcDefaults().defaultPoolSize(BACKENDS)
                .poolMode(PoolMode.TRANSACTION));
        initialize(pool);

        CountDownLatch done = new CountDownLatch(CLIENTS);
        long deadline = System.nanoTime() + DURATION.toNanos();
        for (int i = 0; i < CLIENTS; i++) {
            Thread t = new Thread(null, () -> {
                try {
                    runClient(pool, deadline);
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    done.countDown();
                }
            }, "tpcb-client-" + i, 256 * 1024);
            t.setDaemon(true);
            t.start();
        }
        long start = System.nanoTime();
        while (!done.await(100, TimeUnit.MILLISECONDS)) {
            mostServerConnections = Math.max(mostServerConnections, pool.pool().getTotalConnections());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("TPC-B: %d clients over %d backends, %d transactions in %.1f s = %.0f tps (%d retried)%n",
                CLIENTS, BACKENDS, committed.sum(), seconds, committed.sum() / seconds, retried.sum());
    }

    @AfterAll
    void closePool() {
        pools.close();
    }

    /** pgbench -i -s 1, with the accounts loaded by COPY through an unwrapped (so pinned) logical connection. */
    private static void initialize(JdbcPool pool) throws Exception {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE pgbench_branches (bid int NOT NULL, bbalance int, filler char(88))");
            st.execute("CREATE TABLE pgbench_tellers (tid int NOT NULL, bid int, tbalance int, filler char(84))");
            st.execute("CREATE TABLE pgbench_accounts (aid int NOT NULL, bid int, abalance int, filler char(84))");
            st.execute("CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, "
                    + "filler char(22))");
            st.execute("INSERT INTO pgbench_branches SELECT b, 0, '' FROM generate_series(1, " + BRANCHES + ") b");
            st.execute("INSERT INTO pgbench_tellers SELECT t, (t - 1) / 10 + 1, 0, '' FROM generate_series(1, "
                    + TELLERS + ") t");
            StringBuilder rows = new StringBuilder(ACCOUNTS * 12);
            for (int aid = 1; aid <= ACCOUNTS; aid++) {
                rows.append(aid).append('\t').append((aid - 1) / 100_000 + 1).append("\t0\t\n");
            }
            long copied = c.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY pgbench_accounts FROM STDIN", new StringReader(rows.toString()));
            assertEquals(ACCOUNTS, copied);
            st.execute("ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)");
            st.execute("ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)");
            st.execute("ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)");
            st.execute("VACUUM ANALYZE");
        }
    }

    private void runClient(JdbcPool pool, long deadline) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement updateAccount = c.prepareStatement(
                     "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?");
             PreparedStatement selectAccount = c.prepareStatement(
                     "SELECT abalance FROM pgbench_accounts WHERE aid = ?");
             PreparedStatement updateTeller = c.prepareStatement(
                     "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?");
             PreparedStatement updateBranch = c.prepareStatement(
                     "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?");
             PreparedStatement insertHistory = c.prepareStatement(
                     "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)")) {
            c.setAutoCommit(false);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() < deadline) {
                int aid = random.nextInt(1, ACCOUNTS + 1);
                int bid = random.nextInt(1, BRANCHES + 1);
                int tid = random.nextInt(1, TELLERS + 1);
                int delta = random.nextInt(-5000, 5001);
                while (true) {
                    try {
                        updateAccount.setInt(1, delta);
                        updateAccount.setInt(2, aid);
                        assertEquals(1, updateAccount.executeUpdate());
                        selectAccount.setInt(1, aid);
                        try (ResultSet rs = selectAccount.executeQuery()) {
                            assertTrue(rs.next(), "account " + aid);
                        }
                        updateTeller.setInt(1, delta);
                        updateTeller.setInt(2, tid);
                        assertEquals(1, updateTeller.executeUpdate());
                        updateBranch.setInt(1, delta);
                        updateBranch.setInt(2, bid);
                        assertEquals(1, updateBranch.executeUpdate());
                        insertHistory.setInt(1, tid);
                        insertHistory.setInt(2, bid);
                        insertHistory.setInt(3, aid);
                        insertHistory.setInt(4, delta);
                        insertHistory.executeUpdate();
                        c.commit();
                        committed.increment();
                        break;
                    } catch (SQLException e) {
                        c.rollback();
                        if (!"40001".equals(e.getSQLState()) && !"40P01".equals(e.getSQLState())) {
                            throw e;
                        }
                        retried.increment();
                    }
                }
            }
        }
    }

    @Test
    void everyClientRunsUntilTheEndWithoutAnErrorOtherThanRetriedConflicts() {
        assertTrue(errors.isEmpty(), () -> errors.size() + " clients failed, first: " + errors.peek());
        assertTrue(committed.sum() > 0, "transactions committed");
    }

    @Test
    void accountTellerBranchAndHistoryTotalsAreEqual() throws SQLException {
        try (Connection admin = db.connect()) {
            long accounts = TestPools.count(admin, "SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts");
            long tellers = TestPools.count(admin, "SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers");
            long branches = TestPools.count(admin, "SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches");
            long history = TestPools.count(admin, "SELECT coalesce(sum(delta), 0) FROM pgbench_history");
            assertEquals(history, accounts, "sum(abalance) = sum(delta)");
            assertEquals(history, tellers, "sum(tbalance) = sum(delta)");
            assertEquals(history, branches, "sum(bbalance) = sum(delta)");
        }
    }

    @Test
    void everyCommittedTransactionLeftExactlyOneHistoryRow() throws SQLException {
        try (Connection admin = db.connect()) {
            assertEquals(committed.sum(), TestPools.count(admin, "SELECT count(*) FROM pgbench_history"));
        }
    }

    @Test
    void theTwoHundredClientsNeverUseMoreThanSixteenServerConnections() {
        assertTrue(mostServerConnections <= BACKENDS, "at most " + BACKENDS + ", saw " + mostServerConnections);
    }
}
