package io.pgmux.jmh.load;

import io.pgmux.core.config.PoolMode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The case pgmux exists for: many threads that each hold a connection for a whole request while doing
 * little with it. A thousand threads run requests of autocommit look-ups separated by think time,
 * through HikariCP and through pgmux in transaction mode, with the same small number of server
 * connections; beside them, the machine's ceiling for the same look-ups: a few threads with a direct
 * pgjdbc connection each and no think time. Prints a Markdown table.
 *
 * <p>{@code --virtual} runs the pools' load on virtual threads (10,000 unless {@code --threads} says
 * otherwise; JDK 21 or later), the ceiling still on platform threads. {@code --variants} picks the rows
 * to run.
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.load.ThinkTimeLoad --url jdbc:postgresql://HOST:PORT/DB
 *      [--user U --password P] [--seconds 30] [--warmup 5] [--rounds 2] [--threads 1000] [--pool 20]
 *      [--queries 5] [--think 20] [--ceiling-threads 8] [--virtual] [--variants hikari,pgmux,ceiling]
 * </pre>
 */
public final class ThinkTimeLoad {
    private static final Set<String> OPTIONS = Set.of("url", "user", "password", "seconds", "warmup", "rounds",
            "threads", "pool", "queries", "think", "ceiling-threads", "variants");
    private static final Set<String> FLAGS = Set.of("virtual");

    private ThinkTimeLoad() {
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, OPTIONS, FLAGS);
        boolean virtual = o.has("virtual");
        LoadThreads kind = virtual ? LoadThreads.VIRTUAL : LoadThreads.PLATFORM;
        ServerTarget target = o.target();
        int seconds = o.integer("seconds", 30);
        int warmup = o.integer("warmup", 5);
        int rounds = o.integer("rounds", 2);
        int threads = o.integer("threads", virtual ? 10_000 : 1000);
        int pool = o.integer("pool", 20);
        int queries = o.integer("queries", 5);
        int think = o.integer("think", 20);
        int ceilingThreads = o.integer("ceiling-threads", 8);
        List<String> variants = List.of(o.string("variants", "hikari,pgmux,ceiling").split(","));
        int scale = PgbenchScale.read(target);
        String on = virtual ? ", virtual threads" : "";

        AccountLookups request = new AccountLookups(queries, think, scale);
        Contender hikari = new Contender("HikariCP " + Versions.hikari() + ", pool " + pool + on,
                () -> PooledVariant.hikari(target, pool), threads, request, kind);
        Contender pgmux = new Contender("pgmux transaction mode, pool " + pool + on,
                () -> PooledVariant.pgmux(target, pool, PoolMode.TRANSACTION), threads, request, kind);
        Contender ceiling = new Contender("ceiling: direct pgjdbc, no think time",
                () -> new DirectVariant(target), ceilingThreads, new AccountLookups(queries, 0, scale));
        List<Contender> chosen = new ArrayList<>();
        for (String v : variants) {
            switch (v.trim()) {
                case "hikari" -> chosen.add(hikari);
                case "pgmux" -> chosen.add(pgmux);
                case "ceiling" -> chosen.add(ceiling);
                default -> throw new IllegalArgumentException("unknown variant " + v + "; known: hikari, pgmux, ceiling");
            }
        }

        PrintStream out = System.out;
        String loadBefore = Machine.loadAverage();
        Map<Contender, List<RoundResult>> results = new Rounds(rounds, warmup, seconds, System.err)
                .run(chosen);
        String loadAfter = Machine.loadAverage();

        out.printf("Requests of %d look-ups (%s, random aid, pgbench scale %d) with %d ms think time between"
                        + " them; %d s measured per round after %d s warm-up, %d rounds in turn.%n",
                queries, AccountLookups.SQL, scale, think, seconds, warmup, rounds);
        out.printf("%s; pgjdbc %s; load average at start %s, at end %s.%n%n", Machine.describe(),
                Versions.pgjdbc(), loadBefore, loadAfter);

        Summary base = results.containsKey(hikari) ? new Summary(results.get(hikari)) : null;
        Summary top = results.containsKey(ceiling) ? new Summary(results.get(ceiling)) : null;
        double ceilingQueries = top == null ? Double.NaN : top.perSecond() * queries;
        ResultTable table = new ResultTable("", "threads", "requests/s by round", "requests/s", "queries/s",
                "p50 ms", "p99 ms", "errors", "vs HikariCP", "of ceiling");
        for (Map.Entry<Contender, List<RoundResult>> e : results.entrySet()) {
            Contender c = e.getKey();
            Summary s = new Summary(e.getValue());
            double q = s.perSecond() * c.workload().statementsPerRequest();
            table.row(c.label(), Integer.toString(c.threads()), s.perRound(), String.format("%.1f", s.perSecond()),
                    String.format("%.0f", q), ResultTable.number(s.percentileMillis(50), "%.1f"),
                    ResultTable.number(s.percentileMillis(99), "%.1f"), Long.toString(s.errors()),
                    c == ceiling || base == null ? "–" : ResultTable.ratio(s.perSecond(), base.perSecond()),
                    top == null ? "–" : String.format("%.0f %%", 100 * q / ceilingQueries));
        }
        out.print(table);
    }
}
