package io.pgmux.proxy.client;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.Scope;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * How often core's janitor runs in the proxy: five passes in the shortest timeout it enforces, but at most three a
 * second (PgBouncer's fixed period) and at least one. Each pass wakes a thread and walks the pools and the chores, a
 * cost an idle process pays at every pass: at a third of a second it was the largest part of an idle proxy's CPU,
 * though with the default settings no timeout is shorter than 5 s. The timeouts looked at are the global settings
 * in seconds, the pool timeouts (global, and each {@code [databases]} and {@code [users]} entry's own: a user's
 * query_wait_timeout = 2 checked once a second would let a client wait almost 3 s), query_wait_notify and the
 * {@code [users]} entries' client timeouts.
 */
public final class JanitorPeriod {
    static final long FASTEST_NANOS = Duration.ofMillis(333).toNanos();
    static final long SLOWEST_NANOS = Duration.ofSeconds(1).toNanos();
    static final long QUIETEST_NANOS = Duration.ofSeconds(10).toNanos();
    /** The settings whose timeouts run while no client's can be due, besides the pools' idle-server ones. */
    private static final List<ProxySetting> RUNNING_WITHOUT_CLIENTS = List.of(ProxySetting.STATS_PERIOD,
            ProxySetting.AUTODB_IDLE_TIMEOUT, ProxySetting.POOL_IDLE_TIMEOUT, ProxySetting.AUTH_FILE_CHECK_PERIOD);
    private static final int PASSES_PER_TIMEOUT = 5;

    private JanitorPeriod() {
    }

    public static Duration of(ProxySettings settings, PoolOverrides overrides,
            Collection<ClientTimeouts.Limits> users) {
        long shortest = Long.MAX_VALUE;
        for (ProxySetting setting : ProxySetting.values()) {
            // an entry's own (replica_check_period) is no timeout of the janitor's
            if (setting.type() == ProxySetting.Type.SECONDS && setting.takenIn(Scope.GLOBAL)) {
                Duration value = settings.get(setting);
                shortest = shorter(shortest, value.toNanos());
            }
        }
        shortest = overEveryPool(shortest, settings.pool(), overrides, JanitorPeriod::shortestPoolTimeout);
        int waitNotifySeconds = settings.get(ProxySetting.QUERY_WAIT_NOTIFY);
        shortest = shorter(shortest, Duration.ofSeconds(waitNotifySeconds).toNanos());
        for (ClientTimeouts.Limits own : users) {
            shortest = shorter(shortest, own.idleNanos());
            shortest = shorter(shortest, own.idleTransactionNanos());
            shortest = shorter(shortest, own.queryNanos());
            shortest = shorter(shortest, own.transactionNanos());
        }
        long period = shortest / PASSES_PER_TIMEOUT;
        return Duration.ofNanos(Math.max(FASTEST_NANOS, Math.min(SLOWEST_NANOS, period)));
    }

    /**
     * How often the janitor runs while no client's timeout can be due ({@link ClientTimeouts#nothingDue}: no client
     * is connected, or none of the timeouts set applies to idle ones) and no pool has a client waiting or a server
     * logging in: five passes in the shortest timeout that can run then (an idle server's server_idle_timeout,
     * server_lifetime and server_check_delay, stats_period, autodb_idle_timeout, pool_idle_timeout,
     * auth_file_check_period), at most every ten seconds; a login, a wait or a new setting wakes it. With the
     * defaults, every 6 s (server_check_delay's 30 s).
     */
    public static Duration quiet(ProxySettings settings, PoolOverrides overrides) {
        long shortest = Long.MAX_VALUE;
        for (ProxySetting setting : RUNNING_WITHOUT_CLIENTS) {
            Duration value = settings.get(setting);
            shortest = shorter(shortest, value.toNanos());
        }
        shortest = overEveryPool(shortest, settings.pool(), overrides, JanitorPeriod::shortestIdleServerTimeout);
        return Duration.ofNanos(Math.max(FASTEST_NANOS, Math.min(QUIETEST_NANOS, shortest / PASSES_PER_TIMEOUT)));
    }

    /** The shortest of {@code timeouts} over the global pool settings and every database's and user's own. */
    private static long overEveryPool(long shortest, PoolConfig global, PoolOverrides overrides,
            PoolTimeouts timeouts) {
        shortest = timeouts.shortest(shortest, global);
        for (String database : overrides.databases()) {
            shortest = timeouts.shortest(shortest, overrides.forDatabase(global, database));
        }
        for (String user : overrides.users()) {
            shortest = timeouts.shortest(shortest, overrides.forUser(global, user));
        }
        return shortest;
    }

    /** Which of a pool's timeouts count: the shortest of them and {@code shortest}. */
    private interface PoolTimeouts {
        long shortest(long shortest, PoolConfig pool);
    }

    private static long shortestIdleServerTimeout(long shortest, PoolConfig pool) {
        shortest = shorter(shortest, pool.serverIdleTimeoutNanos());
        shortest = shorter(shortest, pool.serverLifetimeNanos());
        return shorter(shortest, pool.serverCheckDelayNanos());
    }

    private static long shortestPoolTimeout(long shortest, PoolConfig pool) {
        shortest = shorter(shortest, pool.queryWaitTimeoutNanos());
        shortest = shorter(shortest, pool.serverIdleTimeoutNanos());
        shortest = shorter(shortest, pool.serverLifetimeNanos());
        shortest = shorter(shortest, pool.serverConnectTimeoutNanos());
        shortest = shorter(shortest, pool.serverLoginRetryNanos());
        shortest = shorter(shortest, pool.serverCheckDelayNanos());
        if (pool.reservePoolSize() > 0) {
            shortest = shorter(shortest, pool.reservePoolTimeoutNanos());
        }
        return shortest;
    }

    /** The shorter of a timeout found so far and {@code nanos}, where 0 is off. */
    private static long shorter(long shortest, long nanos) {
        return nanos > 0 ? Math.min(shortest, nanos) : shortest;
    }
}
