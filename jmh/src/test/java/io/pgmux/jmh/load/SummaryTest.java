package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SummaryTest {

    private static long[] millis(long... values) {
        long[] nanos = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            nanos[i] = TimeUnit.MILLISECONDS.toNanos(values[i]);
        }
        return nanos;
    }

    private static RoundResult round(double seconds, long... latencyMillis) {
        return new RoundResult(latencyMillis.length, 0, seconds, millis(latencyMillis), null);
    }

    @Test
    void percentilesAreNearestRankOverEveryRoundTogether() {
        Summary s = new Summary(List.of(round(1, 1, 2, 3, 4, 5), round(1, 6, 7, 8, 9, 10)));
        assertEquals(5.0, s.percentileMillis(50));
        assertEquals(10.0, s.percentileMillis(99));
        assertEquals(1.0, s.percentileMillis(1));
    }

    @Test
    void throughputIsAllRequestsOverAllMeasuredSeconds() {
        Summary s = new Summary(List.of(round(2, 1, 1, 1, 1), round(2, 1, 1)));
        assertEquals(1.5, s.perSecond());
        assertEquals("2 / 1", s.perRound());
    }

    @Test
    void aContenderWithNoCompletedRequestHasNoLatency() {
        Summary s = new Summary(List.of(round(1)));
        assertTrue(Double.isNaN(s.percentileMillis(50)));
        assertTrue(Double.isNaN(s.meanMillis()));
    }
}
