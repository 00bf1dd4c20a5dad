package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.one;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * pgjdbc's Blob and Clob read a large object through the server connection they came from. Client A reads
 * one, commits, and uses it again while client B, on the pool's only server connection, is inside a
 * transaction: the failure is A's alone and B commits both its rows, as with two direct pgjdbc connections.
 */
@PostgresTest
class LargeObjectLeaseTest {
    private static final byte[] CONTENT = "hello large object".getBytes(StandardCharsets.US_ASCII);

    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;

    LargeObjectLeaseTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createTables() throws SQLException {
        try (Connection admin = db.connect()) {
            execute(admin, "DROP TABLE IF EXISTS lob_docs, lob_rows");
            execute(admin, "CREATE TABLE lob_docs (doc oid)");
            execute(admin, "INSERT INTO lob_docs VALUES (lo_from_bytea(0, 'hello large object'))");
            execute(admin, "CREATE TABLE lob_rows (n int)");
        }
        pool = pools.open("lob-lease", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
    }

    @AfterEach
    void close() {
        pools.close();
    }

    @Test
    void aBlobUsedAfterItsTransactionEndedFailsOnItsOwnConnectionAndTheOtherClientCommitsBothRows()
            throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            Blob blob = readInATransactionThenCommit(a, rs -> rs.getBlob(1));
            assertEndedTransaction(duringOthersTransaction(b, () -> blob.getBytes(1, 5)));
            a.rollback();
            assertEquals("1", one(a, "SELECT 1"), "A's connection goes on");
        }
    }

    /** Not opened before the commit, pgjdbc's Blob would open the large object in B's transaction. */
    @Test
    void aBlobFirstReadAfterItsTransactionEndedFailsOnItsOwnConnectionInsteadOfReadingInTheOtherClients()
            throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            a.setAutoCommit(false);
            Blob blob;
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT doc FROM lob_docs")) {
                rs.next();
                blob = rs.getBlob(1);
            }
            a.commit();
            assertEndedTransaction(duringOthersTransaction(b, () -> blob.getBytes(1, 5)));
        }
    }

    @Test
    void aClobUsedAfterItsTransactionEndedFailsOnItsOwnConnectionAndTheOtherClientCommitsBothRows()
            throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            Clob clob = readInATransactionThenCommit(a, rs -> rs.getClob(1));
            assertEndedTransaction(duringOthersTransaction(b, () -> clob.getSubString(1, 5)));
        }
    }

    @Test
    void aBlobStreamReadAfterItsTransactionEndedFailsOnItsOwnConnectionAndTheOtherClientCommitsBothRows()
            throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            InputStream in = readInATransactionThenCommit(a, rs -> rs.getBlob(1).getBinaryStream());
            IOException e = assertThrows(IOException.class, () -> {
                b.setAutoCommit(false);
                execute(b, "INSERT INTO lob_rows VALUES (1)");
                try {
                    in.readAllBytes();
                } finally {
                    execute(b, "INSERT INTO lob_rows VALUES (2)");
                    b.commit();
                }
            });
            assertTrue(e.getCause() instanceof SQLException, "the cause says why: " + e);
            assertEndedTransaction((SQLException) e.getCause());
            assertEquals(2, committedRows());
        }
    }

    @Test
    void aBlobOfObjectTypeBlobIsReadWhileItsTransactionLasts() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            Blob blob;
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT doc FROM lob_docs")) {
                rs.next();
                blob = rs.getObject(1, Blob.class);
            }
            assertEquals(CONTENT.length, blob.length());
            assertArrayEquals(CONTENT, blob.getBytes(1, CONTENT.length));
            a.commit();
        }
    }

    /** In session mode the server connection stays the logical connection's, so a Blob lives on as in pgjdbc. */
    @Test
    void inSessionModeABlobNotYetReadIsReadInTheConnectionsNextTransaction() throws SQLException {
        JdbcPool session = pools.open("lob-session",
                PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.SESSION));
        try (Connection a = session.getConnection()) {
            a.setAutoCommit(false);
            Blob blob;
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT doc FROM lob_docs")) {
                rs.next();
                blob = rs.getBlob(1);
            }
            a.commit();
            assertArrayEquals(CONTENT, blob.getBytes(1, CONTENT.length));
            a.commit();
        }
    }

    @Test
    void aBlobOfAClosedConnectionFailsAsTheClosedConnectionDoes() throws SQLException {
        Blob blob;
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT doc FROM lob_docs")) {
                rs.next();
                blob = rs.getBlob(1);
            }
        }
        assertEquals("08003", assertThrows(SQLException.class, blob::length).getSQLState());
    }

    /** On direct pgjdbc connections the same calls fail on A's connection alone, and B commits both rows. */
    @Test
    void onTwoDirectConnectionsTheSameCallsFailOnTheFirstAloneAndTheOtherCommitsBothRows() throws SQLException {
        try (Connection a = db.connect(); Connection b = db.connect()) {
            Blob blob = readInATransactionThenCommit(a, rs -> rs.getBlob(1));
            SQLException e = duringOthersTransaction(b, () -> blob.getBytes(1, 5));
            assertEquals("42704", e.getSQLState(), "pgjdbc's descriptor of the ended transaction: " + e);
        }
    }

    private interface Read<T> {
        T from(ResultSet rs) throws SQLException;
    }

    /** Reads a value of the large-object column in a transaction of {@code a}, uses it once, and commits. */
    private static <T> T readInATransactionThenCommit(Connection a, Read<T> read) throws SQLException {
        a.setAutoCommit(false);
        T value;
        try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT doc FROM lob_docs")) {
            rs.next();
            value = read.from(rs);
        }
        if (value instanceof Blob blob) {
            blob.length();
        } else if (value instanceof Clob clob) {
            clob.length();
        }
        a.commit();
        return value;
    }

    /** B inserts, A's call runs, B inserts again and commits: the failure of A's call is returned. */
    private SQLException duringOthersTransaction(Connection b, Executable callOfA) throws SQLException {
        b.setAutoCommit(false);
        execute(b, "INSERT INTO lob_rows VALUES (1)");
        SQLException e = assertThrows(SQLException.class, callOfA);
        execute(b, "INSERT INTO lob_rows VALUES (2)");
        b.commit();
        assertEquals(2, committedRows(), "B's transaction is untouched by A's call");
        return e;
    }

    private static void assertEndedTransaction(SQLException e) {
        assertEquals("55000", e.getSQLState(), e.toString());
        assertTrue(e.getMessage().contains("transaction"), "says why: " + e.getMessage());
    }

    private long committedRows() throws SQLException {
        try (Connection admin = db.connect()) {
            return count(admin, "SELECT count(*) FROM lob_rows");
        }
    }
}
