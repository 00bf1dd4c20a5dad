package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Array.getResultSet() gives pgjdbc's rows of index and value, which pgjdbc makes through the server
 * connection the array came from: through the pool it works while the transaction that read the array
 * lasts, and afterwards fails on its own client while another uses the pool's only server connection.
 */
@PostgresTest
class ArrayResultSetTest {
    private static final String ARRAY = "SELECT ARRAY[10, 20]";

    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;

    ArrayResultSetTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void open() {
        pool = pools.open("array-rs", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
    }

    @AfterEach
    void close() {
        pools.close();
    }

    @Test
    void anArraysResultSetGivesIndexAndValueWhileTheTransactionThatReadItLasts() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            ResultSet rows = readArray(a).getResultSet();
            assertNull(rows.getStatement(), "made by no statement of the application's");
            assertIndexAndValueRows(rows);
            a.commit();
        }
    }

    @Test
    void anArraysResultSetAskedForAfterItsTransactionEndedFailsOnItsOwnConnection() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            a.setAutoCommit(false);
            Array array = readArray(a);
            a.commit();
            b.setAutoCommit(false);
            assertEquals("1", one(b, "SELECT 1"));
            SQLException e = assertThrows(SQLException.class, array::getResultSet);
            assertEquals("55000", e.getSQLState(), e.toString());
            assertEquals(2, ((Integer[]) array.getArray()).length, "the elements were read with the array");
            execute(b, "SELECT 2");
            b.commit();
        }
    }

    /** Direct pgjdbc: the same rows, from the connection the array came from. */
    @Test
    void onADirectConnectionAnArraysResultSetGivesIndexAndValue() throws SQLException {
        try (Connection a = db.connect()) {
            a.setAutoCommit(false);
            assertIndexAndValueRows(readArray(a).getResultSet());
            a.commit();
        }
    }

    private static Array readArray(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(ARRAY)) {
            rs.next();
            return rs.getArray(1);
        }
    }

    private static void assertIndexAndValueRows(ResultSet rows) throws SQLException {
        assertTrue(rows.next());
        assertEquals(1, rows.getInt(1));
        assertEquals(10, rows.getInt(2));
        assertTrue(rows.next());
        assertEquals(2, rows.getInt(1));
        assertEquals(20, rows.getInt(2));
        assertFalse(rows.next());
    }
}
