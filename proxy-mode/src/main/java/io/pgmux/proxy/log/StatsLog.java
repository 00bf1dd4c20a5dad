package io.pgmux.proxy.log;

import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.core.stats.TrafficStats.Totals;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's log_stats: every stats_period, one line of the averages over it, summed over every pool and the admin console, in PgBouncer
 * 1.25's words ({@code stats: 12 xacts/s, 30 queries/s, …, wait 0 us}). A janitor chore: it runs on the
 * registry's periodic task and does its work once a period has passed.
 */
public final class StatsLog implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(StatsLog.class);

    private final PoolRegistry<?> registry;
    private volatile long periodNanos;
    private volatile boolean enabled;
    private long periodStart = System.nanoTime();
    private Totals atPeriodStart;

    public StatsLog(PoolRegistry<?> registry, Duration period, boolean enabled) {
        this.registry = registry;
        this.periodNanos = Math.max(1, period.toNanos());
        this.enabled = enabled;
        this.atPeriodStart = totals();
    }

    /** stats_period, which RELOAD and SET may change: the period running now ends once the new length passed. */
    public void period(Duration period) {
        this.periodNanos = Math.max(1, period.toNanos());
    }

    /** log_stats, which RELOAD may change. */
    public void enabled(boolean on) {
        this.enabled = on;
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        if (now - periodStart < periodNanos) {
            return;
        }
        Totals current = totals();
        if (enabled) {
            log.info(line(atPeriodStart, current, now - periodStart));
        }
        atPeriodStart = current;
        periodStart = now;
    }

    private Totals totals() {
        long xacts = 0;
        long queries = 0;
        long assignments = 0;
        long received = 0;
        long sent = 0;
        long xactMicros = 0;
        long queryMicros = 0;
        long waitMicros = 0;
        long clientParses = 0;
        long serverParses = 0;
        long binds = 0;
        long logins = 0;
        for (TrafficStats traffic : registry.traffic()) {
            Totals t = traffic.totals();
            xacts += t.xactCount;
            queries += t.queryCount;
            assignments += t.serverAssignmentCount;
            received += t.received;
            sent += t.sent;
            xactMicros += t.xactTimeMicros;
            queryMicros += t.queryTimeMicros;
            waitMicros += t.waitTimeMicros;
            clientParses += t.clientParseCount;
            serverParses += t.serverParseCount;
            binds += t.bindCount;
            logins += t.clientLoginCount;
        }
        return new Totals(xacts, queries, assignments, received, sent, xactMicros, queryMicros, waitMicros,
                clientParses, serverParses, binds, logins);
    }

    /** Rates per second over the period; times as the mean of what finished in it, as SHOW STATS_AVERAGES. */
    static String line(Totals a, Totals b, long periodNanos) {
        double seconds = periodNanos / 1e9;
        long xacts = b.xactCount - a.xactCount;
        long queries = b.queryCount - a.queryCount;
        long assignments = b.serverAssignmentCount - a.serverAssignmentCount;
        return "stats: " + perSecond(xacts, seconds) + " xacts/s, " + perSecond(queries, seconds) + " queries/s, "
                + perSecond(b.clientParseCount - a.clientParseCount, seconds) + " client parses/s, "
                + perSecond(b.serverParseCount - a.serverParseCount, seconds) + " server parses/s, "
                + perSecond(b.bindCount - a.bindCount, seconds) + " binds/s, "
                + perSecond(b.clientLoginCount - a.clientLoginCount, seconds) + " client logins/s, "
                + "in " + perSecond(b.received - a.received, seconds) + " B/s, "
                + "out " + perSecond(b.sent - a.sent, seconds) + " B/s, "
                + "xact " + mean(b.xactTimeMicros - a.xactTimeMicros, xacts) + " us, "
                + "query " + mean(b.queryTimeMicros - a.queryTimeMicros, queries) + " us, "
                + "wait " + mean(b.waitTimeMicros - a.waitTimeMicros, assignments) + " us";
    }

    private static long perSecond(long count, double seconds) {
        return Math.round(count / seconds);
    }

    private static long mean(long micros, long count) {
        return count == 0 ? 0 : micros / count;
    }
}
