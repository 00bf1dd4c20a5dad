package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.StandbyPair;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failover measured the RDS Proxy way: clients doing short read+update transactions with think time against a
 * primary and its streaming standby, listed as a host list that wants the primary; mid-run the primary stops and
 * the standby is promoted. The same run through direct pgjdbc (one connection per client, reconnecting after an
 * error), pgmux's JDBC driver and pgmux's proxy, each against a fresh pair. Reported per way: transactions,
 * errors per 10,000, the longest time without a commit, and exact consistency (every acknowledged commit present,
 * none doubled, balances the sum of the history). Not part of the build; see docs/benchmarks.md for the command.
 */
@Tag("benchmark")
class FailoverBenchmarkTest {
    private static final int CLIENTS = Integer.getInteger("failover.clients", 100);
    private static final Duration RUN = Duration.ofSeconds(Integer.getInteger("failover.seconds", 20));
    private static final Duration FAILOVER_AT = Duration.ofSeconds(Integer.getInteger("failover.at", 8));
    private static final int THINK_MILLIS = Integer.getInteger("failover.think", 10);
    private static final int POOL_SIZE = Integer.getInteger("failover.pool", 20);
    /** Which ways to run: direct, jdbc, proxy (comma-separated). */
    private static final Set<String> WAYS = Set.of(System.getProperty("failover.ways", "direct,jdbc,proxy").split(","));
    private static final int ACCOUNTS = 1000;
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";

    /** One way of reaching the database: a connection per client, and what to close after the run. */
    @FunctionalInterface
    private interface Way extends AutoCloseable {
        Connection connect() throws SQLException;

        @Override
        default void close() {
        }
    }

