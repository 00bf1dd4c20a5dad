package io.pgmux.proxy.log;

import io.pgmux.core.stats.TrafficStats.Averages;
import io.pgmux.core.stats.TrafficStats.Period;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's log_stats: each time the registry's janitor closes a stats period, one line of the averages over it,
 * summed over every pool and the admin console, in PgBouncer 1.25's words
 * ({@code stats: 12 xacts/s, 30 queries/s, …, wait 0 us}).
 */
public final class StatsLog implements Consumer<Period> {
    private static final Logger log = LoggerFactory.getLogger(StatsLog.class);

    private volatile boolean enabled;

    public StatsLog(boolean enabled) {
        this.enabled = enabled;
    }

    /** log_stats, which RELOAD may change. */
    public void enabled(boolean on) {
        this.enabled = on;
    }

    @Override
    public void accept(Period all) {
        if (enabled) {
            log.info(line(all.averages()));
        }
    }

    static String line(Averages a) {
        return "stats: " + a.xactCount + " xacts/s, " + a.queryCount + " queries/s, "
                + a.clientParseCount + " client parses/s, "
                + a.serverParseCount + " server parses/s, "
                + a.bindCount + " binds/s, "
                + a.clientLoginCount + " client logins/s, "
                + "in " + a.received + " B/s, "
                + "out " + a.sent + " B/s, "
                + "xact " + a.xactTimeMicros + " us, "
                + "query " + a.queryTimeMicros + " us, "
                + "wait " + a.waitTimeMicros + " us";
    }
}
