package io.pgmux.core.pool;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a loan (PgBouncer's release_server in objects.c): the server closes when it is broken, evicted, aged
 * or above the pool's size or the fleet's share; otherwise it is reset (server_reset_query) if the pool says so,
 * and offered to the oldest waiter, else made idle.
 */
final class Release<S> {
    /** Pool's logger: a pool's lines are filtered by one name. */
    private static final Logger log = LoggerFactory.getLogger(Pool.class);

    private final Pool<S> pool;
    private final WaitQueue<S> waiters;
    private final PoolClock clock;
    private final Lending<S> lending;
    private final PoolFleet<S> fleet;

    Release(Pool<S> pool) {
        this.pool = pool;
        this.waiters = pool.waiters;
        this.clock = pool.clock;
        this.lending = pool.lending;
        this.fleet = pool.fleet;
    }

    /**
     * A loan of {@code s} ended (its client's CAS made this call the only one for that loan); {@code used}: false
     * when its client only read the connection's parameters, see {@link Pool#releaseUntouched}.
     */
    void loanEnded(PooledServer<S> s, boolean used) {
        long now = clock.nanoTime();
        LeakWatch watch = s.leak;
        if (watch != null) {
            s.leak = null;
            if (watch.reported) {
                log.info("Previously reported leaked connection {} of pool {} was returned after {} ms", s,
                        pool.name(), TimeUnit.NANOSECONDS.toMillis(now - s.lentAtNanos));
            }
        }
        if (pool.tracking) {
            pool.tracker.recordConnectionUsageMillis(TimeUnit.NANOSECONDS.toMillis(now - s.lentAtNanos));
        }
        if (s.isBroken()) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "server connection broken: " + s.brokenCause.getMessage());
        } else if (s.dedicated) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "replication client was closed");
        } else if (s.evictedBecause != null || pool.isClosed()) {
            pool.disconnect.close(s, PooledServer.ACTIVE, pool.isClosed() ? "pool closing" : s.evictedBecause);
        } else if (pool.lifetimeOver(s, now) || used && pool.config().serverUsedOnce()) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "server_lifetime reached");
        } else if (pool.serverCount.get() > fleet.capAt(now)) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "above the fleet's share");
        } else if (pool.serverCount.get() > pool.config().defaultPoolSize() + pool.config().reservePoolSize()
                && waiters.isEmpty()) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "too many servers in the pool");
        } else if (!used) {
            offer(s, now);
        } else if (pool.config().resetOnRelease()) {
            if (!s.to(PooledServer.ACTIVE, PooledServer.TESTED)) {
                return; // closed by Pool.closeNow while lent
            }
            Pool.runStage(() -> pool.connector.reset(s.connection, pool.config().serverResetQuery()))
                    .whenComplete((v, err) -> {
                        if (err != null) {
                            pool.disconnect.close(s, PooledServer.TESTED,
                                    "server_reset_query failed: " + Failures.cause(err).getMessage());
                        } else if (s.to(PooledServer.TESTED, PooledServer.ACTIVE)) {
                            // As in PgBouncer, a connection just reset is not checked as well.
                            giveBack(s, clock.nanoTime(), false);
                        }
                    });
        } else {
            giveBack(s, now, true);
        }
    }

    /**
     * A connection that worked until now goes back: see {@link #offer}. {@code used}: a client used it, rather
     * than it having just logged in, been reset or passed a check.
     */
    void giveBack(PooledServer<S> s, long now, boolean used) {
        s.lastUsedNanos = now;
        s.checkedNanos = now;
        s.usedSinceCheck = used;
        offer(s, now);
    }

    /** Hands a usable connection to the oldest waiter, or makes it idle. The server is ACTIVE on entry. */
    void offer(PooledServer<S> s, long now) {
        if (pool.isClosed()) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "pool closing");
            return;
        }
        // One that needs a check is not handed over as it is: serving the waiters below starts its check.
        if (pool.isRunning() && !waiters.isEmpty() && !s.needsCheck(now, pool.config().serverCheckDelayNanos())
                && lending.handOff(s, now)) {
            return;
        }
        if (!s.to(PooledServer.ACTIVE, PooledServer.IDLE)) {
            return; // closed by Pool.closeNow while lent
        }
        if (pool.isPaused()) {
            pool.checkPaused();
        } else if (!waiters.isEmpty()) {
            lending.serveWaiters();
        } else if (pool.dedicated.hasWaiting()) {
            pool.dedicated.openWaiting();
        } else if (pool.config().maxDbConnections() > 0 || pool.config().maxUserConnections() > 0) {
            pool.registry.limits.offerSlotToSiblings(pool);
        }
    }
}
