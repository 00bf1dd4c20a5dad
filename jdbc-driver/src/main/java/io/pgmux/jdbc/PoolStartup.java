package io.pgmux.jdbc;

import io.pgmux.core.pool.Lease;
import io.pgmux.jdbc.physical.PgjdbcConnector;
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
     * @param initializationFailTimeout greater than 0: borrow one server connection, run the check query on
     *                                  it if there is one, and on failure close the pool and throw the error;
     *                                  0: try, log a failure and start anyway; less than 0: do not try
     */
    static JdbcPool start(JdbcPoolSettings settings, long initializationFailTimeout) throws SQLException {
        JdbcPool pool = new JdbcPool(settings);
        if (initializationFailTimeout < 0) {
            return pool;
        }
        try {
            Lease<PhysicalConnection> lease = pool.borrow();
            try {
                checkQueryRuns(pool, lease.connection());
            } finally {
                lease.release();
            }
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

    /**
     * Runs the check query once, as HikariCP runs connectionTestQuery when it starts: one the server refuses
     * would otherwise fail every later check silently, and each failed check would replace a healthy connection.
     */
    private static void checkQueryRuns(JdbcPool pool, PhysicalConnection server) throws SQLException {
        String query = pool.config().serverCheckQuery();
        if (query == null || query.isBlank()) {
            return;
        }
        try {
            PgjdbcConnector.runCheckQuery(server, query);
        } catch (SQLException e) {
            SQLException refused = new SQLException("serverCheckQuery (connectionTestQuery) \"" + query
                    + "\" fails on the server: " + e.getMessage(), ConnectionUrl.VALUE_ERROR, e);
            refused.setNextException(e);
            throw refused;
        }
    }
}
