package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.takeAtOnce;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When a dead server connection is handed out after all (the pool cannot see the socket of an
 * application's own socketFactory, or the backend died between the check and the statement), the first
 * statement of a transaction runs again on another connection (past every one that logged in before the first was
 * lost, as a restart kills them all), and an autocommit statement fails.
 */
@PostgresTest
class LostFirstStatementTest {
    private final TestDatabase db;
    private final TestPools pools;

    LostFirstStatementTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createTable() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("DROP TABLE IF EXISTS entries");
            st.execute("CREATE TABLE entries (id int)");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    /** A pool whose server connections the application's socketFactory opens, all idle and then terminated. */
    private JdbcPool poolOfTerminatedConnections(String app, int size) throws SQLException {
        Properties props = new Properties();
        props.setProperty("socketFactory", PlainSocketFactory.class.getName());
        JdbcPool pool = pools.open(app, PoolConfig.jdbcDefaults().defaultPoolSize(size), props);
        takeAtOnce(pool, size);
        assertEquals(size, db.terminateBackends(Backends.withApplicationName(app)));
        return pool;
    }

    private long entries() throws SQLException {
        try (Connection admin = db.connect()) {
            return count(admin, "SELECT count(*) FROM entries");
        }
    }

    /** One transaction inserting {@code ids}, one statement each. */
    private static void insertInOneTransaction(JdbcPool pool, int... ids) throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            for (int id : ids) {
                execute(c, "INSERT INTO entries VALUES (" + id + ")");
            }
            c.commit();
        }
    }

    @Test
    void theFirstStatementOfATransactionRunsAgainOnALiveConnection() throws SQLException {
        insertInOneTransaction(poolOfTerminatedConnections("lost-first-transaction", 2), 1, 2);
        assertEquals(2, entries());
    }

    @Test
    void theFirstStatementRunsAgainPastEveryConnectionThatDiedBeforeItsFirstLoss() throws SQLException {
        insertInOneTransaction(poolOfTerminatedConnections("lost-many", 4), 1);
        assertEquals(1, entries());
    }

    @Test
    void anAutocommitStatementIsNotRunAgainButTheNextOneRuns() throws SQLException {
        JdbcPool pool = poolOfTerminatedConnections("lost-autocommit", 1);
        try (Connection c = pool.getConnection()) {
            SQLException e = assertThrows(SQLException.class, () -> execute(c, "INSERT INTO entries VALUES (1)"));
            assertTrue(e.getSQLState().startsWith("08") || e.getSQLState().startsWith("57P"), e.toString());
            assertEquals(0, entries());
            assertEquals("1", one(c, "SELECT 1"));
        }
    }

    @Test
    void aStatementAfterTheTransactionsFirstIsNotRunAgain() throws SQLException {
        String app = "lost-second";
        JdbcPool pool = pools.open(app, PoolConfig.jdbcDefaults().defaultPoolSize(1));
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO entries VALUES (1)");
            assertEquals(1, db.terminateBackends(Backends.withApplicationName(app)));
            SQLException e = assertThrows(SQLException.class, () -> execute(c, "INSERT INTO entries VALUES (2)"));
            assertTrue(e.getSQLState().startsWith("08") || e.getSQLState().startsWith("57P"), e.toString());
            c.rollback();
        }
        assertEquals(0, entries());
    }
}
