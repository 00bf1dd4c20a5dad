package io.pgmux.proxy.churn;

import java.util.Map;
import java.util.TreeMap;

/**
 * A figure taken once a second over a log's span (connections in the second, sessions open at its start), kept
 * as the number of seconds that had each value: its size follows the distinct values, never the span's length,
 * so a log whose lines lie decades apart costs no more than one whose lines lie seconds apart.
 */
final class SecondsHistogram {
    private final TreeMap<Long, Long> secondsByValue = new TreeMap<>();
    private long seconds;

    void add(long value, long count) {
        if (count > 0) {
            secondsByValue.merge(value, count, Long::sum);
            seconds += count;
        }
    }

    boolean isEmpty() {
        return seconds == 0;
    }

    /** Nearest-rank percentile over all the seconds added. */
    long percentile(int p) {
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * seconds));
        long below = 0;
        for (Map.Entry<Long, Long> e : secondsByValue.entrySet()) {
            below += e.getValue();
            if (below >= rank) {
                return e.getKey();
            }
        }
        return secondsByValue.lastKey();
    }

    long max() {
        return secondsByValue.lastKey();
    }
}
