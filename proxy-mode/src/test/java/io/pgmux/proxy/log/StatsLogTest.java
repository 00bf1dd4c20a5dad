package io.pgmux.proxy.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.stats.TrafficStats.Totals;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** log_stats' line, in PgBouncer 1.25's words: rates per second, times as means of what finished in the period. */
class StatsLogTest {
    @Test
    void theLineHasPgBouncersWordsRatesAndMeans() {
        Totals before = new Totals(10, 20, 5, 1_000, 2_000, 100, 200, 50, 4, 2, 8, 1);
        // 2 seconds later: 20 more transactions of 150 us, 40 more queries of 50 us, 4 assignments waiting 25 us,
        // 6 Parses by clients, 2 on servers, 30 Binds and 4 logins
        Totals after = new Totals(30, 60, 9, 5_000, 10_000, 3_100, 2_200, 150, 10, 4, 38, 5);
        assertEquals("stats: 10 xacts/s, 20 queries/s, 3 client parses/s, 1 server parses/s, 15 binds/s,"
                + " 2 client logins/s, in 2000 B/s, out 4000 B/s, xact 150 us, query 50 us, wait 25 us",
                StatsLog.line(after.averagesSince(before, TimeUnit.SECONDS.toNanos(2))));
    }

    @Test
    void anIdlePeriodIsAllZeros() {
        Totals same = new Totals(10, 20, 5, 1_000, 2_000, 100, 200, 50, 4, 2, 8, 1);
        assertEquals("stats: 0 xacts/s, 0 queries/s, 0 client parses/s, 0 server parses/s, 0 binds/s,"
                + " 0 client logins/s, in 0 B/s, out 0 B/s, xact 0 us, query 0 us, wait 0 us",
                StatsLog.line(same.averagesSince(same, TimeUnit.SECONDS.toNanos(60))));
    }
}
