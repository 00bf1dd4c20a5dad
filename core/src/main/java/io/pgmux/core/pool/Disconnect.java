package io.pgmux.core.pool;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server leaving its pool (PgBouncer's disconnect_server in objects.c): closed with its reason, its pool,
 * database and user slots freed, and a login started for the clients still waiting; the pool's close completes
 * with its last server.
 */
final class Disconnect<S> {
    /** Pool's logger: a pool's lines are filtered by one name. */
    private static final Logger log = LoggerFactory.getLogger(Pool.class);

    private final Pool<S> pool;

    Disconnect(Pool<S> pool) {
        this.pool = pool;
    }

    /**
     * Closes {@code s} if it is still in state {@code from} (IDLE, or ACTIVE or TESTED as its caller holds it);
     * {@code reason} is logged. False when another thread moved it first: took it, or closed it already.
     */
    boolean close(PooledServer<S> s, int from, String reason) {
        if (!s.to(from, PooledServer.CLOSING)) {
            return false;
        }
        s.leak = null;
        S conn = s.connection;
        if (log.isDebugEnabled()) {
            log.debug("pool {}: closing {}: {}", pool.name(), s, reason);
        }
        remove(s);
        if (conn != null) {
            closeConnection(conn, reason);
        }
        if (pool.isClosed()) {
            return true;
        }
        if (pool.isPaused()) {
            pool.checkPaused();
        }
        pool.maybeOpen();
        return true;
    }

    /** Takes a server out of the pool once; frees its pool, database and user slots. */
    void remove(PooledServer<S> s) {
        if (pool.servers.remove(s)) {
            int left = pool.serverCount.decrementAndGet();
            pool.registry.limits.release(pool);
            if (left == 0 && pool.isClosed()) {
                pool.closed.complete(null);
            }
        }
    }

    void closeConnection(S conn, String reason) {
        try {
            pool.connector.close(conn, reason);
        } catch (RuntimeException e) {
            log.debug("pool {}: closing a server connection failed", pool.name(), e);
        }
    }

    /** Closes one idle connection, logged with {@code reason}; false when none was idle. */
    boolean oneIdle(String reason) {
        for (PooledServer<S> s : pool.servers.members()) {
            if (s.state() == PooledServer.IDLE && close(s, PooledServer.IDLE, reason)) {
                return true;
            }
        }
        return false;
    }
}
