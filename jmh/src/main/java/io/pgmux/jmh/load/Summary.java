package io.pgmux.jmh.load;

import java.util.ArrayList;
import java.util.List;

/** All rounds of one contender together: throughput per round and overall, and latency percentiles. */
final class Summary {
    private final List<RoundResult> rounds;
    private final long[] latencies;
    private final long requests;
    private final long errors;
    private final double seconds;

    Summary(List<RoundResult> rounds) {
        this.rounds = rounds;
        List<long[]> parts = new ArrayList<>();
        long r = 0;
        long e = 0;
        double s = 0;
        for (RoundResult rr : rounds) {
            parts.add(rr.latencies());
            r += rr.requests();
            e += rr.errors();
            s += rr.seconds();
        }
        this.latencies = LatencyLog.merge(parts);
        this.requests = r;
        this.errors = e;
        this.seconds = s;
    }

    /** Requests per second over every round's window together. */
    double perSecond() {
        return requests / seconds;
    }

    List<RoundResult> rounds() {
        return rounds;
    }

    long errors() {
        return errors;
    }

    /** Nearest-rank percentile, in milliseconds. */
    double percentileMillis(double p) {
        if (latencies.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * latencies.length);
        return latencies[Math.max(0, rank - 1)] / 1e6;
    }

    double meanMillis() {
        if (latencies.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (long l : latencies) {
            sum += l;
        }
        return sum / latencies.length / 1e6;
    }

    /** Each round's requests per second, as "r1 / r2 / …". */
    String perRound() {
        StringBuilder b = new StringBuilder();
        for (RoundResult r : rounds) {
            if (b.length() > 0) {
                b.append(" / ");
            }
            b.append(String.format("%.0f", r.perSecond()));
        }
        return b.toString();
    }
}
