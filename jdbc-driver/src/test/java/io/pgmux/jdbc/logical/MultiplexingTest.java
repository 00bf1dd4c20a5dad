package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.logical;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two thousand application threads, each holding its own logical connection for the whole run, share ten
 * server connections. Every transaction records the backend it ran on and when, so the run can be checked
 * afterwards for the one invariant multiplexing must never break: no two logical connections interleave
 * on one backend.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiplexingTest {
    private static final int CLIENTS = 2_000;
    private static final int BACKENDS = 10;
    /** Even-numbered transactions use setAutoCommit(false)/commit(), odd ones plain SQL BEGIN/COMMIT. */
    private static final int TRANSACTIONS_PER_CLIENT = 4;
    private static final String APP = "mux-2000";
    private static final long STACK_SIZE = 256 * 1024;

    private final TestDatabase db;
    private final TestPools pools;
    private final Queue<Transaction> transactions = new ConcurrentLinkedQueue<>();
    private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final AtomicInteger samples = new AtomicInteger();
    private volatile int mostBackendsSeen;
    private int distinctPidsInLog;

    /** One transaction as its client saw it: the backend at its first and last statement, and when. */
    record Transaction(int client, int number, int pidAtStart, int pidAtEnd, long startNanos, long endNanos,
                       boolean heldAfterCommit) {
    }

    MultiplexingTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeAll
    void runTwoThousandClientsOverTenBackends() throws Exception {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("CREATE TABLE mux_log (client int, n int, pid int, PRIMARY KEY (client, n))");
        }
        JdbcPool pool = pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(BACKENDS)
                .poolMode(PoolMode.TRANSACTION));

        CountDownLatch allOpen = new CountDownLatch(CLIENTS);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch allWorked = new CountDownLatch(CLIENTS);
        CountDownLatch allClosed = new CountDownLatch(CLIENTS);
        for (int i = 0; i < CLIENTS; i++) {
            int client = i;
            Thread t = new Thread(null, () -> {
                boolean opened = false;
                boolean worked = false;
                try (Connection c = pool.getConnection()) {
                    allOpen.countDown();
                    opened = true;
                    go.await();
                    for (int n = 0; n < TRANSACTIONS_PER_CLIENT; n++) {
                        transactions.add(n % 2 == 0 ? jdbcTransaction(c, client, n) : sqlTransaction(c, client, n));
                    }
                    allWorked.countDown();
                    worked = true;
                    // Keep the logical connection open until every client is done: 2,000 open at once.
                    allWorked.await();
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    if (!opened) {
                        allOpen.countDown();
                    }
                    if (!worked) {
                        allWorked.countDown();
                    }
                    allClosed.countDown();
                }
            }, "mux-client-" + i, STACK_SIZE);
            t.setDaemon(true);
            t.start();
        }
        assertTrue(allOpen.await(60, TimeUnit.SECONDS), "2,000 logical connections opened");

        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                int n = db.countConnections(Backends.withApplicationName(APP));
                mostBackendsSeen = Math.max(mostBackendsSeen, n);
                samples.incrementAndGet();
            }
        }, "mux-sampler");
        sampler.start();
        long start = System.nanoTime();
        go.countDown();
        assertTrue(allClosed.await(90, TimeUnit.SECONDS), "all clients finished");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        sampling.set(false);
        sampler.join();
        System.out.printf("%d clients, %d transactions over %d backends in %d ms%n", CLIENTS, transactions.size(),
                BACKENDS, millis);

        try (Connection admin = db.connect()) {
            distinctPidsInLog = Integer.parseInt(TestPools.one(admin, "SELECT count(DISTINCT pid) FROM mux_log"));
        }
    }

    @AfterAll
    void closePool() {
        pools.close();
    }

    private static Transaction jdbcTransaction(Connection c, int client, int n) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            int pidAtStart = pid(st);
            long start = System.nanoTime();
            st.executeUpdate("INSERT INTO mux_log VALUES (" + client + ", " + n + ", pg_backend_pid())");
            int pidAtEnd = pid(st);
            long end = System.nanoTime();
            c.commit();
            boolean held = logical(c).holdsServerConnection();
            c.setAutoCommit(true);
            return new Transaction(client, n, pidAtStart, pidAtEnd, start, end, held);
        }
    }

    private static Transaction sqlTransaction(Connection c, int client, int n) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("BEGIN");
            int pidAtStart = pid(st);
            long start = System.nanoTime();
            st.executeUpdate("INSERT INTO mux_log VALUES (" + client + ", " + n + ", pg_backend_pid())");
            int pidAtEnd = pid(st);
            long end = System.nanoTime();
            st.execute("COMMIT");
            return new Transaction(client, n, pidAtStart, pidAtEnd, start, end, logical(c).holdsServerConnection());
        }
    }

    private static int pid(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void everyClientCommitsAllItsTransactionsWithoutError() throws SQLException {
        assertTrue(errors.isEmpty(), () -> errors.size() + " clients failed, first: " + stackOf(errors.peek()));
        assertEquals(CLIENTS * TRANSACTIONS_PER_CLIENT, transactions.size());
        try (Connection admin = db.connect()) {
            assertEquals(CLIENTS * TRANSACTIONS_PER_CLIENT, TestPools.count(admin, "SELECT count(*) FROM mux_log"));
        }
    }

    @Test
    void everyTransactionRunsOnOneBackendFromBeginToCommit() throws SQLException {
        List<Transaction> moved = transactions.stream().filter(t -> t.pidAtStart != t.pidAtEnd).toList();
        assertTrue(moved.isEmpty(), () -> moved.size() + " transactions changed backend, e.g. " + moved.get(0));
        Map<String, Integer> logged = new HashMap<>();
        try (Connection admin = db.connect(); Statement st = admin.createStatement();
             ResultSet rs = st.executeQuery("SELECT client, n, pid FROM mux_log")) {
            while (rs.next()) {
                logged.put(rs.getInt(1) + "/" + rs.getInt(2), rs.getInt(3));
            }
        }
        for (Transaction t : transactions) {
            assertEquals(t.pidAtStart, logged.get(t.client + "/" + t.number), () -> "INSERT of " + t);
        }
    }

    @Test
    void noTwoTransactionsOverlapInTimeOnOneBackend() {
        Map<Integer, List<Transaction>> byPid = transactions.stream()
                .collect(Collectors.groupingBy(Transaction::pidAtStart));
        List<String> interleaved = new ArrayList<>();
        for (List<Transaction> onBackend : byPid.values()) {
            onBackend.sort(Comparator.comparingLong(Transaction::startNanos));
            Transaction latest = null;
            for (Transaction t : onBackend) {
                if (latest != null && t.startNanos < latest.endNanos) {
                    interleaved.add(t + " began before " + latest + " ended");
                }
                if (latest == null || t.endNanos > latest.endNanos) {
                    latest = t;
                }
            }
        }
        assertTrue(interleaved.isEmpty(), () -> interleaved.size() + " interleavings, e.g. " + interleaved.get(0));
        assertTrue(mostConcurrentTransactions() > 1,
                "transactions of different clients did run at the same time, so the check above means something");
    }

    @Test
    void pgStatActivityNeverShowsMoreThanTheTenServerConnections() {
        assertTrue(samples.get() > 0, "the sampler looked at least once");
        assertTrue(mostBackendsSeen <= BACKENDS, "at most " + BACKENDS + " backends, saw " + mostBackendsSeen);
        assertTrue(distinctPidsInLog <= BACKENDS, distinctPidsInLog + " distinct backends served the clients");
    }

    @Test
    void everyCommitGivesTheServerConnectionBack() {
        List<Transaction> kept = transactions.stream().filter(Transaction::heldAfterCommit).toList();
        assertTrue(kept.isEmpty(), () -> kept.size() + " transactions kept the backend after commit, e.g. "
                + kept.get(0));
    }

    /** The most transactions in flight at one instant, from their recorded intervals. */
    private int mostConcurrentTransactions() {
        List<long[]> events = new ArrayList<>();
        for (Transaction t : transactions) {
            events.add(new long[] {t.startNanos, 1});
            events.add(new long[] {t.endNanos, -1});
        }
        events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int now = 0;
        int most = 0;
        for (long[] e : events) {
            now += (int) e[1];
            most = Math.max(most, now);
        }
        return most;
    }

    private static String stackOf(Throwable t) {
        if (t == null) {
            return "none";
        }
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
