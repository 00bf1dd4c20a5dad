package io.pgmux.jmh.load;

import java.util.Arrays;

/** The latencies (nanoseconds) one thread measured, in a growing array; merged once the run is over. */
final class LatencyLog {
    private long[] values = new long[1024];
    private int size;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    int size() {
        return size;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }

    static long[] merge(Iterable<long[]> parts) {
        int n = 0;
        for (long[] p : parts) {
            n += p.length;
        }
        long[] all = new long[n];
        int at = 0;
        for (long[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        Arrays.sort(all);
        return all;
    }
}
