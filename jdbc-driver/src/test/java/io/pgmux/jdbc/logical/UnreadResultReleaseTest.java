package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.one;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A statement whose result the application leaves unread (and unclosed) must not keep the pool's one server
 * connection: once the result is fully buffered and the connection idle, the server goes back to the pool,
 * another logical connection is served, and the result stays readable, value for value, as pgjdbc gives it.
 */
@PostgresTest
class UnreadResultReleaseTest {
    private static final String ROWS = "SELECT g, 'row ' || g, g % 2 = 0, g * 1.5, DATE '2024-02-28' + g,"
            + " TIMESTAMP '2024-02-28 12:34:56.5' + g * INTERVAL '1 day', ARRAY[g, g + 1], NULL::text,"
            + " decode('00ff', 'hex') FROM generate_series(1, 3) g";

    private final TestPools pools;
    private JdbcPool pool;

    UnreadResultReleaseTest(TestDatabase db) {
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void openAPoolOfOne() {
        pool = pools.open("unread", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION)
                .queryWaitTimeout(Duration.ofSeconds(10)));
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void anUnreadQueryResultGivesTheServerBackAndStaysReadable() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            Statement st = a.createStatement();
            ResultSet rs = st.executeQuery(ROWS);
            assertEquals("1", one(b, "SELECT 1"), "B is served while A's result lies unread");
            assertFalse(logical(a).holdsServerConnection());
            assertRows(rs);
            assertEquals(9, rs.getMetaData().getColumnCount());
        }
    }

    @Test
    void aResultExecuteLeftUnfetchedGivesTheServerBackAndStaysReadable() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            Statement st = a.createStatement();
            assertTrue(st.execute(ROWS));
            assertEquals("1", one(b, "SELECT 1"), "B is served while A's result lies unfetched");
            assertRows(st.getResultSet());
            assertFalse(st.getMoreResults());
            assertEquals(-1, st.getUpdateCount());
        }
    }

    @Test
    void anUnreadResultOfAPreparedStatementGivesTheServerBackAndStaysReadable() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            PreparedStatement ps = a.prepareStatement(ROWS.replace("generate_series(1, 3)", "generate_series(1, ?)"));
            ps.setInt(1, 3);
            ResultSet rs = ps.executeQuery();
            assertEquals("1", one(b, "SELECT 1"), "B is served while A's result lies unread");
            assertRows(rs);
        }
    }

    @Test
    void anArrayOfABufferedResultGivesItsResultSetOnlyWhileTheServerItWasCopiedFromIsHeld() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            ResultSet rs = a.createStatement().executeQuery("SELECT ARRAY[1, 2]");
            b.setAutoCommit(false);
            assertEquals("1", one(b, "SELECT 1"), "B is served while A's result lies unread");
            assertTrue(rs.next());
            Array array = rs.getArray(1);
            assertArrayEquals(new Integer[] {1, 2}, (Object[]) array.getArray());
            SQLException e = assertThrows(SQLException.class, array::getResultSet,
                    "the server A's array was read through is in B's transaction now");
            assertEquals("55000", e.getSQLState());
            b.commit();
        }
    }

    @Test
    void aResultBeingReadKeepsItsServerWhileTheTransactionLasts() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery(ROWS)) {
                assertTrue(rs.next());
                int backend = logical(a).currentBackendPid();
                assertTrue(logical(a).holdsServerConnection());
                assertEquals(backend, Integer.parseInt(one(a, "SELECT pg_backend_pid()")));
            }
            a.commit();
        }
    }

    private static void assertRows(ResultSet rs) throws SQLException {
        for (int g = 1; g <= 3; g++) {
            assertTrue(rs.next(), "row " + g);
            assertEquals(g, rs.getInt(1));
            assertEquals((long) g, rs.getLong("g"));
            assertEquals(Integer.valueOf(g), rs.getObject(1));
            assertEquals("row " + g, rs.getString(2));
            assertEquals(g % 2 == 0 ? "t" : "f", rs.getString(3));
            assertEquals(g % 2 == 0, rs.getBoolean(3));
            assertEquals(new BigDecimal("1.5").multiply(BigDecimal.valueOf(g)), rs.getBigDecimal(4));
            assertEquals(1.5 * g, rs.getDouble(4));
            assertEquals(LocalDate.of(2024, 2, 28).plusDays(g), rs.getDate(5).toLocalDate());
            assertEquals(LocalDate.of(2024, 2, 28).plusDays(g), rs.getObject(5, LocalDate.class));
            assertEquals(Timestamp.valueOf("2024-02-28 12:34:56.5").toLocalDateTime().plusDays(g),
                    rs.getTimestamp(6).toLocalDateTime());
            assertArrayEquals(new Integer[] {g, g + 1}, (Object[]) rs.getArray(7).getArray());
            assertNull(rs.getString(8));
            assertTrue(rs.wasNull());
            assertArrayEquals(new byte[] {0, (byte) 0xff}, rs.getBytes(9));
        }
        assertFalse(rs.next());
    }
}
