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

    /** Closes {@code s}, which the caller moved out of LOGIN or IDLE or holds; {@code reason} is logged. */
    void close(PooledServer<S> s, String reason) {
        s.setState(PooledServer.CLOSING);
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
            return;
        }
        if (pool.isPaused()) {
            pool.checkPaused();
        }
        pool.maybeOpen();
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
        PooledServer<S> s = pool.servers.claimIdleToClose();
        if (s == null) {
            return false;
        }
        close(s, reason);
        return true;
    }
}
