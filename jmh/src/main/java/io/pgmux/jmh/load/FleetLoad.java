package io.pgmux.jmh.load;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.jdbc.PgMuxDataSource;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.postgresql.Driver;

/**
 * A fleet measured as the operator of a scaled-out service would see it: {@code --members} JVMs, each with a
 * pgmux pool of {@code --pool} server connections and {@code --threads} threads running look-ups with no think
 * time, against one server, the members' backends counted in pg_stat_activity every 100 ms.
 * <ol>
 * <li>Throughput, round after round, of the members in a fleet of budget {@code --budget}, against the same
 * members with fixed pools of {@code --fixed-pool} (the budget divided by hand) and with unlimited pools of
 * {@code --pool}; with the most backends seen at once and the server's transactions per second while the
 * members are idle.</li>
 * <li>One member turns busy while the others stay idle: how long until it holds 80 % of the budget.</li>
 * <li>Every member busy, one killed (SIGKILL): how long until the others hold the whole budget again, and the
 * errors the others saw.</li>
 * <li>What a borrow costs one thread (getConnection, one query, close) in a fleet and in a plain pool.</li>
 * </ol>
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.load.FleetLoad --url jdbc:postgresql://HOST:PORT/DB [--user U --password P]
 *      [--members 4] [--threads 200] [--pool 40] [--budget 40] [--fixed-pool 10] [--seconds 10] [--warmup 3]
 *      [--rounds 1] [--idle 10] [--server-ms 5] [--cycles 1000]
 * </pre>
 */
public final class FleetLoad {
    private static final Set<String> OPTIONS = Set.of("url", "user", "password", "members", "threads", "pool",
            "budget", "fixed-pool", "seconds", "warmup", "rounds", "idle", "server-ms", "cycles");
    /** How long a share may take to move before the run reports it as not moved. */
    private static final long GIVE_UP_MS = 30_000;

    private final ServerTarget target;
    private final int members;
    private final int threads;
    private final int pool;
    private final int budget;
    private final int fixedPool;
    private final int serverMs;
    private final int accounts;
    private final String run = "b" + ProcessHandle.current().pid();
    private final PrintStream out = System.out;

    private FleetLoad(LoadOptions o) throws SQLException {
        target = o.target();
        members = o.integer("members", 4);
        threads = o.integer("threads", 200);
        pool = o.integer("pool", 40);
        budget = o.integer("budget", 40);
        fixedPool = o.integer("fixed-pool", 10);
        serverMs = o.integer("server-ms", 5);
        accounts = PgbenchScale.read(target) * PgbenchScale.ACCOUNTS;
    }

