package io.pgmux.jmh.load;

import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * One member of {@link FleetLoad}, in a JVM of its own as an application's process would be: a
 * {@link PgMuxDataSource} in transaction mode whose threads, once told, run one look-up after another with no
 * think time. Its standard input drives it: {@code busy} starts the threads, {@code count} prints
 * {@code count <transactions> <errors>}, the end of input closes the pool and ends the process. Prints
 * {@code ready} once the pool has run its first query (and, in a fleet, joined it).
 */
public final class FleetMember {
    private static final Set<String> OPTIONS = Set.of("url", "user", "password", "pool", "fleet", "budget",
            "threads", "name", "server-ms", "accounts");
    /** What a member's transaction does: one account looked up, with time spent at the server beside it. */
    static final String SQL = "SELECT abalance, pg_sleep(?) FROM pgbench_accounts WHERE aid = ?";

    private FleetMember() {
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, OPTIONS);
        ServerTarget target = o.target();
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(target.url());
        ds.setUsername(target.user());
        ds.setPassword(target.password());
        ds.setMaximumPoolSize(o.integer("pool", 40));
        ds.setPoolMode(PoolMode.TRANSACTION);
        ds.setConnectionTimeout(120_000);
        // pg_stat_activity tells the members' backends apart by it; the coordination connection names itself.
        ds.addDataSourceProperty("ApplicationName", o.string("name", "pgmux-bench"));
        if (o.has("fleet")) {
            ds.setFleet(o.string("fleet", null));
            ds.setFleetMaxServers(o.integer("budget", 40));
        }
        double serverSeconds = o.integer("server-ms", 5) / 1000.0;
        int accounts = o.integer("accounts", PgbenchScale.ACCOUNTS);
        LongAdder transactions = new LongAdder();
        LongAdder errors = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        PrintStream out = System.out;
        try {
            run(ds, serverSeconds, 1);
            out.println("ready");
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("busy")) {
                    for (int t = 0; t < o.integer("threads", 200); t++) {
                        LoadThreads.PLATFORM.make(() -> {
                            while (running.get()) {
                                try {
                                    run(ds, serverSeconds, 1 + ThreadLocalRandom.current().nextInt(accounts));
                                    transactions.increment();
                                } catch (SQLException | RuntimeException e) {
                                    // a transaction cut by the pool's closing at the end is no error of the run
                                    if (running.get()) {
                                        errors.increment();
                                        if (errors.sum() <= 5) {
                                            System.err.println("fleet member " + o.string("name", "") + ": " + e);
                                        }
                                    }
                                }
                            }
                        }, "load-" + t).start();
                    }
                } else if (line.equals("count")) {
                    out.println("count " + transactions.sum() + " " + errors.sum());
                    out.flush();
                }
            }
        } finally {
            running.set(false);
            ds.close();
        }
    }

    private static void run(PgMuxDataSource ds, double serverSeconds, int aid) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(SQL)) {
            ps.setDouble(1, serverSeconds);
            ps.setInt(2, aid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
        }
    }
}
