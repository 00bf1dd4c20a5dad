package io.pgmux.jmh.load;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the contenders in turn, round after round (A B C, A B C, …), so that whatever else loads the
 * machine meanwhile falls on every contender alike. Progress goes to stderr, results are returned.
 */
final class Rounds {
    private final int rounds;
    private final int warmupSeconds;
    private final int measureSeconds;
    private final PrintStream progress;

    Rounds(int rounds, int warmupSeconds, int measureSeconds, PrintStream progress) {
        this.rounds = rounds;
        this.warmupSeconds = warmupSeconds;
        this.measureSeconds = measureSeconds;
        this.progress = progress;
    }

    Map<Contender, List<RoundResult>> run(List<Contender> contenders) throws SQLException, InterruptedException {
        Map<Contender, List<RoundResult>> results = new LinkedHashMap<>();
        for (Contender c : contenders) {
            results.put(c, new ArrayList<>());
        }
        for (int r = 1; r <= rounds; r++) {
            for (Contender c : contenders) {
                progress.printf("round %d/%d: %s, %d threads, %s (load average %s)%n", r, rounds, c.label(),
                        c.threads(), c.workload().name(), Machine.loadAverage());
                RoundResult result = new LoadRun(c, warmupSeconds, measureSeconds).run();
                progress.printf("  %.1f requests/s, %d errors%s%n", result.perSecond(), result.errors(),
                        result.firstError() == null ? "" : " (first: " + result.firstError() + ")");
                results.get(c).add(result);
            }
        }
        return results;
    }
}
