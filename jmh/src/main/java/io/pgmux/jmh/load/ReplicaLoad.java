package io.pgmux.jmh.load;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.config.IniFile;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Read routing through pgmux's JDBC driver over a primary and its streaming standbys ({@code --hosts}, any
 * order): (a) a 90 %-read mix with {@code readRouting=replicas} against the primary alone, with the reads each
 * server answered; (b) read-your-writes: clients each commit a fresh value and read it back at once, with the
 * standbys' replay delayed, counting stale reads with {@code readYourWrites} on and off; (c) the same mix as (a)
 * while one standby is stopped as {@code pg_ctl stop -m immediate} does, counting errors by where they struck;
 * (d) the same mix with {@code replicaMaxLag} while one standby's replay is paused, then resumed: when its reads
 * stop after its lag passed the bound, and when they come back. (a) and (b) run through the driver, through a
 * pgmux proxy started in this process ({@code read_routing=replicas}, pgjdbc clients, whose read-only transactions
 * begin {@code BEGIN READ ONLY}), or both ({@code --face jdbc|proxy|both}). The login must be a superuser (it sets
 * {@code recovery_min_apply_delay}, pauses replay and stops a standby). Every read asks {@code inet_server_port()},
 * which tells the server that answered it.
 */
public final class ReplicaLoad {
    private static final String TABLE = "replica_bench";
    private static final String READ = "SELECT v, inet_server_port() FROM " + TABLE + " WHERE id = ?";
    private static final String WRITE = "UPDATE " + TABLE + " SET v = ? WHERE id = ?";

    private final List<String> hosts;
    private final String primary;
    private final String database;
    private final String user;
    private final String password;
    private final int pool;
    /** Each server's name in the tables ("primary", "standby 1", …) by its port, looked up at every read. */
    private final Map<Integer, String> names = new HashMap<>();
    /** The proxy of the proxy face, started on first use. */
    private PgMuxProxy proxy;

    private ReplicaLoad(List<String> hosts, String database, String user, String password, int pool)
            throws SQLException {
        this.hosts = hosts;
        this.database = database;
        this.user = user;
        this.password = password;
        this.pool = pool;
        String found = null;
        for (String host : hosts) {
            if (!inRecovery(host)) {
                found = host;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("no host of " + hosts + " is a primary (each is in recovery)");
        }
        this.primary = found;
        names.put(port(primary), "primary");
        List<String> standbys = standbys();
        for (int i = 0; i < standbys.size(); i++) {
            names.put(port(standbys.get(i)), "standby " + (i + 1));
        }
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, Set.of("hosts", "database", "user", "password", "pool", "threads",
                "seconds", "rounds", "rows", "ryw-clients", "ryw-total", "apply-delay", "stop-seconds", "face",
                "max-lag", "lag-seconds"));
        String hostList = o.string("hosts", null);
        if (hostList == null) {
            throw new IllegalArgumentException("--hosts primary:port,standby:port,... is required");
        }
        ReplicaLoad load = new ReplicaLoad(List.of(hostList.split(",")), o.string("database", "postgres"),
                o.string("user", System.getenv("PGUSER")), o.string("password", System.getenv("PGPASSWORD")),
                o.integer("pool", 20));
        int threads = o.integer("threads", 32);
        int seconds = o.integer("seconds", 10);
        int rows = o.integer("rows", 1000);
        int rywClients = o.integer("ryw-clients", 100);
        load.createTable(Math.max(rows, rywClients));

        System.out.println("Machine: " + Machine.describe() + "; load average at start " + Machine.loadAverage());
        System.out.println("Hosts: primary " + load.primary + ", standbys " + load.standbys());
        String face = o.string("face", "both");
        if (!List.of("jdbc", "proxy", "both").contains(face)) {
            throw new IllegalArgumentException("--face must be jdbc, proxy or both, not " + face);
        }
        List<Face> faces = face.equals("both") ? List.of(Face.JDBC, Face.PROXY)
                : List.of(Face.valueOf(face.toUpperCase()));
        try {
            for (Face f : faces) {
                load.readMix(f, threads, seconds, rows, o.integer("rounds", 2));
            }
            for (Face f : faces) {
                load.readYourWrites(f, rywClients, o.integer("ryw-total", 10_000), o.integer("apply-delay", 50));
            }
        } finally {
            // (c) and (d) run through the driver: the proxy's checks of the standbys would only add load
            if (load.proxy != null) {
                load.proxy.close();
            }
        }
        load.standbyLagging(threads, o.integer("lag-seconds", 12), rows, o.integer("max-lag", 1000));
        load.standbyStopped(threads, o.integer("stop-seconds", 20), rows);
        System.out.println("Load average at end " + Machine.loadAverage());
    }