    /** How the members' pools are set up. */
    private enum Kind {
        FLEET, FIXED, UNLIMITED
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, OPTIONS);
        FleetLoad load = new FleetLoad(o);
        load.out.printf("%d members × %d threads, each a look-up with %d ms at the server, no think time; %s;"
                + " pgjdbc %s; load average at start %s.%n", load.members, load.threads, load.serverMs,
                Machine.describe(), Versions.pgjdbc(), Machine.loadAverage());
        load.throughput(o.integer("rounds", 1), o.integer("warmup", 3), o.integer("seconds", 10),
                o.integer("idle", 10));
        load.sharesMove();
        load.borrowCost(o.integer("cycles", 1000));
        load.out.printf("%nLoad average at end %s.%n", Machine.loadAverage());
    }

    // ---------------------------------------------------------------------------------------------- throughput

    private void throughput(int rounds, int warmup, int seconds, int idle) throws Exception {
        Kind[] kinds = Kind.values();
        double[] perSecond = new double[kinds.length];
        double[] idlePerMember = new double[kinds.length];
        long[] errors = new long[kinds.length];
        long[] logins = new long[kinds.length];
        int[] most = new int[kinds.length];
        List<List<String>> byRound = new ArrayList<>();
        for (Kind k : kinds) {
            byRound.add(new ArrayList<>());
        }
        String prefix = run + "-t-";
        try (FleetBackends backends = new FleetBackends(target, prefix, members)) {
            for (int r = 0; r < rounds; r++) {
                for (Kind kind : kinds) {
                    int k = kind.ordinal();
                    List<MemberProcess> group = start(kind, prefix, run + "t" + r);
                    try {
                        long commits = serverCounts()[0];
                        long at = System.nanoTime();
                        Thread.sleep(idle * 1000L);
                        idlePerMember[k] += (serverCounts()[0] - commits) / seconds(at) / members / rounds;
                        backends.resetMost();
                        group.forEach(MemberProcess::busy);
                        Thread.sleep(warmup * 1000L);
                        long[] before = count(group);
                        long sessions = serverCounts()[1];
                        at = System.nanoTime();
                        Thread.sleep(seconds * 1000L);
                        long[] after = count(group);
                        logins[k] += serverCounts()[1] - sessions;
                        double rate = (after[0] - before[0]) / seconds(at);
                        perSecond[k] += rate / rounds;
                        errors[k] += after[1];
                        byRound.get(k).add(String.format("%.0f", rate));
                        most[k] = Math.max(most[k], backends.most());
                    } finally {
                        close(group);
                    }
                }
            }
        }
        out.printf("%nThroughput, %d round(s) of %d s after %d s of warm-up; backends counted in pg_stat_activity"
                + " every %d ms from the moment the members turn busy.%n%n", rounds, seconds, warmup,
                FleetBackends.PERIOD_MS);
        ResultTable table = new ResultTable("", "backends allowed", "most backends seen", "tx/s by round", "tx/s",
                "errors", "vs fixed", "server tx/s per idle member", "logins while measured");
        for (Kind kind : kinds) {
            int k = kind.ordinal();
            table.row(label(kind), Integer.toString(allowed(kind)), Integer.toString(most[k]),
                    String.join(" / ", byRound.get(k)), String.format("%.0f", perSecond[k]), Long.toString(errors[k]),
                    ResultTable.ratio(perSecond[k], perSecond[Kind.FIXED.ordinal()]),
                    String.format("%.1f", idlePerMember[k]), Long.toString(logins[k]));
        }
        out.print(table);
        out.printf("%nMost backends of the fleet at once: %d of budget %d.%n", most[Kind.FLEET.ordinal()], budget);
        double coordination = idlePerMember[Kind.FLEET.ordinal()] - idlePerMember[Kind.FIXED.ordinal()];
        out.printf("Coordination: %.1f server transactions/s per member (idle fleet member less idle plain pool,"
                + " pg_stat_database.xact_commit), %.2f %% of a busy member's %.0f tx/s.%n", coordination,
                100 * coordination / (perSecond[Kind.FLEET.ordinal()] / members),
                perSecond[Kind.FLEET.ordinal()] / members);
    }

    // ------------------------------------------------------------------------------------------ shares moving

    private void sharesMove() throws Exception {
        String prefix = run + "-s-";
        int eighty = (budget * 8 + 9) / 10;
        try (FleetBackends backends = new FleetBackends(target, prefix, members)) {
            List<MemberProcess> group = start(Kind.FLEET, prefix, run + "s");
            try {
                // Every member has joined and run its query; the idle ones settle to their floor of 1.
                Thread.sleep(1_000);
                backends.resetMost();
                long busyAt;
                long granted;
                try (Connection c = new Driver().connect(target.url(), target.properties());
                     PreparedStatement cap = c.prepareStatement(
                             "SELECT coalesce(max(cap), 0) FROM pgmux_fleet.members WHERE fleet = ?")) {
                    cap.setString(1, run + "s");
                    busyAt = System.nanoTime();
                    group.get(0).busy();
                    granted = until(busyAt, () -> largestCap(cap) >= eighty);
                }
                long held = until(busyAt, () -> backends.now(0) >= eighty);
                Thread.sleep(1_000);
                out.printf("%nOne member busy, %d idle: its share in pgmux_fleet.members reached 80 %% of the budget"
                        + " (%d of %d) after %s, its backends after %s; %d backends a second later.%n", members - 1,
                        eighty, budget, ms(granted), ms(held), backends.now(0));

                for (int i = 1; i < members; i++) {
                    group.get(i).busy();
                }
                int even = budget / members;
                long settled = until(() -> allAtLeast(backends, even - 1, members));
                Thread.sleep(1_000);
                long[][] before = new long[members][];
                for (int i = 0; i < members - 1; i++) {
                    before[i] = group.get(i).count();
                }
                String shares = shares(backends, members);
                MemberProcess killed = group.get(members - 1);
                String ages;
                long killedAt;
                try (Connection c = new Driver().connect(target.url(), target.properties())) {
                    killed.kill();
                    killedAt = System.nanoTime();
                    ages = heartbeatAges(c, run + "s");
                }
                long returned = until(killedAt, () -> othersHold(backends, members - 1) >= budget);
                long gone = backends.now(members - 1);
                Thread.sleep(2_000);
                long errors = 0;
                long transactions = 0;
                for (int i = 0; i < members - 1; i++) {
                    long[] after = group.get(i).count();
                    errors += after[1] - before[i][1];
                    transactions += after[0] - before[i][0];
                }
                out.printf("All %d busy (settled after %s): backends %s. One killed with SIGKILL: the %d others held"
                        + " the whole budget again %s after the kill (the members' last heartbeats were %s ms old at"
                        + " the kill; the bound: a member not heard from for %d ms is dead, its share returns at the"
                        + " others' next heartbeat, every %d ms; the killed member's backends then: %d); %d errors in"
                        + " the others' %d transactions from a second before the kill on.%n", members, ms(settled),
                        shares, members - 1, ms(returned), ages, PostgresFleetCoordinator.DEAD_AFTER.toMillis(),
                        PostgresFleetCoordinator.HEARTBEAT.toMillis(), gone, errors, transactions);
                out.printf("Most backends of the fleet at once: %d of budget %d.%n", backends.most(), budget);
            } finally {
                close(group);
            }
        }
    }

    /** How long ago each member of {@code fleet} last beat, by the server's clock, oldest first. */
    private static String heartbeatAges(Connection c, String fleet) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT string_agg(round(extract(epoch FROM"
                + " clock_timestamp() - heartbeat) * 1000)::text, ', ' ORDER BY heartbeat)"
                + " FROM pgmux_fleet.members WHERE fleet = ?")) {
            st.setString(1, fleet);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** The share the fleet's row with the largest one holds: the busy member's, the idle ones having 1. */
    private static int largestCap(PreparedStatement cap) {
        try (ResultSet rs = cap.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("reading pgmux_fleet.members failed", e);
        }
    }

    private static boolean allAtLeast(FleetBackends backends, int n, int members) {
        for (int i = 0; i < members; i++) {
            if (backends.now(i) < n) {
                return false;
            }
        }
        return true;
    }

    private static int othersHold(FleetBackends backends, int others) {
        int sum = 0;
        for (int i = 0; i < others; i++) {
            sum += backends.now(i);
        }
        return sum;
    }

    private static String shares(FleetBackends backends, int members) {
        int[] now = new int[members];
        for (int i = 0; i < members; i++) {
            now[i] = backends.now(i);
        }
        return Arrays.toString(now);
    }

    /** Milliseconds until {@code done}, polled every 10 ms (the backends change every 100 ms), or -1. */
    private static long until(BooleanSupplier done) throws InterruptedException {
        return until(System.nanoTime(), done);
    }

    /** Milliseconds from {@code start} until {@code done}, or -1. */
    private static long until(long start, BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - start > GIVE_UP_MS * 1_000_000) {
                return -1;
            }
            Thread.sleep(10);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static String ms(long ms) {
        return ms < 0 ? "more than " + GIVE_UP_MS + " ms (not reached)" : ms + " ms";
    }

    // -------------------------------------------------------------------------------------------- borrow cost

    private void borrowCost(int cycles) throws SQLException {
        try (PgMuxDataSource fleet = borrowPool(true); PgMuxDataSource plain = borrowPool(false)) {
            int rounds = 11;
            double[][] fleetUs = new double[2][rounds];
            double[][] plainUs = new double[2][rounds];
            cycle(fleet, cycles);
            cycle(plain, cycles);
            for (int r = 0; r < rounds; r++) {
                double[] f = cycle(fleet, cycles);
                double[] p = cycle(plain, cycles);
                for (int i = 0; i < 2; i++) {
                    fleetUs[i][r] = f[i];
                    plainUs[i][r] = p[i];
                }
            }
            out.printf("%nµs per borrow (getConnection, SELECT 1, close; one thread, median of %d interleaved rounds"
                    + " of %d):%n%n", rounds, cycles);
            ResultTable table = new ResultTable("", "fleet", "plain pool", "fleet / plain");
            String[] what = {"elapsed", "the thread's CPU"};
            for (int i = 0; i < 2; i++) {
                double f = median(fleetUs[i]);
                double p = median(plainUs[i]);
                table.row(what[i], String.format("%.1f", f), String.format("%.1f", p), ResultTable.ratio(f, p));
            }
            out.print(table);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private PgMuxDataSource borrowPool(boolean inFleet) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(target.url());
        ds.setUsername(target.user());
        ds.setPassword(target.password());
        ds.setMaximumPoolSize(pool);
        ds.setPoolMode(PoolMode.TRANSACTION);
        if (inFleet) {
            ds.setFleet(run + "c");
            ds.setFleetMaxServers(budget);
        }
        return ds;
    }

    /** Elapsed and thread CPU microseconds per cycle. */
    private static double[] cycle(PgMuxDataSource ds, int cycles) throws SQLException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime();
        long cpu = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < cycles; i++) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT 1")) {
                rs.next();
            }
        }
        return new double[] {(System.nanoTime() - start) / 1000.0 / cycles,
                (threads.getCurrentThreadCpuTime() - cpu) / 1000.0 / cycles};
    }

    // ---------------------------------------------------------------------------------------------- members

    private List<MemberProcess> start(Kind kind, String prefix, String fleet) throws IOException {
        List<MemberProcess> group = new ArrayList<>();
        try {
            for (int i = 0; i < members; i++) {
                List<String> args = new ArrayList<>(List.of("--url", target.url(), "--threads",
                        Integer.toString(threads), "--name", prefix + i, "--server-ms", Integer.toString(serverMs),
                        "--accounts", Integer.toString(accounts),
                        "--pool", Integer.toString(kind == Kind.FIXED ? fixedPool : pool)));
                if (target.user() != null) {
                    args.addAll(List.of("--user", target.user()));
                }
                if (target.password() != null) {
                    args.addAll(List.of("--password", target.password()));
                }
                if (kind == Kind.FLEET) {
                    args.addAll(List.of("--fleet", fleet, "--budget", Integer.toString(budget)));
                }
                group.add(MemberProcess.start(args));
            }
            for (MemberProcess m : group) {
                m.awaitReady();
            }
            return group;
        } catch (IOException | RuntimeException e) {
            close(group);
            throw e;
        }
    }

    private static long[] count(List<MemberProcess> group) throws IOException {
        long[] sum = new long[2];
        for (MemberProcess m : group) {
            long[] c = m.count();
            sum[0] += c[0];
            sum[1] += c[1];
        }
        return sum;
    }

    private static void close(List<MemberProcess> group) throws IOException {
        for (MemberProcess m : group) {
            m.close();
        }
    }

    /** The database's committed transactions and sessions opened (the harness's own reads count too). */
    private long[] serverCounts() throws SQLException {
        try (Connection c = new Driver().connect(target.url(), target.properties());
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(
                     "SELECT xact_commit, sessions FROM pg_stat_database WHERE datname = current_database()")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private int allowed(Kind kind) {
        return switch (kind) {
            case FLEET -> budget;
            case FIXED -> members * fixedPool;
            case UNLIMITED -> members * pool;
        };
    }

    private String label(Kind kind) {
        return switch (kind) {
            case FLEET -> String.format("fleet, budget %d, pools of %d", budget, pool);
            case FIXED -> String.format("fixed pools of %d", fixedPool);
            case UNLIMITED -> String.format("unlimited pools of %d", pool);
        };
    }
}
