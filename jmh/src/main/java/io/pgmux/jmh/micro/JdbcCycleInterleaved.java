package io.pgmux.jmh.micro;

import com.zaxxer.hikari.HikariDataSource;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@link JdbcCycleBench}'s two cycles, pgmux session mode against HikariCP over the same stub driver, in
 * one JVM and one thread: short batches of each pool alternate (the order swapped every round), each
 * timed by the CPU time of the measuring thread. On a machine shared with other work, wall-clock
 * throughput moves with the load from one iteration to the next; the ratio of CPU costs measured side by
 * side moves much less. Prints, per cycle, the median and quartiles of the rounds' ratios (pgmux
 * operations per CPU second over HikariCP's) and each pool's CPU time per operation.
 *
 * <pre>java -cp jmh/target/benchmarks.jar io.pgmux.jmh.micro.JdbcCycleInterleaved [rounds [batchMillis]]</pre>
 */
public final class JdbcCycleInterleaved {
    private static final int POOL_SIZE = 32;
    private static final int WARMUP_ROUNDS = 40;
    /** Cycles between looks at the clock. */
    private static final int STRIDE = 256;

    private static volatile Object sink;

    private JdbcCycleInterleaved() {
    }

    /** getConnection() of either pool. */
    @FunctionalInterface
    interface ConnectionSource {
        Connection get() throws SQLException;
    }

    /** JdbcCycleBench's two cycles, one operation each. */
    enum Cycle {
        /** getConnection + close. */
        CONNECTION {
            @Override
            Object once(ConnectionSource pool) throws SQLException {
                Connection c = pool.get();
                c.close();
                return c;
            }
        },
        /** getConnection + prepareStatement + execute + close of both. */
        STATEMENT {
            @Override
            Object once(ConnectionSource pool) throws SQLException {
                try (Connection c = pool.get(); PreparedStatement ps = c.prepareStatement(JdbcCycleBench.SQL)) {
                    return ps.execute();
                }
            }
        };

        abstract Object once(ConnectionSource pool) throws SQLException;
    }

    /** The rounds' ratios and each side's CPU nanoseconds per operation. */
    record Result(double median, double lowerQuartile, double upperQuartile, double pgmuxNanosPerOp,
                  double hikariNanosPerOp) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "pgmux/HikariCP %.3f (quartiles %.3f-%.3f); CPU per op: pgmux %.1f ns,"
                    + " HikariCP %.1f ns", median, lowerQuartile, upperQuartile, pgmuxNanosPerOp, hikariNanosPerOp);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 80;
        long batchNanos = TimeUnit.MILLISECONDS.toNanos(args.length > 1 ? Long.parseLong(args[1]) : 40);
        JdbcPool pgmux = JdbcCycleBench.pgmux(PoolMode.SESSION, POOL_SIZE);
        HikariDataSource hikari = JdbcCycleBench.hikari(POOL_SIZE);
        try {
            for (Cycle cycle : Cycle.values()) {
                Result result = compare(cycle, pgmux::getConnection, hikari::getConnection, rounds, batchNanos);
                System.out.printf(Locale.ROOT, "%-12s%s%n", cycle.name().toLowerCase(Locale.ROOT) + ":", result);
            }
        } finally {
            pgmux.close();
            hikari.close();
        }
    }

    /** Warms both up, then measures {@code rounds} rounds of one batch of the cycle on each. */
    static Result compare(Cycle cycle, ConnectionSource pgmux, ConnectionSource hikari, int rounds, long batchNanos)
            throws SQLException {
        for (int i = 0; i < WARMUP_ROUNDS; i++) {
            batch(cycle, pgmux, batchNanos);
            batch(cycle, hikari, batchNanos);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] ratios = new double[rounds];
        long pgmuxOps = 0;
        long pgmuxCpu = 0;
        long hikariOps = 0;
        long hikariCpu = 0;
        for (int r = 0; r < rounds; r++) {
            boolean pgmuxFirst = (r & 1) == 0;
            long t0 = threads.getCurrentThreadCpuTime();
            long first = batch(cycle, pgmuxFirst ? pgmux : hikari, batchNanos);
            long t1 = threads.getCurrentThreadCpuTime();
            long second = batch(cycle, pgmuxFirst ? hikari : pgmux, batchNanos);
            long t2 = threads.getCurrentThreadCpuTime();
            long p = pgmuxFirst ? first : second;
            long pc = Math.max(1, pgmuxFirst ? t1 - t0 : t2 - t1);
            long h = pgmuxFirst ? second : first;
            long hc = Math.max(1, pgmuxFirst ? t2 - t1 : t1 - t0);
            ratios[r] = ((double) p / pc) / ((double) h / hc);
            pgmuxOps += p;
            pgmuxCpu += pc;
            hikariOps += h;
            hikariCpu += hc;
        }
        Arrays.sort(ratios);
        return new Result(ratios[rounds / 2], ratios[rounds / 4], ratios[(3 * rounds) / 4],
                (double) pgmuxCpu / pgmuxOps, (double) hikariCpu / hikariOps);
    }

    /** Runs the cycle on the pool for about {@code nanos} of wall time and says how many it did. */
    static long batch(Cycle cycle, ConnectionSource pool, long nanos) throws SQLException {
        long end = System.nanoTime() + nanos;
        long n = 0;
        do {
            for (int i = 0; i < STRIDE; i++) {
                sink = cycle.once(pool);
            }
            n += STRIDE;
        } while (System.nanoTime() - end < 0);
        return n;
    }
}
