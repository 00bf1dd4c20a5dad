package io.pgmux.core.pool;

import io.pgmux.core.stats.TrafficStats;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one periodic task (PgBouncer's janitor, HikariCP's house keeper): expires waiters, closes idle and
 * aged connections, refills to min, opens the reserve, reports leaks and rolls the stats period; then runs the
 * chores of the registry's owner (the proxy's client timeouts).
 */
final class Janitor implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Janitor.class);

    private final PoolRegistry<?> registry;
    private final PoolClock clock;
    private volatile long statsPeriodNanos;
    private long statsPeriodStart;
    private final List<Runnable> chores = new CopyOnWriteArrayList<>();
    private final List<Consumer<TrafficStats.Period>> periodListeners = new CopyOnWriteArrayList<>();
    private final ReentrantLock running = new ReentrantLock();
    private volatile ScheduledExecutorService executor;
    private volatile ScheduledFuture<?> scheduled;
    private volatile long periodNanos;

    Janitor(PoolRegistry<?> registry, PoolClock clock, long statsPeriodNanos) {
        this.registry = registry;
        this.clock = clock;
        this.statsPeriodNanos = statsPeriodNanos;
        this.statsPeriodStart = clock.nanoTime();
    }

    /** A new stats period length, from the period running now on. */
    void statsPeriod(long nanos) {
        this.statsPeriodNanos = nanos;
    }

    void schedule(ScheduledExecutorService executor, long periodNanos) {
        this.executor = executor;
        this.periodNanos = periodNanos;
        scheduleNext();
    }

    /** A new time between two passes, from the pass after the one scheduled now on. */
    void period(long nanos) {
        this.periodNanos = nanos;
    }

    /** Each pass schedules the next, so that the period may change while the janitor runs. */
    private void scheduleNext() {
        ScheduledExecutorService ex = executor;
        if (ex == null) {
            return;
        }
        try {
            scheduled = ex.schedule(this::pass, periodNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // shutting down: no more passes
        }
    }

    private void pass() {
        try {
            run();
        } finally {
            scheduleNext();
        }
    }

    /**
     * Runs {@code task} once after {@code delayNanos} on the janitor's executor, for work that cannot wait for
     * the next pass; without an executor (the owner runs the janitor itself) the next pass does it.
     */
    void later(Runnable task, long delayNanos) {
        ScheduledExecutorService ex = executor;
        if (ex == null) {
            return;
        }
        try {
            ex.schedule(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.error("pool janitor task failed", e);
                }
            }, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // shutting down: nothing is to be retried any more
        }
    }

    void add(Runnable chore) {
        chores.add(chore);
    }

    void addPeriodListener(Consumer<TrafficStats.Period> listener) {
        periodListeners.add(listener);
    }

    void cancel() {
        executor = null;
        ScheduledFuture<?> next = scheduled;
        if (next != null) {
            next.cancel(false);
        }
    }

    @Override
    public void run() {
        // A manual run and a scheduled one must not overlap; the later one just skips.
        if (!running.tryLock()) {
            return;
        }
        try {
            for (Pool<?> pool : registry.pools()) {
                pool.maintain();
            }
            long now = clock.nanoTime();
            if (now - statsPeriodStart >= statsPeriodNanos) {
                closeStatsPeriod(now - statsPeriodStart);
                statsPeriodStart = now;
            }
            for (Runnable chore : chores) {
                chore.run();
            }
        } catch (RuntimeException e) {
            // Never let one bad run cancel the schedule: that would silently stop every timeout.
            log.error("pool janitor run failed", e);
        } finally {
            running.unlock();
        }
    }

    /** PgBouncer's refresh_stats: every pool's period closes at once, and the listeners get their sum. */
    private void closeStatsPeriod(long nanos) {
        TrafficStats.Period all = TrafficStats.Period.NONE;
        for (TrafficStats traffic : registry.traffic()) {
            traffic.rollPeriod(nanos);
            all = all.plus(traffic.lastPeriod());
        }
        for (Consumer<TrafficStats.Period> listener : periodListeners) {
            listener.accept(all);
        }
    }
}
