package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * pgjdbc answers getObject on a refcursor with a result set of its own, whose statement belongs to the
 * server connection. Through the pool it answers with the logical connection, and once its transaction has
 * ended it reaches nothing of the server connection, which by then serves client B on the pool's only one.
 */
@PostgresTest
class RefcursorResultSetTest {
    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;

    RefcursorResultSetTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createTables() throws SQLException {
        try (Connection admin = db.connect()) {
            execute(admin, "DROP TABLE IF EXISTS cur_rows");
            execute(admin, "CREATE TABLE cur_rows (n int)");
            execute(admin, "INSERT INTO cur_rows VALUES (10), (20)");
            execute(admin, "CREATE OR REPLACE FUNCTION cur_open() RETURNS refcursor LANGUAGE plpgsql AS $$"
                    + " DECLARE c refcursor; BEGIN OPEN c FOR SELECT n FROM cur_rows ORDER BY n; RETURN c; END $$");
        }
        pool = pools.open("refcursor", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION)
                .queryWaitTimeout(Duration.ofMillis(500)));
    }

    @AfterEach
    void close() {
        pools.close();
    }

    @Test
    void theResultSetOfARefcursorNamesTheLogicalConnectionAndReadsTheCursorsRows() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT cur_open()")) {
                rs.next();
                ResultSet cursor = (ResultSet) rs.getObject(1);
                assertSame(s, cursor.getStatement());
                assertSame(a, cursor.getStatement().getConnection());
                assertTrue(cursor.next());
                assertEquals(10, cursor.getInt(1));
                assertTrue(cursor.next());
                assertEquals(20, cursor.getInt("n"));
                assertFalse(cursor.next());
            }
            a.commit();
        }
    }

    @Test
    void aRefcursorOutParameterNamesTheLogicalConnection() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            try (CallableStatement call = a.prepareCall("{? = call cur_open()}")) {
                call.registerOutParameter(1, Types.OTHER);
                call.execute();
                ResultSet cursor = (ResultSet) call.getObject(1);
                assertSame(a, cursor.getStatement().getConnection());
                assertTrue(cursor.next());
                assertEquals(10, cursor.getInt(1));
            }
            a.commit();
        }
    }

    /** The case: what A took from the refcursor neither sees B's uncommitted row nor aborts B. */
    @Test
    void aRefcursorsResultSetWhoseTransactionEndedReachesNothingOfTheOtherClientsTransaction() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            a.setAutoCommit(false);
            ResultSet cursor;
            Connection itsConnection;
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT cur_open()")) {
                rs.next();
                cursor = (ResultSet) rs.getObject(1);
                itsConnection = cursor.getStatement().getConnection();
            }
            a.commit();

            b.setAutoCommit(false);
            execute(b, "INSERT INTO cur_rows VALUES (30)");
            SQLException closed = assertThrows(SQLException.class, cursor::next);
            assertEquals("24000", closed.getSQLState(), closed.toString());
            assertTrue(cursor.isClosed());
            SQLException waited = assertThrows(SQLException.class,
                    () -> count(itsConnection, "SELECT count(*) FROM cur_rows"),
                    "A's connection waits for a server connection of its own instead of reading B's row");
            assertEquals("08001", waited.getSQLState(), waited.toString());
            execute(b, "INSERT INTO cur_rows VALUES (40)");
            b.commit();
            assertEquals(4, count(b, "SELECT count(*) FROM cur_rows"));
        }
    }

    /** Direct pgjdbc: the refcursor's result set names the connection the application holds. */
    @Test
    void onADirectConnectionTheResultSetOfARefcursorNamesThatConnection() throws SQLException {
        try (Connection a = db.connect()) {
            a.setAutoCommit(false);
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT cur_open()")) {
                rs.next();
                ResultSet cursor = (ResultSet) rs.getObject(1);
                assertSame(a, cursor.getStatement().getConnection());
                assertTrue(cursor.next());
                assertEquals(10, cursor.getInt(1));
            }
            a.commit();
        }
    }
}
