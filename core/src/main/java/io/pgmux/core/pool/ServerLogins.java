package io.pgmux.core.pool;

import io.pgmux.core.config.PoolConfig;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opening of one pool's server connections (PgBouncer's launch_new_connection in objects.c): as many logins
 * as waiting clients need, within pool_size, the reserve after reserve_pool_timeout, the fleet's share and the
 * shared limits, and min_pool_size's; and what a failed login means for the next ones (the back-off while the
 * server is unavailable, server_login_retry and the cached error while it refuses).
 */
final class ServerLogins<S> {
    /** Pool's logger: a pool's lines are filtered by one name. */
    private static final Logger log = LoggerFactory.getLogger(Pool.class);

    /** Lifetimes are shortened by up to this fraction so connections opened together do not retire together. */
    private static final double LIFETIME_JITTER = 0.025;
    /** The pause after a first login that found the server unavailable; it doubles with each further one. */
    private static final long LOGIN_BACKOFF_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The longest pause between logins to an unavailable server (server_login_retry, when shorter). */
    private static final long LOGIN_BACKOFF_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final Pool<S> pool;
    /** Logins under way (servers in LOGIN), dedicated ones aside. */
    private final AtomicInteger underWay = new AtomicInteger();
    /** The last failed login since one succeeded, or null: the pool is failing while it is set. */
    private volatile Throwable loginError;
    /** The server refused that login (a wrong password, no such database) rather than being unavailable. */
    private volatile boolean loginRefused;
    /** No login starts before this while {@link #loginError} is set. */
    private volatile long loginRetryAtNanos;
    /** Failed logins in a row, those under way together counted once; the back-off grows with it. */
    private final AtomicInteger loginFailures = new AtomicInteger();
    private volatile long loginFailedAtNanos;

    ServerLogins(Pool<S> pool) {
        this.pool = pool;
    }

    int underWay() {
        return underWay.get();
    }

    /** The last failed login since one succeeded, or null. */
    Throwable lastError() {
        return loginError;
    }

    /**
     * The error a new waiter gets at once, or null: only a refusal is served from the cache, until
     * server_login_retry passes and while no server is connected; a server that is down or restarting is waited for.
     */
    ServerLoginException cachedRefusal(long now) {
        Throwable failing = loginError;
        if (failing != null && loginRefused && now - loginRetryAtNanos < 0 && connectedServers() == 0) {
            return new ServerLoginException("server login has been failing, cached error: " + failing.getMessage()
                    + " (server_login_retry)", failing, true);
        }
        return null;
    }

    /** A soft eviction: the next login may start at once, since what made the last one fail may be what changed. */
    void retryNow(long now) {
        loginRetryAtNanos = now;
    }

    /** Opens connections for waiters not already covered by logins in progress, within every limit. */
    void openForWaiters() {
        if (pool.dedicated.hasWaiting()) {
            pool.dedicated.openWaiting();
        }
        while (pool.isRunning()) {
            long now = pool.clock.nanoTime();
            if (!loginAllowed(now)) {
                return;
            }
            int uncovered = pool.waiters.size() - underWay.get();
            if (uncovered <= 0) {
                return;
            }
            if (!tryOpen(now, currentLimit(now))) {
                return;
            }
        }
    }

    /** Keeps min_pool_size connections open, no more than the pool's size. */
    void openToMin() {
        while (pool.isRunning()) {
            long now = pool.clock.nanoTime();
            if (!loginAllowed(now)) {
                return;
            }
            PoolConfig c = pool.config();
            int min = Math.min(c.minPoolSize(), c.defaultPoolSize());
            if (pool.serverCount.get() >= min) {
                return;
            }
            if (!tryOpen(now, min)) {
                return;
            }
        }
    }

    /** Scheduled at the end of a back-off: the logins the waiting clients and min_pool_size need. */
    void retry() {
        if (pool.isRunning()) {
            openForWaiters();
            openToMin();
        }
    }

    /**
     * Whether a login may start now: always while logins succeed; while they fail, only once the back-off of the
     * last failure has passed, and only one at a time, which probes the server for all the clients waiting.
     */
    private boolean loginAllowed(long now) {
        return loginError == null || now - loginRetryAtNanos >= 0 && underWay.get() == 0;
    }

    /** pool_size, and the reserve once the oldest client waited reserve_pool_timeout. */
    private int currentLimit(long now) {
        PoolConfig c = pool.config();
        int limit = c.defaultPoolSize();
        if (c.reservePoolSize() > 0) {
            Waiter<S> oldest = pool.waiters.oldest();
            if (oldest != null && now - oldest.enqueuedNanos >= c.reservePoolTimeoutNanos()) {
                limit += c.reservePoolSize();
            }
        }
        return limit;
    }

    /** Opens one connection if the pool, database and user limits allow it. */
    private boolean tryOpen(long now, int limit) {
        AtomicInteger serverCount = pool.serverCount;
        int total = serverCount.get();
        if (total >= Math.min(limit, pool.fleet.capAt(now))) {
            return false;
        }
        if (!serverCount.compareAndSet(total, total + 1)) {
            return true;
        }
        // Read again after the count grew: fleetCap(int) lowers the cap before it counts, so either it sees this
        // login or this login sees the lower cap.
        if (total >= pool.fleet.capAt(now)) {
            serverCount.decrementAndGet();
            return false;
        }
        if (!pool.registry.limits.reserve(pool)) {
            serverCount.decrementAndGet();
            pool.registry.limits.evictIdleFor(pool);
            return false;
        }
        if (total >= pool.config().defaultPoolSize()) {
            // PgBouncer's words, which operators alert on: the pool is full and a client waited reserve_pool_timeout
            log.warn("pool {}: taking connection from reserve_pool", pool.name());
        }
        PooledServer<S> s = new PooledServer<>(pool, now);
        underWay.incrementAndGet();
        // server_connect_timeout is the janitor's: it must not sleep through this login
        pool.registry.wakeJanitor();
        pool.servers.add(s);
        CompletionStage<S> opening = Pool.runStage(() -> pool.connector.open(s));
        opening.whenComplete((conn, err) -> opened(s, conn, err));
        return true;
    }

