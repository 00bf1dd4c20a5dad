package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * In transaction mode a logical connection keeps one server connection from the first statement of a
 * transaction to its end, however the transaction is begun and ended, and gives it back clean: no open or
 * failed transaction and no uncommitted row ever reaches the next borrower.
 */
@PostgresTest
class TransactionBoundaryTest {
    private static final String APP = "tx-boundary";

    private final TestDatabase db;
    private final TestPools pools;

    TransactionBoundaryTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createTable() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("DROP TABLE IF EXISTS boundary");
            st.execute("CREATE TABLE boundary (id int)");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool pool(int size) {
        return pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(size).poolMode(PoolMode.TRANSACTION));
    }

    private long committedRows() throws SQLException {
        try (Connection admin = db.connect()) {
            return count(admin, "SELECT count(*) FROM boundary");
        }
    }

    @Test
    void plainSqlBeginKeepsOneBackendUntilCommit() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection()) {
            execute(c, "BEGIN");
            assertTrue(logical(c).holdsServerConnection(), "held from BEGIN on");
            int backend = pid(c);
            assertNotEquals(backend, pid(other), "another client is served elsewhere meanwhile");
            execute(c, "INSERT INTO boundary VALUES (1)");
            assertEquals(backend, pid(c));
            execute(c, "COMMIT");
            assertFalse(logical(c).holdsServerConnection(), "given back at COMMIT");
        }
        assertEquals(1, committedRows());
    }

    @Test
    void setAutoCommitFalseBorrowsAtTheFirstStatementAndKeepsTheBackendUntilCommit() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection()) {
            c.setAutoCommit(false);
            assertFalse(logical(c).holdsServerConnection(), "nothing borrowed before the first statement");
            int backend = pid(c);
            assertTrue(logical(c).holdsServerConnection());
            assertNotEquals(backend, pid(other));
            execute(c, "INSERT INTO boundary VALUES (1)");
            assertEquals(backend, pid(c));
            assertEquals(0, committedRows(), "not visible before commit");
            c.commit();
            assertFalse(logical(c).holdsServerConnection(), "given back at commit()");
        }
        assertEquals(1, committedRows());
    }

    @Test
    void commitAndChainKeepsTheBackendForTheChainedTransaction() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            execute(c, "BEGIN");
            int backend = pid(c);
            execute(c, "INSERT INTO boundary VALUES (1)");
            execute(c, "COMMIT AND CHAIN");
            assertTrue(logical(c).holdsServerConnection(), "the chained transaction is open");
            assertEquals(backend, pid(c));
            execute(c, "COMMIT");
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void rollbackGivesTheBackendBackAndDiscardsTheWork() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO boundary VALUES (1)");
            c.rollback();
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(0, count(c, "SELECT count(*) FROM boundary"));
            c.commit();
        }
        assertEquals(0, committedRows());
    }

    @Test
    void aFailedTransactionKeepsItsBackendUntilRollback() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection()) {
            c.setAutoCommit(false);
            int backend = pid(c);
            execute(c, "INSERT INTO boundary VALUES (1)");
            assertEquals("42P01", assertThrows(SQLException.class, () -> execute(c, "SELECT * FROM no_such_table"))
                    .getSQLState());
            assertTrue(logical(c).holdsServerConnection(), "the failed transaction keeps its backend");
            assertNotEquals(backend, pid(other));
            assertEquals("25P02", assertThrows(SQLException.class, () -> pid(c)).getSQLState(),
                    "statements fail until rollback, on the same backend");
            c.rollback();
            assertFalse(logical(c).holdsServerConnection());
            execute(c, "INSERT INTO boundary VALUES (2)");
            c.commit();
        }
        try (Connection admin = db.connect()) {
            assertEquals("2", one(admin, "SELECT string_agg(id::text, ',') FROM boundary"));
        }
    }

    @Test
    void aFailedPlainSqlTransactionKeepsItsBackendUntilSqlRollback() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            execute(c, "BEGIN");
            int backend = pid(c);
            assertThrows(SQLException.class, () -> execute(c, "SELECT 1/0"));
            assertTrue(logical(c).holdsServerConnection());
            assertEquals(backend, logical(c).currentBackendPid());
            assertEquals("25P02", assertThrows(SQLException.class, () -> pid(c)).getSQLState());
            execute(c, "ROLLBACK");
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void closingInAnOpenTransactionRollsItBackBeforeTheBackendIsReused() throws SQLException {
        assertClosedMidTransactionLeavesNothingBehind(c -> {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO boundary VALUES (1)");
        });
    }

    @Test
    void closingInAFailedTransactionRollsItBackBeforeTheBackendIsReused() throws SQLException {
        assertClosedMidTransactionLeavesNothingBehind(c -> {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO boundary VALUES (1)");
            assertThrows(SQLException.class, () -> execute(c, "SELECT 1/0"));
        });
    }

    @Test
    void closingInsideAPlainSqlBeginRollsItBackBeforeTheBackendIsReused() throws SQLException {
        assertClosedMidTransactionLeavesNothingBehind(c -> {
            execute(c, "BEGIN");
            execute(c, "INSERT INTO boundary VALUES (1)");
        });
    }

    @FunctionalInterface
    interface Work {
        void run(Connection c) throws SQLException;
    }

    /** A pool of one: the next borrower gets the very backend the closed connection left in a transaction. */
    private void assertClosedMidTransactionLeavesNothingBehind(Work unfinished) throws SQLException {
        JdbcPool pool = pool(1);
        int backend;
        try (Connection c = pool.getConnection()) {
            unfinished.run(c);
            backend = logical(c).currentBackendPid();
            assertTrue(backend > 0, "the transaction holds a backend when close() is called");
        }
        try (Connection next = pool.getConnection()) {
            assertEquals(backend, pid(next), "the backend is reused");
            assertNull(one(next, "SELECT txid_current_if_assigned()"), "no transaction of the closed connection");
            assertEquals(0, count(next, "SELECT count(*) FROM boundary"), "its rows were rolled back");
        }
        assertEquals(0, committedRows());
    }

    @Test
    void rollbackToASavepointUndoesOnlyTheWorkAfterIt() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO boundary VALUES (1)");
            int backend = logical(c).currentBackendPid();
            Savepoint sp = c.setSavepoint();
            execute(c, "INSERT INTO boundary VALUES (2)");
            c.rollback(sp);
            assertTrue(logical(c).holdsServerConnection(), "rollback to a savepoint does not end the transaction");
            assertEquals(backend, pid(c));
            Savepoint named = c.setSavepoint("named");
            execute(c, "INSERT INTO boundary VALUES (3)");
            c.releaseSavepoint(named);
            c.commit();
            assertFalse(logical(c).holdsServerConnection());
        }
        try (Connection admin = db.connect()) {
            assertEquals("1,3", one(admin, "SELECT string_agg(id::text, ',' ORDER BY id) FROM boundary"));
        }
    }

    @Test
    void rollbackToASavepointRecoversAFailedTransaction() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO boundary VALUES (1)");
            Savepoint sp = c.setSavepoint();
            assertThrows(SQLException.class, () -> execute(c, "SELECT 1/0"));
            c.rollback(sp);
            execute(c, "INSERT INTO boundary VALUES (2)");
            c.commit();
        }
        try (Connection admin = db.connect()) {
            assertEquals("1,2", one(admin, "SELECT string_agg(id::text, ',' ORDER BY id) FROM boundary"));
        }
    }

    @Test
    void setAutoCommitTrueInsideATransactionCommitsItAndGivesTheBackendBack() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO boundary VALUES (1)");
            assertEquals(0, committedRows());
            c.setAutoCommit(true);
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(1, committedRows(), "switching autocommit on committed the transaction");
        }
    }
}