    /** How the clients reach the servers: pgmux's JDBC driver, or pgjdbc through a pgmux proxy. */
    private enum Face {
        JDBC, PROXY
    }

    private List<String> standbys() {
        return hosts.stream().filter(h -> !h.equals(primary)).toList();
    }

    private Connection direct(String host) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + host + "/" + database, user, password);
    }

    private boolean inRecovery(String host) throws SQLException {
        try (Connection c = direct(host); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private void createTable(int rows) throws SQLException {
        try (Connection c = direct(primary); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute("CREATE TABLE " + TABLE + " (id int PRIMARY KEY, v bigint NOT NULL)");
            st.execute("INSERT INTO " + TABLE + " SELECT g, 0 FROM generate_series(1, " + rows + ") g");
            st.execute("ANALYZE " + TABLE);
        }
    }

    /** A pgmux URL: the primary alone ({@code routed} false), or every host with {@code readRouting=replicas}. */
    private String url(boolean routed, boolean readYourWrites) {
        return url(Face.JDBC, routed, readYourWrites);
    }

    /**
     * The URL of a face's way: for the proxy, pgjdbc's URL of one of the proxy's entries, {@code primary} (the
     * primary alone), {@code replicas} or {@code replicas_nr} (every host, read_your_writes on or off).
     */
    private String url(Face face, boolean routed, boolean readYourWrites) {
        if (face == Face.PROXY) {
            String entry = !routed ? "primary" : readYourWrites ? "replicas" : "replicas_nr";
            return "jdbc:postgresql://127.0.0.1:" + proxy().port() + "/" + entry;
        }
        String query = "?maximumPoolSize=" + pool;
        if (routed) {
            return "jdbc:pgmux:postgresql://" + String.join(",", hosts) + "/" + database + query
                    + "&readRouting=replicas&readYourWrites=" + readYourWrites;
        }
        return "jdbc:pgmux:postgresql://" + primary + "/" + database + query;
    }

    /**
     * The proxy, in transaction pooling, with an entry per way: each logs in to its servers as this login, its
     * clients with any password (trust). pgjdbc's read-only transactions (auto-commit off) begin
     * {@code BEGIN READ ONLY}, which the proxy routes to a standby.
     */
    private PgMuxProxy proxy() {
        if (proxy == null) {
            String hostList = String.join(",", hosts.stream().map(h -> h.substring(0, h.lastIndexOf(':'))).toList());
            String portList = String.join(",", hosts.stream().map(h -> Integer.toString(port(h))).toList());
            String login = " dbname=" + database + " user=" + user + (password == null ? "" : " password=" + password)
                    + " pool_size=" + pool;
            String primaryHost = primary.substring(0, primary.lastIndexOf(':'));
            String ini = "[databases]\n"
                    + "primary = host=" + primaryHost + " port=" + port(primary) + login + "\n"
                    + "replicas = host=" + hostList + " port=" + portList + login + " read_routing=replicas\n"
                    + "replicas_nr = host=" + hostList + " port=" + portList + login
                    + " read_routing=replicas read_your_writes=0\n"
                    + "[pgbouncer]\npool_mode = transaction\nmax_client_conn = 1000\nmax_prepared_statements = 200\n";
            proxy = ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                    .listen("127.0.0.1", 0)
                    .authType(AuthType.TRUST)
                    .users(Map.of(user, ""))
                    .start();
        }
        return proxy;
    }

    /** Which server answered, by port, as the table's column names it. */
    private String serverName(int port) {
        String name = names.get(port);
        return name != null ? name : "port " + port;
    }

    /** What one run of the mix counted. */
    private static final class Tally {
        final LongAdder reads = new LongAdder();
        final LongAdder writes = new LongAdder();
        final Map<String, LongAdder> readsByServer = new ConcurrentHashMap<>();
        final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
        final LongAccumulator longestNanos = new LongAccumulator(Math::max, 0);
        final LongAdder slow = new LongAdder();
        /** The server whose reads are timed (null: none), and when each of its reads completed. */
        final String watched;
        final Queue<Long> watchedReads = new ConcurrentLinkedQueue<>();
        long elapsedNanos;

        Tally() {
            this(null);
        }

        Tally(String watched) {
            this.watched = watched;
        }

        void took(long nanos) {
            longestNanos.accumulate(nanos);
            if (nanos > 1_000_000_000L) {
                slow.increment();
            }
        }

        void read(String server) {
            reads.increment();
            readsByServer.computeIfAbsent(server, k -> new LongAdder()).increment();
            if (server.equals(watched)) {
                watchedReads.add(System.nanoTime());
            }
        }

        void error(String where, SQLException e) {
            errors.computeIfAbsent(where + " " + e.getSQLState(), k -> new LongAdder()).increment();
        }

        long errorCount() {
            return errors.values().stream().mapToLong(LongAdder::sum).sum();
        }

        String errorList() {
            Map<String, Long> sorted = new TreeMap<>();
            errors.forEach((k, v) -> sorted.put(k, v.sum()));
            return sorted.isEmpty() ? "none" : sorted.toString();
        }

        long readsOn(String server) {
            LongAdder n = readsByServer.get(server);
            return n == null ? 0 : n.sum();
        }
    }

    /**
     * Threads each on a logical connection of their own, in transactions (auto-commit off, as a framework's
     * transactions are): 9 in 10 a read-only transaction reading one row, else one updating a row. An error is
     * counted by the statement it struck ({@code read}, {@code write}, {@code commit}) and its SQLSTATE; the
     * thread rolls back and goes on. {@code midway} runs {@code midwayMillis} into the run.
     */
    private Tally mix(String url, int threads, long millis, int rows, Runnable midway) throws InterruptedException {
        return mix(new Tally(), url, threads, millis, rows, millis / 2, midway);
    }

    private Tally mix(Tally tally, String url, int threads, long millis, int rows, long midwayMillis,
            Runnable midway) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(url, user, password);
                     PreparedStatement read = c.prepareStatement(READ);
                     PreparedStatement write = c.prepareStatement(WRITE)) {
                    c.setAutoCommit(false);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        boolean reading = random.nextInt(10) != 0;
                        String at = reading ? "read" : "write";
                        long began = System.nanoTime();
                        try {
                            c.setReadOnly(reading);
                            if (reading) {
                                read.setInt(1, 1 + random.nextInt(rows));
                                int port;
                                try (ResultSet rs = read.executeQuery()) {
                                    rs.next();
                                    port = rs.getInt(2);
                                }
                                at = "commit";
                                c.commit();
                                tally.read(serverName(port));
                            } else {
                                write.setLong(1, random.nextLong());
                                write.setInt(2, 1 + random.nextInt(rows));
                                write.executeUpdate();
                                at = "commit";
                                c.commit();
                                tally.writes.increment();
                            }
                        } catch (SQLException e) {
                            tally.error(at, e);
                            rollback(c);
                        }
                        tally.took(System.nanoTime() - began);
                    }
                } catch (SQLException e) {
                    tally.error("connect", e);
                }
            }, "replica-load-" + t);
            workers.add(worker);
            worker.start();
        }
        long started = System.nanoTime();
        Thread.sleep(midwayMillis);
        midway.run();
        Thread.sleep(Math.max(0, millis - (System.nanoTime() - started) / 1_000_000));
        stop.set(true);
        for (Thread worker : workers) {
            worker.join();
        }
        tally.elapsedNanos = System.nanoTime() - started;
        return tally;
    }

    private static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection's next transaction reports what is wrong with it
        }
    }

    /** The ways of (a), round after round (A B C, A B C), so that the machine's other load falls on each alike. */
    private void readMix(Face face, int threads, int seconds, int rows, int rounds) throws InterruptedException {
        List<String> servers = new ArrayList<>(List.of("primary"));
        for (int i = 1; i <= standbys().size(); i++) {
            servers.add("standby " + i);
        }
        List<String> header = new ArrayList<>(List.of("way", "round", "transactions/s", "reads/s", "writes/s"));
        servers.forEach(s -> header.add("reads on " + s));
        header.addAll(List.of("longest transaction", "errors"));
        ResultTable table = new ResultTable(header.toArray(String[]::new));
        record Way(String name, String url) {
        }
        List<Way> ways = face == Face.JDBC
                ? List.of(new Way("primary only", url(face, false, true)),
                        new Way("readRouting=replicas", url(face, true, true)),
                        new Way("readRouting=replicas, readYourWrites=false", url(face, true, false)))
                : List.of(new Way("proxy, primary only", url(face, false, true)),
                        new Way("proxy, read_routing=replicas", url(face, true, true)),
                        new Way("proxy, read_routing=replicas, read_your_writes=0", url(face, true, false)));
        List<List<String[]>> rowsByWay = new ArrayList<>();
        ways.forEach(w -> rowsByWay.add(new ArrayList<>()));
        for (int round = 1; round <= rounds; round++) {
            for (int w = 0; w < ways.size(); w++) {
                Tally t = mix(ways.get(w).url, threads, seconds * 1000L, rows, () -> { });
                PgMuxDriver.closeAll();
                double s = t.elapsedNanos / 1e9;
                List<String> cells = new ArrayList<>(List.of(ways.get(w).name, Integer.toString(round),
                        String.format("%.0f", (t.reads.sum() + t.writes.sum()) / s),
                        String.format("%.0f", t.reads.sum() / s), String.format("%.0f", t.writes.sum() / s)));
                servers.forEach(server -> cells.add(percent(t.readsOn(server), t.reads.sum())));
                cells.add(millis(t.longestNanos.get()));
                cells.add(Long.toString(t.errorCount()));
                rowsByWay.get(w).add(cells.toArray(String[]::new));
            }
        }
        rowsByWay.forEach(byRound -> byRound.forEach(table::row));
        System.out.printf("%n(a) 90 %% reads through %s, %d threads, pool %d per server, %d s per way and round,"
                + " %d rows%n%n%s", faceName(face), threads, pool, seconds, rows, table);
    }

    private static String faceName(Face face) {
        return face == Face.JDBC ? "the JDBC driver" : "the proxy (pgjdbc clients)";
    }

    private static String millis(long nanos) {
        return String.format("%.0f ms", nanos / 1e6);
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "0" : String.format("%d (%.0f %%)", part, 100.0 * part / whole);
    }

    private void readYourWrites(Face face, int clients, int total, int applyDelayMillis)
            throws SQLException, InterruptedException {
        ResultTable table = new ResultTable("readYourWrites", "write+read pairs", "stale reads", "reads on standbys",
                "reads on the primary", "pairs/s", "errors");
        setApplyDelay(applyDelayMillis + "ms");
        try {
            for (boolean on : List.of(true, false)) {
                long started = System.nanoTime();
                Tally t = new Tally();
                AtomicLong stale = new AtomicLong();
                AtomicInteger left = new AtomicInteger(total);
                AtomicLong values = new AtomicLong(System.currentTimeMillis() * 1000);
                String url = url(face, true, on);
                List<Thread> workers = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    int row = i + 1;
                    Thread worker = new Thread(() -> writeThenRead(url, row, left, values, stale, t), "ryw-" + i);
                    workers.add(worker);
                    worker.start();
                }
                for (Thread worker : workers) {
                    worker.join();
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                PgMuxDriver.closeAll();
                long onPrimary = t.readsOn("primary");
                table.row(Boolean.toString(on), Long.toString(t.reads.sum()), Long.toString(stale.get()),
                        Long.toString(t.reads.sum() - onPrimary), Long.toString(onPrimary),
                        String.format("%.0f", t.reads.sum() / seconds), Long.toString(t.errorCount()));
                if (t.errorCount() > 0) {
                    System.out.println("errors with readYourWrites=" + on + ": " + t.errorList());
                }
            }
        } finally {
            setApplyDelay("0");
        }
        System.out.printf("%n(b) read your writes through %s: %d clients, %d pairs in all, recovery_min_apply_delay"
                + " %d ms on every standby, pool %d per server%n%n%s", faceName(face), clients, total, applyDelayMillis,
                pool, table);
    }

    /** One client: commit a fresh value into its own row, read the row back at once in a read-only transaction. */
    private void writeThenRead(String url, int row, AtomicInteger left, AtomicLong values, AtomicLong stale,
            Tally tally) {
        try (Connection c = DriverManager.getConnection(url, user, password);
             PreparedStatement read = c.prepareStatement(READ);
             PreparedStatement write = c.prepareStatement(WRITE)) {
            c.setAutoCommit(false);
            read.setInt(1, row);
            write.setInt(2, row);
            while (left.getAndDecrement() > 0) {
                long value = values.incrementAndGet();
                String at = "write";
                try {
                    c.setReadOnly(false);
                    write.setLong(1, value);
                    write.executeUpdate();
                    c.commit();
                    at = "read";
                    c.setReadOnly(true);
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) != value) {
                            stale.incrementAndGet();
                        }
                        tally.read(serverName(rs.getInt(2)));
                    }
                    c.commit();
                } catch (SQLException e) {
                    tally.error(at, e);
                    rollback(c);
                }
            }
        } catch (SQLException e) {
            tally.error("connect", e);
        }
    }

    private void setApplyDelay(String delay) throws SQLException {
        for (String standby : standbys()) {
            try (Connection c = direct(standby); Statement st = c.createStatement()) {
                st.execute("ALTER SYSTEM SET recovery_min_apply_delay = '" + delay + "'");
                st.execute("SELECT pg_reload_conf()");
            }
        }
    }

    /**
     * (a)'s mix through the driver with {@code replicaMaxLag} and {@code readYourWrites=false} (with it on, a
     * connection's next read after a write already avoids a standby that has not replayed it, whatever its lag,
     * which would hide the bound), a quarter into the run the last standby's replay
     * paused ({@code pg_wal_replay_pause()}) while the mix's writes go on, at three quarters resumed. Its lag, as
     * the driver measures it (how long ago the primary's WAL was where the standby's replay stands), passes the
     * bound {@code maxLagMillis} after the pause: the table gives the time from then to the standby's last read,
     * and from the resume to its first read again.
     */
    private void standbyLagging(int threads, int seconds, int rows, int maxLagMillis)
            throws InterruptedException {
        String victim = standbys().get(standbys().size() - 1);
        String name = serverName(port(victim));
        long[] pausedAt = new long[1];
        long[] resumedAt = new long[1];
        long millis = seconds * 1000L;
        String url = url(true, false) + "&replicaMaxLag=" + maxLagMillis;
        Tally t = mix(new Tally(name), url, threads, millis, rows, millis / 4, () -> {
            replay(victim, "pause");
            pausedAt[0] = System.nanoTime();
            sleep(millis / 2);
            replay(victim, "resume");
            resumedAt[0] = System.nanoTime();
        });
        PgMuxDriver.closeAll();
        long boundPassed = pausedAt[0] + maxLagMillis * 1_000_000L;
        long lastWhileLagging = t.watchedReads.stream().filter(n -> n < resumedAt[0]).mapToLong(n -> n).max()
                .orElse(pausedAt[0]);
        long after = t.watchedReads.stream().filter(n -> n > boundPassed + 1_000_000_000L && n < resumedAt[0])
                .count();
        long firstAgain = t.watchedReads.stream().filter(n -> n >= resumedAt[0]).mapToLong(n -> n).min().orElse(-1);
        ResultTable table = new ResultTable("transactions", "reads", "reads on " + name, "its last read after its lag"
                + " passed the bound", "its reads from 1 s after that to the resume", "its first read after the resume",
                "longest transaction", "errors", "errors by statement and SQLSTATE");
        table.row(Long.toString(t.reads.sum() + t.writes.sum()), Long.toString(t.reads.sum()),
                Long.toString(t.readsOn(name)), String.format("%+.0f ms", (lastWhileLagging - boundPassed) / 1e6),
                Long.toString(after), firstAgain < 0 ? "none in the run"
                        : String.format("%.0f ms", (firstAgain - resumedAt[0]) / 1e6),
                millis(t.longestNanos.get()), Long.toString(t.errorCount()), t.errorList());
        System.out.printf("%n(d) %s (%s) replay paused %.1f s into a %d s run of (a)'s mix through the driver,"
                + " resumed %.1f s later; readYourWrites=false, replicaMaxLag=%d ms, replicaCheckPeriod 1 s,"
                + " %d threads%n%n%s", name, victim,
                millis / 4 / 1000.0, seconds, millis / 2 / 1000.0, maxLagMillis, threads, table);
    }

    private void replay(String standby, String what) {
        try (Connection c = direct(standby); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_" + what + "()");
        } catch (SQLException e) {
            throw new IllegalStateException("pg_wal_replay_" + what + "() on " + standby + " failed", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void standbyStopped(int threads, int seconds, int rows) throws InterruptedException {
        String victim = standbys().get(standbys().size() - 1);
        long[] stoppedAfter = new long[1];
        long started = System.nanoTime();
        Tally t = mix(url(true, true), threads, seconds * 1000L, rows, () -> {
            stopImmediately(victim);
            stoppedAfter[0] = (System.nanoTime() - started) / 1_000_000;
        });
        PgMuxDriver.closeAll();
        ResultTable table = new ResultTable("transactions", "reads", "writes", "run took", "longest transaction",
                "transactions over 1 s", "errors", "errors by statement and SQLSTATE");
        table.row(Long.toString(t.reads.sum() + t.writes.sum()), Long.toString(t.reads.sum()),
                Long.toString(t.writes.sum()), String.format("%.1f s", t.elapsedNanos / 1e9),
                millis(t.longestNanos.get()), Long.toString(t.slow.sum()), Long.toString(t.errorCount()),
                t.errorList());
        System.out.printf("%n(c) %s (%s) stopped immediately %.1f s into a %d s run of (a)'s mix,"
                + " readRouting=replicas, %d threads%n%n%s", serverName(port(victim)), victim, stoppedAfter[0] / 1000.0,
                seconds, threads, table);
    }

    private static int port(String host) {
        return Integer.parseInt(host.substring(host.lastIndexOf(':') + 1));
    }

    /**
     * What {@code pg_ctl stop -m immediate} does, from a superuser's session: SIGQUIT to the postmaster, whose pid
     * is the first line of {@code postmaster.pid} in the data directory, a backend's working directory.
     */
    private void stopImmediately(String standby) {
        try (Connection c = direct(standby); Statement st = c.createStatement()) {
            st.execute("COPY (SELECT 1) TO PROGRAM 'kill -QUIT $(head -1 postmaster.pid)'");
        } catch (SQLException expected) {
            // the session ends with its server
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (Connection c = direct(standby)) {
                Thread.sleep(20);
            } catch (SQLException gone) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException(standby + " still accepts logins 10 s after SIGQUIT");
    }
}