    private void opened(PooledServer<S> s, S conn, Throwable err) {
        long now = pool.clock.nanoTime();
        if (!s.to(PooledServer.LOGIN, err == null ? PooledServer.ACTIVE : PooledServer.CLOSING)) {
            // server_connect_timeout already gave up on this login.
            if (conn != null) {
                pool.disconnect.closeConnection(conn, "server_connect_timeout reached");
            }
            return;
        }
        underWay.decrementAndGet();
        if (err != null) {
            pool.disconnect.remove(s);
            Throwable error = Failures.cause(err);
            failed(error, s.loginStartedNanos, now, pool.connector.isTransientLoginFailure(error));
            return;
        }
        s.connection = conn;
        s.affinity = pool.connector.affinity(conn);
        s.connectedAtNanos = now;
        s.lifetimeShare = 1 - LIFETIME_JITTER * ThreadLocalRandom.current().nextDouble();
        boolean recovered = loginError != null;
        if (recovered) {
            loginError = null;
            log.info("pool {}: server login succeeded after {} failed", pool.name(), loginFailures.getAndSet(0));
        }
        if (pool.tracking) {
            pool.tracker.recordConnectionCreatedMillis(TimeUnit.NANOSECONDS.toMillis(now - s.loginStartedNanos));
        }
        if (pool.isClosed()) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "pool closing");
            return;
        }
        pool.release.giveBack(s, now, false);
        if (recovered) {
            // while logins failed only one probed the server; the other waiting clients need theirs now
            openForWaiters();
        }
    }

    /**
     * server_connect_timeout: the janitor gave up on {@code s} (which it moved from LOGIN to CLOSING), a login that
     * found the server unavailable.
     */
    void timedOut(PooledServer<S> s, long now, long timeoutNanos) {
        underWay.decrementAndGet();
        pool.disconnect.remove(s);
        failed(new PoolException("server_connect_timeout: no connection to the server within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"), s.loginStartedNanos, now, true);
    }

    /**
     * A login failed. A server that is unavailable (down, restarting, starting up: {@code unavailable}) is tried
     * again after a short back-off growing from 50 ms to 500 ms, while clients keep waiting up to
     * query_wait_timeout. A server that refused the login (wrong password, no such database) is not tried again
     * for server_login_retry, and as nobody can be served meanwhile, waiting clients get its error at once.
     */
    private void failed(Throwable error, long startedNanos, long now, boolean unavailable) {
        Throwable previous = loginError;
        // Logins already under way when the server went away fail together: they count as one failure, or the
        // back-off would reach its longest before a single retry.
        int failures = previous == null || startedNanos - loginFailedAtNanos > 0
                ? loginFailures.incrementAndGet() : loginFailures.get();
        loginFailedAtNanos = now;
        String reason = error.getMessage() != null ? error.getMessage() : error.toString();
        if (previous == null || !Objects.equals(previous.getMessage(), error.getMessage())) {
            log.warn("pool {}: server login failed: {}", pool.name(), reason);
        } else if (log.isDebugEnabled()) {
            log.debug("pool {}: server login failed again ({} in a row): {}", pool.name(), failures, reason);
        }
        if (pool.tracking) {
            pool.tracker.recordServerLoginFailure();
        }
        long pause = unavailable ? backOff(failures) : pool.config().serverLoginRetryNanos();
        loginRefused = !unavailable;
        loginRetryAtNanos = now + pause;
        loginError = error;
        if (unavailable) {
            if (!pool.waiters.isEmpty() || pool.serverCount.get() < pool.config().minPoolSize()) {
                pool.registry.retryLoginsLater(pool, pause);
            }
        } else if (!hasUsableServer()) {
            ServerLoginException failure = new ServerLoginException(error.getMessage(), error, false);
            pool.waiters.forEachWaiting(w -> pool.waiters.fail(w, failure));
        }
    }

    /** The pause after the given number of failed logins in a row to an unavailable server. */
    private long backOff(int failures) {
        long max = Math.max(LOGIN_BACKOFF_FIRST_NANOS,
                Math.min(LOGIN_BACKOFF_MAX_NANOS, pool.config().serverLoginRetryNanos()));
        return Math.min(max, LOGIN_BACKOFF_FIRST_NANOS << Math.min(failures - 1, 20));
    }

    private int connectedServers() {
        return pool.serverCount.get() - underWay.get();
    }

    /**
     * Whether a logged-in server will serve a waiting client: one a soft eviction marked closes once released
     * instead, so waiters behind a refused login would wait for nothing (PgBouncer's kill_pool_logins).
     */
    private boolean hasUsableServer() {
        for (PooledServer<S> s : pool.servers.members()) {
            if (s.state() != PooledServer.LOGIN && s.state() != PooledServer.CLOSING && s.evictedBecause == null) {
                return true;
            }
        }
        return false;
    }
}
