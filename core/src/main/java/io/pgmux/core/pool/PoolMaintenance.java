package io.pgmux.core.pool;

import io.pgmux.core.config.PoolConfig;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The janitor's pass over one pool (PgBouncer's pool_client_maint and pool_server_maint in janitor.c): waiters past
 * query_wait_timeout, logins past server_connect_timeout, idle servers evicted, aged, above the pool's size or the
 * fleet's share or past server_idle_timeout closed, the keepalive of those due for server_check_delay, leaks
 * reported; then min_pool_size, the reserve and the waiters.
 */
final class PoolMaintenance<S> {
    /** Pool's logger: a pool's lines are filtered by one name. */
    private static final Logger log = LoggerFactory.getLogger(Pool.class);

    private final Pool<S> pool;

    PoolMaintenance(Pool<S> pool) {
        this.pool = pool;
    }

    void run() {
        long now = pool.clock.nanoTime();
        PoolConfig c = pool.config();
        WaitQueue<S> waiters = pool.waiters;
        if (!waiters.isEmpty()) {
            waiters.forEachWaiting(w -> {
                long seen = w.ticket(); // the wait judged: a later wait of a reused waiter has its own deadline
                if (now - w.deadlineNanos >= 0) {
                    pool.lending.timeOut(w, seen, now);
                }
            });
        }
        pool.dedicated.expire(now, c.queryWaitTimeoutNanos());
        int count = pool.serverCount.get();
        int cap = pool.fleet.capAt(now);
        for (PooledServer<S> s : pool.servers.members()) {
            if (s.dedicated) {
                // its client's own: it logs in under the connector's timeout and closes with its client
                continue;
            }
            int st = s.state();
            if (st == PooledServer.LOGIN) {
                if (now - s.loginStartedNanos >= c.serverConnectTimeoutNanos()
                        && s.to(PooledServer.LOGIN, PooledServer.CLOSING)) {
                    pool.logins.timedOut(s, now, c.serverConnectTimeoutNanos());
                    count--;
                }
            } else if (st == PooledServer.IDLE) {
                String reason = null;
                if (s.evictedBecause != null) {
                    reason = s.evictedBecause;
                } else if (pool.lifetimeOver(s, now)) {
                    reason = "server_lifetime reached";
                } else if (count > c.defaultPoolSize() + c.reservePoolSize()) {
                    reason = "too many servers in the pool";
                } else if (count > cap) {
                    reason = "above the fleet's share";
                } else if (c.serverIdleTimeoutNanos() > 0 && count > c.minPoolSize()
                        && now - s.lastUsedNanos >= c.serverIdleTimeoutNanos()) {
                    reason = "server_idle_timeout reached";
                }
                if (reason != null && pool.disconnect.close(s, PooledServer.IDLE, reason)) {
                    count--;
                } else if (reason == null && c.serverCheckDelayNanos() > 0
                        && now - s.checkedNanos > c.serverCheckDelayNanos()
                        && s.to(PooledServer.IDLE, PooledServer.TESTED)) {
                    keepAlive(s);
                }
            } else if (st == PooledServer.ACTIVE && c.leakDetectionThresholdNanos() > 0) {
                LeakWatch watch = s.leak;
                if (watch != null && !watch.reported && now - watch.lentAtNanos >= c.leakDetectionThresholdNanos()) {
                    watch.reported = true;
                    log.warn("Connection leak detection triggered for {} of pool {}: held for {} ms, stack trace "
                            + "follows", s, pool.name(), TimeUnit.NANOSECONDS.toMillis(now - watch.lentAtNanos),
                            watch.site);
                }
            }
        }
        if (pool.isRunning()) {
            pool.ensureMin();
            pool.maybeOpen();
            pool.lending.serveWaiters();
        } else if (pool.isPaused()) {
            pool.checkPaused();
        }
    }

    /**
     * The keepalive (HikariCP's keepaliveTime): an idle connection neither used nor checked for server_check_delay
     * runs server_check_query in the background, so that one whose server is gone or was demoted is dropped before
     * a client borrows it. Its last use stays as it was, for server_idle_timeout.
     */
    private void keepAlive(PooledServer<S> s) {
        Pool.runStage(() -> pool.connector.test(s.connection, pool.config().serverCheckQuery()))
                .whenComplete((ok, err) -> {
                    if (err == null && Boolean.TRUE.equals(ok)) {
                        long now = pool.clock.nanoTime();
                        s.checkedNanos = now;
                        s.usedSinceCheck = false;
                        if (s.to(PooledServer.TESTED, PooledServer.ACTIVE)) {
                            pool.release.offer(s, now);
                        }
                    } else {
                        pool.disconnect.close(s, PooledServer.TESTED, "server check failed"
                                + (err != null ? ": " + Failures.cause(err).getMessage() : ""));
                    }
                });
    }
}
