package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static io.pgmux.jdbc.logical.TestPools.takeAtOnce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server connection whose backend was terminated while it sat idle in the pool is never handed to a
 * borrower, with the default serverCheckDelay (keepaliveTime): the borrower gets a live one instead.
 */
@PostgresTest
class DeadIdleConnectionTest {
    static final int POOL_SIZE = 3;
    static final int ROUNDS = 5;

    private final TestDatabase db;
    private final TestPools pools;

    DeadIdleConnectionTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    /**
     * Rounds of: every server connection of the pool idle, all their backends terminated, then a borrow:
     * the statement runs, on none of the terminated backends.
     */
    static void borrowAfterEachTermination(TestDatabase db, JdbcPool pool, String app, boolean autoCommit)
            throws SQLException {
        for (int round = 0; round < ROUNDS; round++) {
            Set<Integer> killed = takeAtOnce(pool, POOL_SIZE);
            assertEquals(POOL_SIZE, db.terminateBackends(Backends.withApplicationName(app)));
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(autoCommit);
                assertEquals("1", one(c, "SELECT 1"), "round " + round);
                assertFalse(killed.contains(pid(c)), "round " + round);
                if (!autoCommit) {
                    c.commit();
                }
            }
        }
    }

    @Test
    void noAutocommitStatementRunsOnABackendTerminatedWhileIdle() throws SQLException {
        String app = "dead-idle-autocommit";
        JdbcPool pool = pools.open(app, PoolConfig.jdbcDefaults().defaultPoolSize(POOL_SIZE));
        borrowAfterEachTermination(db, pool, app, true);
    }

    @Test
    void noTransactionStartsOnABackendTerminatedWhileIdle() throws SQLException {
        String app = "dead-idle-transaction";
        JdbcPool pool = pools.open(app, PoolConfig.jdbcDefaults().defaultPoolSize(POOL_SIZE));
        borrowAfterEachTermination(db, pool, app, false);
    }

    @Test
    void onlyTheDeadConnectionIsReplaced() throws SQLException {
        String app = "dead-idle-one";
        JdbcPool pool = pools.open(app, PoolConfig.jdbcDefaults().defaultPoolSize(POOL_SIZE));
        Set<Integer> pids = takeAtOnce(pool, POOL_SIZE);
        int victim = pids.iterator().next();
        try (Connection admin = db.connect()) {
            assertEquals("t", one(admin, "SELECT pg_terminate_backend(" + victim + ")"));
        }
        assertEquals(POOL_SIZE - 1, db.awaitConnections(Backends.withApplicationName(app), POOL_SIZE - 1,
                Duration.ofSeconds(10)));
        Set<Integer> served = takeAtOnce(pool, POOL_SIZE);
        assertFalse(served.contains(victim));
        pids.remove(victim);
        assertTrue(served.containsAll(pids), "the live connections were kept: " + served + " " + pids);
    }
}
