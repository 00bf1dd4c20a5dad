package io.pgmux.core.pool;

import io.pgmux.core.config.PoolConfig;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server connection limits pools share (PgBouncer's max_db_connections and max_user_connections, and its
 * evict_connection and evict_user_connection in objects.c): a count per database and per user, a slot of each
 * taken by every server a pool opens, and an idle server of a sibling closed to make room for a pool held back.
 */
final class SharedLimits<S> {
    /** Every pool of the registry, a live view. */
    private final Collection<Pool<S>> pools;
    private final ConcurrentHashMap<String, ConnectionLimit> perDatabase = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ConnectionLimit> perUser = new ConcurrentHashMap<>();

    SharedLimits(Collection<Pool<S>> pools) {
        this.pools = pools;
    }

    /** Server connections open (or opening) to a database across its users' pools. */
    int databaseConnections(String database) {
        ConnectionLimit l = perDatabase.get(database);
        return l == null ? 0 : l.count();
    }

    int userConnections(String user) {
        ConnectionLimit l = perUser.get(user);
        return l == null ? 0 : l.count();
    }

    /** Takes a database and a user slot for a server {@code pool} opens; false when either limit is reached. */
    boolean reserve(Pool<?> pool) {
        PoolConfig c = pool.config();
        ConnectionLimit db = perDatabase.computeIfAbsent(pool.key().database(), k -> new ConnectionLimit());
        if (!db.tryAcquire(c.maxDbConnections())) {
            return false;
        }
        ConnectionLimit user = perUser.computeIfAbsent(pool.key().user(), k -> new ConnectionLimit());
        if (!user.tryAcquire(c.maxUserConnections())) {
            db.release();
            return false;
        }
        return true;
    }

    /** Frees a slot and lets pools that were held back by a shared limit open a connection. */
    void release(Pool<?> pool) {
        perDatabase.get(pool.key().database()).release();
        perUser.get(pool.key().user()).release();
        PoolConfig c = pool.config();
        if (c.maxDbConnections() > 0 || c.maxUserConnections() > 0) {
            for (Pool<S> other : pools) {
                if (other != pool && other.hasWaiters() && sharesLimit(pool, other)) {
                    other.maybeOpen();
                }
            }
        }
    }

    /** A pool is blocked by a shared limit: close an idle connection of a sibling pool to make room. */
    void evictIdleFor(Pool<?> pool) {
        for (Pool<S> other : pools) {
            if (other != pool && sharesLimit(pool, other) && other.evictOneIdle()) {
                return;
            }
        }
    }

    /**
     * A pool under a shared limit just made a connection idle: if a sibling is waiting because of that
     * limit, close the idle connection so the sibling can open one now rather than at the next janitor run.
     * A sibling whose waiters all have a login under way needs no room: closing for it would leave the limit's
     * connections short of what PgBouncer keeps open.
     */
    void offerSlotToSiblings(Pool<?> pool) {
        for (Pool<S> other : pools) {
            if (other != pool && other.needsServer() && sharesLimit(pool, other)) {
                pool.evictOneIdle();
                return;
            }
        }
    }

    private static boolean sharesLimit(Pool<?> a, Pool<?> b) {
        return (a.config().maxDbConnections() > 0 && a.key().database().equals(b.key().database()))
                || (a.config().maxUserConnections() > 0 && a.key().user().equals(b.key().user()));
    }
}
