package io.pgmux.jmh.load;

import io.pgmux.core.config.PoolMode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * pgbench's TPC-B and select-only transactions through JDBC, with every thread busy all the time:
 * direct pgjdbc (one connection per thread), HikariCP, pgmux in session mode and pgmux in transaction
 * mode, the pools with fewer server connections than threads. Prints one Markdown table per workload,
 * with ratios against the first variant (direct pgjdbc unless {@code --variants} says otherwise).
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.load.PgbenchLoad --url jdbc:postgresql://HOST:PORT/DB
 *      [--user U --password P] [--seconds 20] [--warmup 5] [--rounds 2] [--threads 32] [--pool 20]
 *      [--workloads tpcb,select-only] [--variants direct,hikari,session,transaction]
 * </pre>
 */
public final class PgbenchLoad {
    private static final Set<String> OPTIONS = Set.of("url", "user", "password", "seconds", "warmup", "rounds",
            "threads", "pool", "workloads", "variants");

    private PgbenchLoad() {
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, OPTIONS);
        ServerTarget target = o.target();
        int seconds = o.integer("seconds", 20);
        int warmup = o.integer("warmup", 5);
        int rounds = o.integer("rounds", 2);
        int threads = o.integer("threads", 32);
        int pool = o.integer("pool", 20);
        int scale = PgbenchScale.read(target);

        List<Workload> workloads = new ArrayList<>();
        for (String w : o.string("workloads", "tpcb,select-only").split(",")) {
            switch (w.trim()) {
                case "tpcb":
                    workloads.add(new TpcbTransaction(scale));
                    break;
                case "select-only":
                    workloads.add(new SelectOnly(scale));
                    break;
                default:
                    throw new IllegalArgumentException("unknown workload " + w + "; expected tpcb or select-only");
            }
        }

        List<String> variants = List.of(o.string("variants", "direct,hikari,session,transaction").split(","));

        PrintStream out = System.out;
        out.printf("pgbench scale %d, %d threads, %d s measured per round after %d s warm-up, %d rounds in turn.%n",
                scale, threads, seconds, warmup, rounds);
        out.printf("%s; pgjdbc %s.%n", Machine.describe(), Versions.pgjdbc());
        for (Workload workload : workloads) {
            List<Contender> contenders = new ArrayList<>();
            for (String v : variants) {
                contenders.add(contender(v.trim(), target, threads, pool, workload));
            }
            String loadBefore = Machine.loadAverage();
            Map<Contender, List<RoundResult>> results = new Rounds(rounds, warmup, seconds, System.err).run(contenders);
            String loadAfter = Machine.loadAverage();

            out.printf("%n%s; load average at start %s, at end %s.%n%n", workload.name(), loadBefore, loadAfter);
            Summary base = new Summary(results.get(contenders.get(0)));
            ResultTable table = new ResultTable("", "TPS by round", "TPS", "avg latency ms", "p99 ms", "errors",
                    "vs " + contenders.get(0).label().split(",")[0]);
            for (Map.Entry<Contender, List<RoundResult>> e : results.entrySet()) {
                Summary s = new Summary(e.getValue());
                table.row(e.getKey().label(), s.perRound(), String.format("%.0f", s.perSecond()),
                        ResultTable.number(s.meanMillis(), "%.2f"), ResultTable.number(s.percentileMillis(99), "%.2f"),
                        Long.toString(s.errors()), ResultTable.ratio(s.perSecond(), base.perSecond()));
            }
            out.print(table);
        }
    }

    private static Contender contender(String variant, ServerTarget target, int threads, int pool, Workload workload) {
        switch (variant) {
            case "direct":
                return new Contender("direct pgjdbc, " + threads + " connections", () -> new DirectVariant(target),
                        threads, workload);
            case "hikari":
                return new Contender("HikariCP " + Versions.hikari() + ", pool " + pool,
                        () -> PooledVariant.hikari(target, pool), threads, workload);
            case "session":
                return new Contender("pgmux session mode, pool " + pool,
                        () -> PooledVariant.pgmux(target, pool, PoolMode.SESSION), threads, workload);
            case "transaction":
                return new Contender("pgmux transaction mode, pool " + pool,
                        () -> PooledVariant.pgmux(target, pool, PoolMode.TRANSACTION), threads, workload);
            default:
                throw new IllegalArgumentException("unknown variant " + variant
                        + "; expected direct, hikari, session or transaction");
        }
    }
}
