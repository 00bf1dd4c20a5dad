package io.pgmux.jdbc;

import io.pgmux.core.pool.Lease;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a pool the way HikariCP's initializationFailTimeout asks. A logical connection in transaction
 * mode touches the server only at its first statement, so without this check a wrong password or an
 * unreachable host would surface far from the configuration that caused it.
 */
final class PoolStartup {
    private static final Logger log = LoggerFactory.getLogger(PoolStartup.class);

    private PoolStartup() {
    }

    /**
     * @param initializationFailTimeout greater than 0: borrow and return one server connection, and on
     *                                  failure close the pool and throw the server's error; 0: try, log a
     *                                  failure and start anyway; less than 0: do not try
     */
    static JdbcPool start(JdbcPoolSettings settings, long initializationFailTimeout) throws SQLException {
        JdbcPool pool = new JdbcPool(settings);
        if (initializationFailTimeout < 0) {
            return pool;
        }
        try {
            Lease<PhysicalConnection> lease = pool.borrow();
            lease.release();
        } catch (SQLException e) {
            if (initializationFailTimeout > 0) {
                pool.close();
                throw e;
            }
            log.warn("pool {}: the first server connection failed, starting anyway (initializationFailTimeout=0): {}",
                    pool.pool().name(), e.getMessage());
        }
        return pool;
    }
}
