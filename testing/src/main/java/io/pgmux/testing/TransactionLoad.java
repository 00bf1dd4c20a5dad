package io.pgmux.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Clients running short transactions through a pooler while its server goes away: each reads an account, updates
 * it, records the change in {@code history} under its own client number and sequence number, and commits, with a
 * pause between transactions; after an error it rolls back (or connects again if its connection is gone) and
 * carries on. Every client connects and commits once before {@link #start} returns, so connecting is not part of
 * what is measured. {@link Result#check} then reads the tables: every acknowledged commit must be there once, and
 * the balances must add up to the history. Close it (try-with-resources) so that a test failing before {@link #stop}
 * leaves no client running.
 */
public final class TransactionLoad implements AutoCloseable {
    private static final int ACCOUNTS = 1000;
    /** The statements creating the load's tables, to run on the database before {@link #start}. */
    public static final List<String> SCHEMA = List.of(
            "CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)",
            "INSERT INTO accounts SELECT g, 0 FROM generate_series(1, " + ACCOUNTS + ") g",
            "CREATE TABLE history (client int NOT NULL, seq int NOT NULL, account int NOT NULL, delta int NOT NULL)");
    /** The first statement of each transaction, which a pooler may run again elsewhere: nothing was answered. */
    private static final String FIRST_STATEMENT = "read";
    private static final Duration WARM_UP = Duration.ofSeconds(60);
    private static final int FAILURES_LISTED = 20;

    /** A transaction that threw: whose, at which statement, and what. */
    public record Failure(int client, int seq, String statement, String sqlState, String message) {
        @Override
        public String toString() {
            return "client " + client + " #" + seq + " at " + statement + ": " + sqlState + " " + message;
        }
    }

    private final OutageWatch.ConnectionSource source;
    private final Duration think;
    private final List<Set<Integer>> acknowledged = new ArrayList<>();
    private final List<Thread> clients = new ArrayList<>();
    private final Queue<Failure> failures = new ConcurrentLinkedQueue<>();
    private final LongAdder commits = new LongAdder();
    private final CountDownLatch warmedUp;
    private volatile boolean running = true;

    private TransactionLoad(OutageWatch.ConnectionSource source, int clientCount, Duration think) {
        this.source = source;
        this.think = think;
        this.warmedUp = new CountDownLatch(clientCount);
    }

    /** Starts {@code clientCount} clients; returns once each has connected and committed its first transaction. */
    public static TransactionLoad start(OutageWatch.ConnectionSource source, int clientCount, Duration think)
            throws InterruptedException {
        TransactionLoad load = new TransactionLoad(source, clientCount, think);
        for (int client = 0; client < clientCount; client++) {
            // written by the client's thread only, read after it has been joined
            Set<Integer> acked = new HashSet<>();
            load.acknowledged.add(acked);
            int id = client;
            Thread thread = new Thread(() -> load.run(id, acked), "load-client-" + id);
            thread.setDaemon(true);
            thread.start();
            load.clients.add(thread);
        }
        if (!load.warmedUp.await(WARM_UP.toSeconds(), TimeUnit.SECONDS)) {
            load.running = false;
            throw new AssertionError("the load's clients did not all commit a first transaction within "
                    + WARM_UP.toSeconds() + " s; failures: " + load.failures);
        }
        load.failures.clear();
        return load;
    }

    /** Commits acknowledged so far, the warm-up's included. */
    public long commits() {
        return commits.sum();
    }

    /** Waits until the clients have acknowledged this many more commits than now: the load is running. */
    public void awaitMoreCommits(long count, Duration timeout) {
        long target = commits() + count;
        Await.until(() -> commits() >= target, timeout, "the load commits " + count + " more transactions");
    }

    /** Stops the clients after their current transaction and returns what they saw since {@link #start}. */
    public Result stop() throws InterruptedException {
        running = false;
        for (Thread client : clients) {
            client.join(TimeUnit.MINUTES.toMillis(1));
            if (client.isAlive()) {
                throw new AssertionError(client.getName() + " still runs a transaction a minute after the stop");
            }
        }
        return new Result(commits.sum(), List.copyOf(failures), acknowledged);
    }

    /** Stops the clients without waiting for them: for a test that ends before {@link #stop}. */
    @Override
    public void close() {
        running = false;
    }

    private void run(int client, Set<Integer> acked) {
        Connection c = null;
        int seq = 0;
        boolean warm = false;
        String[] statement = new String[1];
        while (running) {
            try {
                if (c == null) {
                    statement[0] = "connect";
                    c = source.open();
                    c.setAutoCommit(false);
                }
                transaction(c, client, seq, statement);
                acked.add(seq);
                commits.increment();
                if (!warm) {
                    warm = true;
                    warmedUp.countDown();
                }
            } catch (SQLException e) {
                failures.add(new Failure(client, seq, statement[0], e.getSQLState(), firstLine(e.getMessage())));
                c = recover(c);
            }
            seq++;
            PgServer.pause(think);
        }
        closeQuietly(c);
    }

    /** One transaction; {@code statement} names the one running, for the report of an error. */
    private static void transaction(Connection c, int client, int seq, String[] statement) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int account = random.nextInt(1, ACCOUNTS + 1);
        int delta = random.nextInt(-5000, 5001);
        try (PreparedStatement read = c.prepareStatement("SELECT balance FROM accounts WHERE id = ?");
             PreparedStatement update = c.prepareStatement("UPDATE accounts SET balance = balance + ? WHERE id = ?");
             PreparedStatement record = c.prepareStatement("INSERT INTO history VALUES (?, ?, ?, ?)")) {
            read.setInt(1, account);
            statement[0] = FIRST_STATEMENT;
            try (ResultSet rs = read.executeQuery()) {
                rs.next();
            }
            update.setInt(1, delta);
            update.setInt(2, account);
            statement[0] = "update";
            update.executeUpdate();
            record.setInt(1, client);
            record.setInt(2, seq);
            record.setInt(3, account);
            record.setInt(4, delta);
            statement[0] = "insert";
            record.executeUpdate();
            statement[0] = "commit";
            c.commit();
        }
    }

    /** After an error: rolls back what can be; a connection that is gone is closed, and opened anew next time. */
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

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // already gone
            }
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /** The count of {@code failures} and the first of them, for an assertion's message. */
    public static String describe(List<Failure> failures) {
        List<Failure> first = failures.subList(0, Math.min(FAILURES_LISTED, failures.size()));
        return failures.size() + (failures.size() > first.size() ? ", the first " + first.size() : "") + ": "
                + first;
    }

    /** What the clients saw: the commits acknowledged and the transactions that threw. */
    public static final class Result {
        private final long commits;
        private final List<Failure> failures;
        private final List<Set<Integer>> acknowledged;

        private Result(long commits, List<Failure> failures, List<Set<Integer>> acknowledged) {
            this.commits = commits;
            this.failures = failures;
            this.acknowledged = acknowledged;
        }

        public long commits() {
            return commits;
        }

        public List<Failure> failures() {
            return failures;
        }

        /** The failures at a transaction's first statement, or at connecting: a pooler had a server to find. */
        public List<Failure> failuresBeforeAnAnswer() {
            return failures.stream()
                    .filter(f -> f.statement().equals(FIRST_STATEMENT) || f.statement().equals("connect"))
                    .toList();
        }

        /** Reads the tables through {@code c} (a direct connection to the server that has them now). */
        public Ledger check(Connection c) throws SQLException {
            List<Set<Integer>> recorded = new ArrayList<>();
            for (int i = 0; i < acknowledged.size(); i++) {
                recorded.add(new HashSet<>());
            }
            List<String> doubled = new ArrayList<>();
            boolean balancesMatch;
            try (Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT client, seq FROM history")) {
                    while (rs.next()) {
                        if (!recorded.get(rs.getInt(1)).add(rs.getInt(2))) {
                            doubled.add("client " + rs.getInt(1) + " #" + rs.getInt(2));
                        }
                    }
                }
                try (ResultSet rs = st.executeQuery("SELECT (SELECT coalesce(sum(balance), 0) FROM accounts) = "
                        + "(SELECT coalesce(sum(delta), 0) FROM history)")) {
                    rs.next();
                    balancesMatch = rs.getBoolean(1);
                }
            }
            List<String> lost = new ArrayList<>();
            for (int client = 0; client < acknowledged.size(); client++) {
                for (Integer seq : acknowledged.get(client)) {
                    if (!recorded.get(client).contains(seq)) {
                        lost.add("client " + client + " #" + seq);
                    }
                }
            }
            return new Ledger(lost, doubled, balancesMatch);
        }
    }

    /**
     * @param lost acknowledged commits missing from the history
     * @param doubled transactions recorded twice
     * @param balancesMatch whether the accounts' balances add up to the history's deltas
     */
    public record Ledger(List<String> lost, List<String> doubled, boolean balancesMatch) {
    }
}
