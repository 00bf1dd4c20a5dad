package io.pgmux.proxy.server;

import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.pool.PoolView;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's pool_idle_timeout, a janitor chore: a pool (database, user) that has had no client and no server
 * connection for that long is freed, statistics included; a client asking for it later gets it anew. Unlike
 * autodb_idle_timeout it frees single pools, of any database. A forced user's pool with a min_pool_size is kept,
 * as PgBouncer keeps it: the janitor makes it again each pass, so freeing it while its server is unreachable would
 * free and make it over and over.
 */
public final class IdlePools<S> implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(IdlePools.class);

    private final PoolRegistry<S> registry;
    private final Predicate<Pool<S>> forcedUser;
    /** When each empty pool was first seen empty; the janitor's thread alone reads and writes it. */
    private final Map<Pool<S>, Long> emptySince = new HashMap<>();
    private volatile long timeoutNanos;

    /** @param forcedUser whether a pool's user is its database's forced user */
    public IdlePools(PoolRegistry<S> registry, Predicate<Pool<S>> forcedUser, Duration timeout) {
        this.registry = registry;
        this.forcedUser = forcedUser;
        timeout(timeout);
    }

    /** pool_idle_timeout; 0 frees none. */
    public void timeout(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public void run() {
        long timeout = timeoutNanos;
        if (timeout <= 0) {
            emptySince.clear();
            return;
        }
        // pools RELOAD or autodb_idle_timeout removed meanwhile
        emptySince.keySet().removeIf(p -> registry.find(p.key().database(), p.key().user()).orElse(null) != p);
        long now = System.nanoTime();
        for (Pool<S> pool : registry.pools()) {
            PoolView<?> view = pool.view();
            if (view.activeClients() + view.waitingClients() + view.totalServers() > 0
                    || pool.config().minPoolSize() > 0 && forcedUser.test(pool)) {
                emptySince.remove(pool);
                continue;
            }
            long since = emptySince.computeIfAbsent(pool, p -> now);
            if (now - since >= timeout) {
                emptySince.remove(pool);
                if (registry.removePool(pool)) {
                    // PgBouncer's words: an operator's log is an interface
                    log.info("cleaning up idle pool for user {} on db {} because: pool idle timeout (age={}s)",
                            pool.key().user(), pool.key().database(), Duration.ofNanos(now - since).toSeconds());
                }
            }
        }
    }
}
