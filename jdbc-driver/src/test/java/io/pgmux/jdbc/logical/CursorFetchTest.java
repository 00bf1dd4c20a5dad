package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A result set keeps the server connection it is read from until it is closed, so a cursor (fetch size
 * with autocommit off) can be read batch by batch while other logical connections use the rest of the pool.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CursorFetchTest {
    private static final int ROWS = 50_000;
    private static final int FETCH_SIZE = 1_000;
    private static final String QUERY = "SELECT id FROM cursor_rows ORDER BY id";

    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;

    CursorFetchTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeAll
    void createRows() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("CREATE TABLE cursor_rows (id int PRIMARY KEY)");
            st.execute("INSERT INTO cursor_rows SELECT generate_series(1, " + ROWS + ")");
        }
    }

    @BeforeEach
    void openPoolOfTwo() {
        pool = pools.open("cursor-fetch", PoolConfig.jdbcDefaults().defaultPoolSize(2).poolMode(PoolMode.TRANSACTION));
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void fiftyThousandRowsAreReadInBatchesWhileAnotherConnectionKeepsWorking() throws SQLException {
        try (Connection reader = pool.getConnection(); Connection other = pool.getConnection()) {
            reader.setAutoCommit(false);
            try (Statement st = reader.createStatement()) {
                st.setFetchSize(FETCH_SIZE);
                try (ResultSet rs = st.executeQuery(QUERY)) {
                    int backend = logical(reader).currentBackendPid();
                    assertEquals(1, count(reader, "SELECT count(*) FROM pg_cursors WHERE statement = '" + QUERY + "'"),
                            "the rows come through a portal, batch by batch");
                    long rows = 0;
                    long sum = 0;
                    int otherWork = 0;
                    while (rs.next()) {
                        rows++;
                        sum += rs.getInt(1);
                        if (rows % 5_000 == 0) {
                            assertNotEquals(backend, pid(other), "the other connection gets the other backend");
                            otherWork++;
                            assertEquals(backend, logical(reader).currentBackendPid());
                        }
                    }
                    assertEquals(ROWS, rows);
                    assertEquals((long) ROWS * (ROWS + 1) / 2, sum);
                    assertEquals(ROWS / 5_000, otherWork);
                }
            }
            reader.commit();
            assertFalse(logical(reader).holdsServerConnection(), "commit gave the backend back");
        }
    }

    @Test
    void anOpenCursorKeepsItsBackendPastCommitUntilItIsClosed() throws SQLException {
        try (Connection reader = pool.getConnection(); Connection other = pool.getConnection()) {
            reader.setAutoCommit(false);
            try (Statement st = reader.createStatement()) {
                st.setFetchSize(100);
                ResultSet rs = st.executeQuery(QUERY);
                assertTrue(rs.next());
                int backend = logical(reader).currentBackendPid();
                reader.commit();
                assertTrue(logical(reader).holdsServerConnection(), "the open result set keeps the backend");
                assertNotEquals(backend, pid(other));
                rs.close();
                assertFalse(logical(reader).holdsServerConnection(), "closing it gives the backend back");
            }
        }
    }

    @Test
    void aCursorClosedInsideTheTransactionLeavesTheBackendToTheTransaction() throws SQLException {
        try (Connection reader = pool.getConnection()) {
            reader.setAutoCommit(false);
            try (Statement st = reader.createStatement()) {
                st.setFetchSize(100);
                try (ResultSet rs = st.executeQuery(QUERY)) {
                    assertTrue(rs.next());
                }
                assertTrue(logical(reader).holdsServerConnection(), "the transaction is still open");
            }
            reader.commit();
            assertFalse(logical(reader).holdsServerConnection());
        }
    }

    @Test
    void anAutocommitResultSetKeepsItsBackendUntilClosed() throws SQLException {
        try (Connection reader = pool.getConnection(); Connection other = pool.getConnection();
             Statement st = reader.createStatement()) {
            ResultSet rs = st.executeQuery("SELECT id FROM cursor_rows WHERE id <= 10");
            assertTrue(logical(reader).holdsServerConnection());
            assertNotEquals(logical(reader).currentBackendPid(), pid(other));
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            assertEquals(10, rows);
            assertTrue(logical(reader).holdsServerConnection(), "read to the end but not closed");
            rs.close();
            assertFalse(logical(reader).holdsServerConnection());
        }
    }

    @Test
    void closingTheStatementGivesBackTheBackendItsResultSetHeld() throws SQLException {
        try (Connection reader = pool.getConnection()) {
            Statement st = reader.createStatement();
            ResultSet rs = st.executeQuery("SELECT 1");
            assertTrue(logical(reader).holdsServerConnection());
            st.close();
            assertTrue(rs.isClosed());
            assertFalse(logical(reader).holdsServerConnection());
        }
    }

    @Test
    void executingTheStatementAgainClosesItsPreviousResultSet() throws SQLException {
        try (Connection reader = pool.getConnection(); Statement st = reader.createStatement()) {
            ResultSet first = st.executeQuery("SELECT 1");
            ResultSet second = st.executeQuery("SELECT 2");
            assertTrue(first.isClosed());
            second.close();
            assertFalse(logical(reader).holdsServerConnection());
        }
    }

    @Test
    void theResultsOfAMultiStatementExecuteKeepTheBackendUntilAllAreConsumed() throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            assertTrue(st.execute("SELECT 1; SELECT 2; SELECT 3"));
            for (int expected = 1; expected <= 3; expected++) {
                assertTrue(logical(c).holdsServerConnection(), "result " + expected + " is still to be read");
                ResultSet rs = st.getResultSet();
                assertTrue(rs.next());
                assertEquals(expected, rs.getInt(1));
                assertEquals(expected < 3, st.getMoreResults());
                assertTrue(rs.isClosed(), "getMoreResults() closed the current result set");
            }
            assertEquals(-1, st.getUpdateCount());
            assertFalse(logical(c).holdsServerConnection(), "all results consumed");
        }
    }

    @Test
    void closingOneResultSetOfAMultiStatementExecuteLeavesTheNextResults() throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            assertTrue(st.execute("SELECT 1; SELECT 2; SELECT 3"));
            for (int expected = 1; expected <= 3; expected++) {
                try (ResultSet rs = st.getResultSet()) {
                    assertTrue(rs.next());
                    assertEquals(expected, rs.getInt(1));
                }
                assertEquals(expected < 3, st.getMoreResults(),
                        "closing result " + expected + " must not drop the results after it");
            }
            assertFalse(logical(c).holdsServerConnection(), "all results consumed");
        }
    }

    @Test
    void theUpdateCountsOfAMultiStatementExecuteAreAllReadable() throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            boolean isResultSet = st.execute("CREATE TEMP TABLE multi (id int) ON COMMIT DROP; "
                    + "INSERT INTO multi VALUES (1), (2); SELECT count(*) FROM multi");
            int updates = 0;
            boolean sawCount = false;
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = st.getResultSet()) {
                        rs.next();
                        assertEquals(2, rs.getInt(1));
                        sawCount = true;
                    }
                } else if (st.getUpdateCount() == -1) {
                    break;
                } else {
                    updates++;
                }
                isResultSet = st.getMoreResults();
            }
            assertEquals(2, updates, "CREATE and INSERT");
            assertTrue(sawCount);
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void anUpdateWhoseTextHasASemicolonInsideABodyDoesNotKeepItsBackend() throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            assertFalse(st.execute("DO $$ BEGIN PERFORM 1; END $$"));
            assertFalse(logical(c).holdsServerConnection(), "one statement: no further results to wait for");
        }
    }
}
