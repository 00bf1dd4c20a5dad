package io.pgmux.examples;

import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The quick-start demo: the same web-request-like workload run three ways against one PostgreSQL —
 * a new connection per request, pgmux in session mode (a classic pool, what HikariCP does) and pgmux in
 * transaction mode — and a table of what each achieved.
 *
 * <p>A "request" reads an account, spends a few milliseconds elsewhere (as an application calling
 * another service while it holds its connection), then updates the account. Uses {@code PG_URL}
 * ({@code jdbc:postgresql://host:port/db?user=…&password=…}) when set, else an embedded PostgreSQL.
 */
public final class QuickStart {
    private static final int CLIENTS = 100;
    private static final int POOL_SIZE = 10;
    private static final int ACCOUNTS = 10_000;
    private static final long THINK_MILLIS = 5;
    private static final long RUN_SECONDS = Long.getLong("quickstart.seconds", 10);

    private QuickStart() {
    }

    public static void main(String[] args) throws Exception {
        String url = System.getenv("PG_URL");
        EmbeddedPostgres embedded = null;
        if (url == null || url.isBlank()) {
            System.out.println("PG_URL is not set: starting an embedded PostgreSQL…");
            embedded = EmbeddedPostgres.builder().setServerConfig("max_connections", "300").start();
            url = embedded.getJdbcUrl("postgres", "postgres");
        }
        try {
            setUp(url);
            System.out.printf(Locale.ROOT, "%d client threads, each request: read, %d ms elsewhere, write; %d s per "
                    + "run; pool size %d%n%n", CLIENTS, THINK_MILLIS, RUN_SECONDS, POOL_SIZE);
            List<Result> results = new ArrayList<>();
            results.add(run("new connection per request", url, new DirectConnections(url)));
            try (PgMuxDataSource session = dataSource(url, PoolMode.SESSION)) {
                results.add(run("pgmux session mode", url, session::getConnection));
            }
            try (PgMuxDataSource transaction = dataSource(url, PoolMode.TRANSACTION)) {
                results.add(run("pgmux transaction mode", url, transaction::getConnection));
            }
            print(results);
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private static PgMuxDataSource dataSource(String url, PoolMode mode) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolMode(mode);
        ds.setMaximumPoolSize(POOL_SIZE);
        ds.setConnectionTimeout(60_000);
        ds.addDataSourceProperty("ApplicationName", "quickstart");
        return ds;
    }

    /** Where a request gets its connection. */
    @FunctionalInterface
    private interface ConnectionSource {
        Connection get() throws SQLException;
    }

    /** Opens a new server connection (a new backend process) for every request. */
    private static final class DirectConnections implements ConnectionSource {
        private final String url;

        DirectConnections(String url) {
            this.url = url.contains("?") ? url + "&ApplicationName=quickstart" : url + "?ApplicationName=quickstart";
        }

        @Override
        public Connection get() throws SQLException {
            return DriverManager.getConnection(url);
        }
    }

    private static void setUp(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS quickstart_accounts");
            st.execute("CREATE TABLE quickstart_accounts (id int PRIMARY KEY, balance bigint NOT NULL)");
            st.execute("INSERT INTO quickstart_accounts SELECT g, 0 FROM generate_series(1, " + ACCOUNTS + ") g");
            st.execute("ANALYZE quickstart_accounts");
        }
    }

    private static Result run(String name, String url, ConnectionSource source) throws Exception {
        System.out.println("running: " + name);
        AtomicBoolean running = new AtomicBoolean(true);
        LongAdder requests = new LongAdder();
        LongAdder latencyNanos = new LongAdder();
        AtomicInteger errors = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            Thread t = new Thread(() -> {
                while (running.get()) {
                    long start = System.nanoTime();
                    try {
                        request(source);
                        requests.increment();
                        latencyNanos.add(System.nanoTime() - start);
                    } catch (SQLException e) {
                        if (errors.incrementAndGet() == 1) {
                            System.out.println("  first error: " + e.getMessage());
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "client-" + i);
            threads.add(t);
        }
        int maxBackends = 0;
        try (Connection monitor = DriverManager.getConnection(url);
             PreparedStatement count = monitor.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'quickstart'")) {
            long started = System.nanoTime();
            threads.forEach(Thread::start);
            long end = started + TimeUnit.SECONDS.toNanos(RUN_SECONDS);
            while (System.nanoTime() < end) {
                try (ResultSet rs = count.executeQuery()) {
                    rs.next();
                    maxBackends = Math.max(maxBackends, rs.getInt(1));
                }
                Thread.sleep(100);
            }
            running.set(false);
            for (Thread t : threads) {
                t.join();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            long n = requests.sum();
            return new Result(name, n / seconds, n == 0 ? 0 : latencyNanos.sum() / 1e6 / n, maxBackends, errors.get());
        }
    }

    private static void request(ConnectionSource source) throws SQLException, InterruptedException {
        int id = ThreadLocalRandom.current().nextInt(1, ACCOUNTS + 1);
        try (Connection c = source.get()) {
            try (PreparedStatement read = c.prepareStatement("SELECT balance FROM quickstart_accounts WHERE id = ?")) {
                read.setInt(1, id);
                try (ResultSet rs = read.executeQuery()) {
                    rs.next();
                }
            }
            Thread.sleep(THINK_MILLIS);
            try (PreparedStatement write = c.prepareStatement(
                    "UPDATE quickstart_accounts SET balance = balance + 1 WHERE id = ?")) {
                write.setInt(1, id);
                write.executeUpdate();
            }
        }
    }

    private static void print(List<Result> results) {
        double base = results.get(0).requestsPerSecond;
        System.out.println();
        System.out.printf(Locale.ROOT, "%-28s %12s %8s %14s %10s %7s%n", "", "requests/s", "vs first",
                "latency (ms)", "backends", "errors");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "%-28s %12.0f %7.1fx %14.1f %10d %7d%n", r.name, r.requestsPerSecond,
                    base == 0 ? 0 : r.requestsPerSecond / base, r.latencyMillis, r.maxBackends, r.errors);
        }
        System.out.println();
        System.out.println("backends: the most server processes seen at once (pg_stat_activity).");
    }

    private static final class Result {
        final String name;
        final double requestsPerSecond;
        final double latencyMillis;
        final int maxBackends;
        final int errors;

        Result(String name, double requestsPerSecond, double latencyMillis, int maxBackends, int errors) {
            this.name = name;
            this.requestsPerSecond = requestsPerSecond;
            this.latencyMillis = latencyMillis;
            this.maxBackends = maxBackends;
            this.errors = errors;
        }
    }
}