    private record Outcome(String way, long attempts, long commits, long errors, Duration longestGap,
            Duration failover, long lost, long doubled, long committedDespiteError, boolean sumsMatch,
            Map<String, Long> errorKinds) {

        double errorsPer10k() {
            return attempts == 0 ? 0 : errors * 10_000.0 / attempts;
        }
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void clientsThroughAFailover() throws Exception {
        String loadBefore = Machine.loadAverage();
        List<Outcome> outcomes = new ArrayList<>();
        run(outcomes, "direct", "direct pgjdbc, targetServerType=primary", pair -> {
            String url = "jdbc:postgresql://" + pair.hostList() + "/postgres?targetServerType=primary";
            return () -> DriverManager.getConnection(url, pair.superuser(), "");
        });
        run(outcomes, "jdbc", "pgmux JDBC driver, pool " + POOL_SIZE, pair -> {
            PgMuxDataSource ds = new PgMuxDataSource();
            ds.setJdbcUrl("jdbc:postgresql://" + pair.hostList() + "/postgres?targetServerType=primary");
            ds.setUsername(pair.superuser());
            ds.setPassword("");
            ds.setMaximumPoolSize(POOL_SIZE);
            return new Way() {
                @Override
                public Connection connect() throws SQLException {
                    return ds.getConnection();
                }

                @Override
                public void close() {
                    ds.close();
                }
            };
        });
        run(outcomes, "proxy", "pgmux proxy, pool " + POOL_SIZE, pair -> {
            String ini = "[databases]\napp = host=" + pair.host() + "," + pair.host() + " port=" + pair.primaryPort()
                    + "," + pair.standbyPort() + " dbname=postgres user=" + pair.superuser()
                    + " target_session_attrs=read-write\n[pgbouncer]\npool_mode = transaction\ndefault_pool_size = "
                    + POOL_SIZE + "\nmax_client_conn = " + (CLIENTS + 10) + "\n";
            PgMuxProxy proxy = ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                    .listen("127.0.0.1", 0).users(Map.of(USER, PASSWORD)).start();
            String url = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/app";
            return new Way() {
                @Override
                public Connection connect() throws SQLException {
                    return DriverManager.getConnection(url, USER, PASSWORD);
                }

                @Override
                public void close() {
                    proxy.close();
                }
            };
        });
        String report = report(outcomes, loadBefore, Machine.loadAverage());
        System.out.println(report);
        Files.writeString(Path.of("target", "failover-benchmark.md"), report);
        assertAll(outcomes.stream().map(o -> () -> {
            assertEquals(0, o.lost(), o.way() + ": acknowledged commits missing");
            assertEquals(0, o.doubled(), o.way() + ": transactions recorded twice");
            assertEquals(true, o.sumsMatch(), o.way() + ": balances differ from the history's sum");
        }));
    }

    @FunctionalInterface
    private interface WayFactory {
        Way open(StandbyPair pair) throws Exception;
    }

    private void run(List<Outcome> outcomes, String key, String name, WayFactory factory) throws Exception {
        if (WAYS.contains(key)) {
            outcomes.add(run(name, factory));
        }
    }

    private Outcome run(String name, WayFactory factory) throws Exception {
        try (StandbyPair pair = StandbyPair.start()) {
            pair.executeOnPrimary(
                    "CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)",
                    "INSERT INTO accounts SELECT g, 0 FROM generate_series(1, " + ACCOUNTS + ") g",
                    "CREATE TABLE history (client int NOT NULL, seq int NOT NULL, account int NOT NULL, "
                            + "delta int NOT NULL)");
            pair.awaitStandbyCaughtUp();
            try (Way way = factory.open(pair)) {
                return measure(name, pair, way);
            }
        }
    }

    private Outcome measure(String name, StandbyPair pair, Way way) throws Exception {
        // every client connects and commits once before the clock starts: connecting is not the failover
        CountDownLatch ready = new CountDownLatch(CLIENTS);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        // gaps count from the first commit after the start
        AtomicLong lastCommit = new AtomicLong(Long.MIN_VALUE);
        AtomicLong longestGap = new AtomicLong();
        LongAdder attempts = new LongAdder();
        LongAdder errors = new LongAdder();
        LongAdder opened = new LongAdder();
        Map<String, Long> errorKinds = new ConcurrentHashMap<>();
        List<Set<Integer>> acknowledged = new ArrayList<>();
        List<Thread> clients = new ArrayList<>();
        for (int client = 0; client < CLIENTS; client++) {
            Set<Integer> acked = new HashSet<>();
            acknowledged.add(acked);
            int id = client;
            Thread thread = new Thread(() -> {
                // the statement of the transaction running when an error came: read, update, insert or commit
                String[] step = new String[1];
                Connection c = warmUp(way, id, ready, step);
                acked.add(0);
                awaitQuietly(go);
                long end = window[1];
                int seq = 0;
                while (System.nanoTime() < end) {
                    seq++;
                    attempts.increment();
                    try {
                        if (c == null) {
                            opened.increment();
                            c = way.connect();
                            c.setAutoCommit(false);
                        }
                        step[0] = "connect";
                        transaction(c, id, seq, step);
                        acked.add(seq);
                        long now = System.nanoTime();
                        long before = lastCommit.getAndAccumulate(now, Math::max);
                        if (before != Long.MIN_VALUE) {
                            longestGap.accumulateAndGet(now - before, Math::max);
                        }
                    } catch (SQLException e) {
                        errors.increment();
                        errorKinds.merge("at " + step[0] + ": " + e.getSQLState() + " " + firstLine(e.getMessage()),
                                1L, Long::sum);
                        c = recover(c);
                    }
                    pause(THINK_MILLIS);
                }
                closeQuietly(c);
            }, "failover-client-" + id);
            thread.start();
            clients.add(thread);
        }
        ready.await();
        long start = System.nanoTime();
        long end = start + RUN.toNanos();
        window[0] = start;
        window[1] = end;
        lastCommit.set(Long.MIN_VALUE);
        go.countDown();
        pause(FAILOVER_AT.toMillis());
        long failoverStart = System.nanoTime();
        pair.stopPrimary();
        pair.promoteStandby();
        Duration failover = Duration.ofNanos(System.nanoTime() - failoverStart);
        for (Thread t : clients) {
            t.join();
        }
        longestGap.accumulateAndGet(end - Math.max(lastCommit.get(), start), Math::max);
        System.out.println(name + ": " + opened.sum() + " connections opened again after errors");
        return check(name, pair, attempts.sum(), errors.sum(), Duration.ofNanos(longestGap.get()), failover,
                acknowledged, errorKinds);
    }

    /** Connects and commits one transaction (sequence 0, retried until it works); counts down when done. */
    private static Connection warmUp(Way way, int client, CountDownLatch ready, String[] step) {
        Connection c = null;
        while (true) {
            try {
                if (c == null) {
                    c = way.connect();
                    c.setAutoCommit(false);
                }
                transaction(c, client, 0, step);
                ready.countDown();
                return c;
            } catch (SQLException e) {
                c = recover(c);
                pause(THINK_MILLIS);
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One transaction; {@code step} names the statement running, for the report of an error. */
    private static void transaction(Connection c, int client, int seq, String[] step) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int account = random.nextInt(1, ACCOUNTS + 1);
        int delta = random.nextInt(-5000, 5001);
        try (PreparedStatement read = c.prepareStatement("SELECT balance FROM accounts WHERE id = ?");
             PreparedStatement update = c.prepareStatement(
                     "UPDATE accounts SET balance = balance + ? WHERE id = ?");
             PreparedStatement record = c.prepareStatement("INSERT INTO history VALUES (?, ?, ?, ?)")) {
            read.setInt(1, account);
            step[0] = "read";
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
            }
            update.setInt(1, delta);
            update.setInt(2, account);
            step[0] = "update";
            update.executeUpdate();
            record.setInt(1, client);
            record.setInt(2, seq);
            record.setInt(3, account);
            record.setInt(4, delta);
            step[0] = "insert";
            record.executeUpdate();
            step[0] = "commit";
            c.commit();
        }
    }

    /** After an error: rolls back what can be; a connection that is gone is closed and opened anew next time. */
    private static Connection recover(Connection c) {
        if (c == null) {
            return null;
        }
        try {
            if (!c.isClosed()) {
                c.rollback();
                return c;
            }
        } catch (SQLException e) {
            // unusable: replaced below
        }
        closeQuietly(c);
        return null;
    }

    private static Outcome check(String name, StandbyPair pair, long attempts, long errors, Duration longestGap,
            Duration failover, List<Set<Integer>> acknowledged, Map<String, Long> errorKinds) throws SQLException {
        List<Set<Integer>> recorded = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            recorded.add(new HashSet<>());
        }
        long doubled = 0;
        boolean sumsMatch;
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT client, seq FROM history")) {
                while (rs.next()) {
                    if (!recorded.get(rs.getInt(1)).add(rs.getInt(2))) {
                        doubled++;
                    }
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT (SELECT coalesce(sum(balance), 0) FROM accounts) = "
                    + "(SELECT coalesce(sum(delta), 0) FROM history)")) {
                rs.next();
                sumsMatch = rs.getBoolean(1);
            }
        }
        long lost = 0;
        long commits = 0;
        long committedDespiteError = 0;
        for (int i = 0; i < CLIENTS; i++) {
            Set<Integer> acked = acknowledged.get(i);
            Set<Integer> found = recorded.get(i);
            commits += acked.size();
            for (Integer seq : acked) {
                if (!found.contains(seq)) {
                    lost++;
                }
            }
            for (Integer seq : found) {
                if (!acked.contains(seq)) {
                    committedDespiteError++;
                }
            }
        }
        return new Outcome(name, attempts, commits, errors, longestGap, failover, lost, doubled,
                committedDespiteError, sumsMatch, errorKinds);
    }

    private static String report(List<Outcome> outcomes, String loadBefore, String loadAfter) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("Failover: %d clients, read+update+insert transactions with %d ms think time, %d s "
                + "per way; at %d s the primary stops (fast) and the standby is promoted. %s; load average at start "
                + "%s, at end %s; %s.%n%n", CLIENTS, THINK_MILLIS, RUN.toSeconds(), FAILOVER_AT.toSeconds(),
                Machine.describe(), loadBefore, loadAfter, Instant.now()));
        b.append("| way | transactions | errors | errors per 10,000 | longest time without a commit | stop + promote "
                + "| lost | doubled | committed though reported failed | balances = history |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Outcome o : outcomes) {
            b.append(String.format("| %s | %d | %d | %.1f | %.2f s | %.2f s | %d | %d | %d | %s |%n", o.way(),
                    o.commits(), o.errors(), o.errorsPer10k(), o.longestGap().toMillis() / 1000.0,
                    o.failover().toMillis() / 1000.0, o.lost(), o.doubled(), o.committedDespiteError(),
                    o.sumsMatch() ? "yes" : "NO"));
        }
        b.append('\n');
        for (Outcome o : outcomes) {
            b.append(o.way()).append(" errors by statement, SQLSTATE and message:")
                    .append(o.errorKinds().isEmpty() ? " none" : "").append('\n');
            new TreeMap<>(o.errorKinds()).forEach((kind, count) -> b.append("- ").append(count).append(" × ")
                    .append(kind).append('\n'));
        }
        return b.toString();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return line.length() > 120 ? line.substring(0, 120) : line;
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // already gone
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
