package io.pgmux.jmh.load;

/**
 * What one round of one contender measured: requests completed inside the measurement window, their
 * latencies (nanoseconds, sorted), and the requests that failed there.
 */
record RoundResult(long requests, long errors, double seconds, long[] latencies, String firstError) {

    double perSecond() {
        return requests / seconds;
    }
}
