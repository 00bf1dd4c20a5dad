package io.pgmux.core.pool;

import io.pgmux.core.stats.TrafficStats;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
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
    /** The time between passes while nothing can be due soon (0: none, every pass is {@link #periodNanos} apart). */
    private volatile long quietPeriodNanos;
    /** Whether the owner has nothing that can be due soon (the proxy: no client's timeout, no WAIT_CLOSE). */
    private volatile BooleanSupplier ownerQuiet = () -> false;
    /** Orders deciding the next pass against {@link #wake()}, so that a wake is never lost. */
    private final ReentrantLock scheduling = new ReentrantLock();
    /** Whether the next pass is {@link #quietPeriodNanos} away. */
    private volatile boolean sleepingLong;

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
        wake();
    }

    /**
     * Passes {@code nanos} apart while no pool and not the owner has anything that can be due soon: no client
     * waits, no server logs in, no pool is paused, and {@code ownerQuiet} says so. What can still be due then
     * (an idle server's timeouts, the stats period) is the owner's to bound with {@code nanos}.
     */
    void quiet(long nanos, BooleanSupplier ownerQuiet) {
        this.ownerQuiet = ownerQuiet;
        this.quietPeriodNanos = nanos;
        wake();
    }

    /** Each pass schedules the next, so that the period may change while the janitor runs. */
    private void scheduleNext() {
        ScheduledExecutorService ex = executor;
        if (ex == null) {
            return;
        }
        scheduling.lock();
        try {
            long quietNanos = quietPeriodNanos;
            boolean sleepLong = false;
            if (quietNanos > periodNanos) {
                // set before looking: whoever makes something due after the look finds it set and wakes the janitor
                sleepingLong = true;
                sleepLong = nothingDueSoon();
                sleepingLong = sleepLong;
            }
            scheduled = ex.schedule(this::pass, sleepLong ? quietNanos : periodNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // shutting down: no more passes
        } finally {
            scheduling.unlock();
        }
    }

    private boolean nothingDueSoon() {
        for (Pool<?> pool : registry.pools()) {
            if (!pool.quiet()) {
                return false;
            }
        }
        return ownerQuiet.getAsBoolean();
    }

    /**
     * Something can be due soon (a client connected, one waits for a server): a janitor sleeping for the quiet
     * period runs its next pass one period from now instead. Cheap when it is not sleeping long: one volatile read.
     */
    void wake() {
        if (!sleepingLong) {
            return;
        }
        scheduling.lock();
        try {
            ScheduledExecutorService ex = executor;
            ScheduledFuture<?> next = scheduled;
            if (!sleepingLong || ex == null) {
                return;
            }
            sleepingLong = false;
            // a pass running now decides its next itself, and sees what woke the janitor
            if (next != null && next.cancel(false)) {
                scheduled = ex.schedule(this::pass, periodNanos, TimeUnit.NANOSECONDS);
            }
        } catch (RejectedExecutionException e) {
            // shutting down: no more passes
        } finally {
            scheduling.unlock();
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
