package io.pgmux.jdbc.logical;

import io.pgmux.core.pool.Pool;
import io.pgmux.core.stats.ServerSnapshot;
import io.pgmux.jdbc.physical.PhysicalConnection;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes server connections back from logical connections that cannot give them back themselves: one the
 * application dropped without close() (garbage-collected, always on) and, with idleTransactionTimeout
 * (PgBouncer's idle_transaction_timeout), one idle inside a transaction for longer than that. Either way
 * the transaction is rolled back and the server connection returned to the pool. A connection idle outside a
 * transaction that holds its server only for results nobody has read has them buffered, and its server
 * goes back (always on). Each pool has a round
 * over its lent server connections once a second, or every half timeout when that is shorter; all
 * pools' rounds run on one daemon thread, off every application thread.
 */
public final class Reclaimer {
    private static final Logger log = LoggerFactory.getLogger(Reclaimer.class);
    private static final long LONGEST_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long SHORTEST_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Pool<PhysicalConnection> pool;
    private final long idleTransactionTimeoutNanos;

    private Reclaimer(Pool<PhysicalConnection> pool, Duration idleTransactionTimeout) {
        this.pool = pool;
        this.idleTransactionTimeoutNanos = idleTransactionTimeout.toNanos();
    }

    /** Starts the rounds over {@code pool}'s connections; cancel the result when the pool closes. */
    public static ScheduledFuture<?> start(Pool<PhysicalConnection> pool, Duration idleTransactionTimeout) {
        Reclaimer r = new Reclaimer(pool, idleTransactionTimeout);
        long period = r.idleTransactionTimeoutNanos > 0
                ? Math.max(SHORTEST_PERIOD_NANOS, Math.min(LONGEST_PERIOD_NANOS, r.idleTransactionTimeoutNanos / 2))
                : LONGEST_PERIOD_NANOS;
        return Rounds.EXECUTOR.scheduleWithFixedDelay(r::round, period, period, TimeUnit.NANOSECONDS);
    }

    private void round() {
        try {
            long now = System.nanoTime();
            for (ServerSnapshot<PhysicalConnection> s : pool.view().serverSnapshots()) {
                PhysicalConnection p = s.connection;
                Object loans = p == null ? null : p.borrower();
                if ("active".equals(s.state) && loans instanceof Loan loan) {
                    check(loan, now);
                }
            }
        } catch (RuntimeException e) {
            // Never let one bad round cancel the schedule: abandoned transactions would stay open for good.
            log.error("pool {}: reclaiming server connections failed", pool.name(), e);
        }
    }

    private void check(Loan loan, long now) {
        Borrower c = loan.weaken();
        if (c != null) {
            c.reclaimIfIdle(now, idleTransactionTimeoutNanos);
        }
    }

    /** The one thread of every pool's rounds, started with the first pool. */
    private static final class Rounds {
        static final ScheduledExecutorService EXECUTOR = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pgmux-reclaimer");
            t.setDaemon(true);
            return t;
        });
    }
}
