package io.pgmux.core.pool;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.TrafficStats;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * How one pool lends its servers (PgBouncer's find_server and activate_client in objects.c): an idle one at once
 * when nobody waits, else the client waits, served strictly oldest first by a server handed straight to it as it
 * comes back or opens; query_wait_timeout ends the wait.
 */
final class Lending<S> {
    private final Pool<S> pool;
    private final WaitQueue<S> waiters;
    private final ServerSet<S> servers;
    private final PoolClock clock;
    private final TrafficStats traffic;
    private final IMetricsTracker tracker;
    private final boolean tracking;

    Lending(Pool<S> pool) {
        this.pool = pool;
        this.waiters = pool.waiters;
        this.servers = pool.servers;
        this.clock = pool.clock;
        this.traffic = pool.traffic();
        this.tracker = pool.tracker;
        this.tracking = pool.tracking;
    }

    /** The stage {@link Pool#acquireAsync(Object)} returns, which is its own callback: one object per wait, not two. */
    static final class AcquiredStage<S> extends CompletableFuture<Lease<S>>
            implements BiConsumer<Lease<S>, Throwable> {
        @Override
        public void accept(Lease<S> lease, Throwable failure) {
            if (failure != null) {
                completeExceptionally(failure);
            } else {
                complete(lease);
            }
        }
    }

    /** The server lent to {@code holder}: the caller's client, or a Lease that the caller binds to it. */
    PooledServer<S> borrow(Object holder, long timeoutNanos) throws InterruptedException {
        long start = clock.nanoTime();
        if (pool.isRunning() && waiters.isEmpty()) {
            PooledServer<S> s = claimIdle(start, null);
            if (s != null) {
                lend(s, holder, start);
                assigned(start, start);
                return s;
            }
        }
        Waiter<S> w = Waiter.blocking(start, deadline(start, timeoutNanos), holder);
        enqueue(w);
        return awaitBlocking(w);
    }

    /** See {@link Pool#acquireAsync(Object, BiConsumer)}. */
    void acquireAsync(Object affinity, BiConsumer<? super Lease<S>, ? super Throwable> whenDone) {
        long start = clock.nanoTime();
        Lease<S> ready = claimNow(start, affinity);
        if (ready != null) {
            whenDone.accept(ready, null);
            return;
        }
        Waiter<S> w = Waiter.async(start, deadline(start, pool.config().queryWaitTimeoutNanos()), affinity, whenDone);
        try {
            enqueue(w);
        } catch (PoolException e) {
            whenDone.accept(null, e);
        }
    }

    /** An idle connection lent to {@code client} itself when one is free and nobody waits; else null. */
    PooledServer<S> claimNowFor(Object client, long start, Object affinity) {
        PooledServer<S> s = claimFree(start, affinity);
        if (s == null) {
            return null;
        }
        lend(s, client, start);
        assigned(start, start);
        return s;
    }

    /** See {@link Pool#acquireWith}. */
    void acquireAsync(Waiter<S> w, Object affinity) {
        long start = clock.nanoTime();
        PooledServer<S> ready = claimNowFor(w.holder, start, affinity);
        if (ready != null) {
            w.answerNow(ready, null);
            return;
        }
        w.restart(start, deadline(start, pool.config().queryWaitTimeoutNanos()), affinity);
        try {
            enqueue(w);
        } catch (PoolException e) {
            // refused before it was queued: the wait ends here
            w.end(w.ticket(), null);
            w.answerNow(null, e);
        }
    }

    /** A lease on an idle connection when one is free and nobody waits (FIFO comes first); else null. */
    Lease<S> claimNow(long start, Object affinity) {
        PooledServer<S> s = claimFree(start, affinity);
        if (s == null) {
            return null;
        }
        Lease<S> lease = new Lease<>();
        lend(s, lease, start);
        lease.bind(s);
        assigned(start, start);
        return lease;
    }

    /** An idle connection, not lent yet, when the pool runs and nobody waits (FIFO comes first); else null. */
    private PooledServer<S> claimFree(long start, Object affinity) {
        return pool.isRunning() && waiters.isEmpty() ? claimIdle(start, affinity) : null;
    }

    private static long deadline(long start, long timeoutNanos) {
        return timeoutNanos <= 0 ? Long.MAX_VALUE : start + timeoutNanos;
    }

    private void enqueue(Waiter<S> w) {
        if (pool.isClosed()) {
            throw pool.shuttingDown();
        }
        ServerLoginException refused = pool.logins.cachedRefusal(w.enqueuedNanos);
        if (refused != null) {
            throw refused;
        }
        waiters.add(w);
        pool.registry.wakeJanitor();
        // Added-then-scan pairs with release's set-idle-then-check: one of the two always sees the other.
        serveWaiters();
        pool.maybeOpen();
    }

    private PooledServer<S> awaitBlocking(Waiter<S> w) throws InterruptedException {
        for (;;) {
            PooledServer<S> served = w.served();
            if (served != null) {
                return served;
            }
            long remaining = w.deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE
                    : w.deadlineNanos - clock.nanoTime();
            if (remaining <= 0) {
                timeOut(w, w.ticket(), clock.nanoTime());
                continue;
            }
            // The pool is the blocker a thread dump shows.
            if (remaining == Long.MAX_VALUE) {
                LockSupport.park(pool);
            } else {
                LockSupport.parkNanos(pool, remaining);
            }
            if (Thread.interrupted()) {
                if (waiters.fail(w, new InterruptedException("interrupted while waiting for a server connection"))) {
                    throw new InterruptedException("interrupted while waiting for a server connection from pool "
                            + pool.name());
                }
                // A connection arrived at the same moment: keep it, keep the interrupt for the caller.
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Fails the wait of {@code seen} of {@code w} with query_wait_timeout, counting it if this call was the one that
     * ended it.
     */
    void timeOut(Waiter<S> w, long seen, long now) {
        if (waiters.fail(w, seen, timeout(w, now)) && tracking) {
            tracker.recordConnectionTimeout();
        }
    }

    private PoolTimeoutException timeout(Waiter<S> w, long now) {
        long waited = now - w.enqueuedNanos;
        ServerCounts counts = pool.countServers(now);
        Throwable lastLogin = pool.logins.lastError();
        PoolConfig config = pool.config();
        String msg = "query_wait_timeout: pool " + pool.name() + " had no server connection free within "
                + TimeUnit.NANOSECONDS.toMillis(waited) + " ms (pool size " + config.defaultPoolSize()
                + (config.reservePoolSize() > 0 ? " + reserve " + config.reservePoolSize() : "") + "; "
                + counts.inUse() + " active, " + counts.unused() + " idle, " + pool.logins.underWay() + " connecting, "
                + waiters.size() + " clients waiting)" + (lastLogin != null ? "; last login failure: " + lastLogin.getMessage() : "");
        return new PoolTimeoutException(msg, waited, lastLogin);
    }

    /**
     * Claims an idle server that needs no test, one of the given affinity first when there is one; closes
     * the unusable ones met on the way and starts the test of those that need one.
     */
    private PooledServer<S> claimIdle(long now, Object affinity) {
        PooledServer<S> s;
        while ((s = servers.claimIdle(affinity)) != null) {
            String evicted = s.evictedBecause;
            if (evicted != null || s.isBroken() || pool.lifetimeOver(s, now)) {
                pool.disconnect.close(s, PooledServer.ACTIVE, s.isBroken() ? "server connection broken"
                        : evicted != null ? evicted : "server_lifetime reached");
            } else if (s.needsCheck(now, pool.config().serverCheckDelayNanos())) {
                startCheck(s);
            } else {
                return s;
            }
        }
        return null;
    }

    /** server_check_delay passed since {@code s} was last used or checked: it runs server_check_query first. */
    private void startCheck(PooledServer<S> s) {
        if (!s.to(PooledServer.ACTIVE, PooledServer.TESTED)) {
            return; // closed by Pool.closeNow since it was claimed
        }
        Pool.runStage(() -> pool.connector.test(s.connection, pool.config().serverCheckQuery()))
                .whenComplete((ok, err) -> {
                    if (err == null && Boolean.TRUE.equals(ok)) {
                        if (s.to(PooledServer.TESTED, PooledServer.ACTIVE)) {
                            pool.release.giveBack(s, clock.nanoTime(), false);
                        }
                    } else {
                        pool.disconnect.close(s, PooledServer.TESTED, "server check failed"
                                + (err != null ? ": " + Failures.cause(err).getMessage() : ""));
                    }
                });
    }

    /**
     * Lends {@code s} (ACTIVE, claimed by the caller) to {@code holder}; with leak detection on, the loan
     * records where it was taken for the janitor's leak check.
     */
    void lend(PooledServer<S> s, Object holder, long now) {
        s.lend(holder, now, leakWatch(now));
    }

    private LeakWatch leakWatch(long now) {
        return pool.config().leakDetectionThresholdNanos() > 0 ? new LeakWatch(now) : null;
    }

    void assigned(long startNanos, long nowNanos) {
        traffic.recordWait(nowNanos - startNanos);
        if (tracking) {
            tracker.recordConnectionAcquiredNanos(clock.nanoTime() - startNanos);
        }
    }

    /** Gives an ACTIVE server to the oldest waiter; false (server untouched) if nobody waits any more. */
    boolean handOff(PooledServer<S> s, long now) {
        Waiter<S> w;
        while ((w = waiters.poll(s.affinity)) != null) {
            long seen = w.polledTicket;
            if (!Waiter.waiting(seen)) {
                continue; // not so: a queued wait ends by a fail, which unlinks it, or by its poll's offer
            }
            // read before the offer: the client may start its next wait with this waiter from the callback
            long waited = now - w.enqueuedNanos;
            lend(s, w.holder, now);
            if (waiters.offer(w, seen, s)) {
                traffic.recordWait(waited);
                if (tracking) {
                    tracker.recordConnectionAcquiredNanos(waited);
                }
                return true;
            }
            s.unlend();
        }
        return false;
    }

    /** Serves waiters from idle connections until one of the two runs out. */
    void serveWaiters() {
        while (pool.isRunning() && !waiters.isEmpty()) {
            long now = clock.nanoTime();
            PooledServer<S> s = claimIdle(now, null);
            if (s == null) {
                return;
            }
            if (!handOff(s, now)) {
                s.to(PooledServer.ACTIVE, PooledServer.IDLE);
            }
        }
    }
}
