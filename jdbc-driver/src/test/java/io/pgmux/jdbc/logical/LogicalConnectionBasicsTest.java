package io.pgmux.jdbc.logical;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The borrow-and-return rules of a logical connection, seen from one client. */
@PostgresTest
class LogicalConnectionBasicsTest {
    private final TestDatabase db;
    private JdbcPool pool;

    LogicalConnectionBasicsTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void close() {
        if (pool != null) {
            pool.close();
        }
    }

    private Connection connect(PoolMode mode) throws SQLException {
        open(PoolConfig.jdbcDefaults().defaultPoolSize(2).poolMode(mode));
        return pool.getConnection();
    }

    private void open(PoolConfig.Builder config) {
        Properties props = new Properties();
        props.setProperty("user", db.superuser());
        props.setProperty("password", db.superuserPassword());
        pool = new JdbcPool(JdbcPoolSettings.builder().targetUrl(db.jdbcUrl()).driverProperties(props)
                .poolKey(db.name(), db.superuser()).poolConfig(config.build()).build());
    }

    private static LogicalConnection logical(Connection c) throws SQLException {
        return c.unwrap(LogicalConnection.class);
    }

    @Test
    void aNewConnectionHoldsNoServerConnectionInTransactionMode() throws SQLException {
        try (Connection c = connect(PoolMode.TRANSACTION)) {
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(0, pool.pool().getActiveConnections());
        }
    }

    @Test
    void anAutocommitUpdateGivesTheServerConnectionBackAtOnce() throws SQLException {
        try (Connection c = connect(PoolMode.TRANSACTION); Statement st = c.createStatement()) {
            st.executeUpdate("CREATE TABLE IF NOT EXISTS basics(id int)");
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(1, pool.pool().getIdleConnections());
        }
    }

    @Test
    void anOpenResultSetKeepsTheServerConnectionUntilItIsClosed() throws SQLException {
        try (Connection c = connect(PoolMode.TRANSACTION); Statement st = c.createStatement()) {
            ResultSet rs = st.executeQuery("SELECT generate_series(1, 3)");
            assertTrue(logical(c).holdsServerConnection());
            int n = 0;
            while (rs.next()) {
                n++;
            }
            assertEquals(1, rs.getMetaData().getColumnCount());
            rs.close();
            assertEquals(3, n);
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void aTransactionKeepsOneServerConnectionFromFirstStatementToCommit() throws SQLException {
        try (Connection c = connect(PoolMode.TRANSACTION)) {
            c.setAutoCommit(false);
            int pid;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            assertEquals(pid, logical(c).currentBackendPid());
            c.commit();
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void aPreparedStatementRunsAgainAfterItsServerConnectionWasReturned() throws SQLException {
        try (Connection c = connect(PoolMode.TRANSACTION);
             PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1")) {
            for (int i = 0; i < 10; i++) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertEquals(i + 1, rs.getInt(1));
                }
                assertFalse(logical(c).holdsServerConnection());
            }
        }
    }

    @Test
    void sessionModeHoldsOneServerConnectionUntilClose() throws SQLException {
        try (Connection c = connect(PoolMode.SESSION)) {
            assertTrue(logical(c).holdsServerConnection());
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            assertTrue(logical(c).holdsServerConnection());
        }
        assertEquals(0, pool.pool().getActiveConnections());
    }

    @Test
    void beyondMaxClientConnGetConnectionFailsWith53300UntilAConnectionCloses() throws SQLException {
        open(PoolConfig.jdbcDefaults().defaultPoolSize(2).poolMode(PoolMode.TRANSACTION).maxClientConn(2));
        Connection first = pool.getConnection();
        Connection second = pool.getConnection();
        SQLException refused = assertThrows(SQLTransientConnectionException.class, pool::getConnection);
        assertEquals("53300", refused.getSQLState());
        assertTrue(refused.getMessage().contains("no more connections allowed (max_client_conn)"),
                refused.getMessage());
        assertEquals(2, pool.pool().getClientsActive());

        first.close();
        first.close();
        Connection third = pool.getConnection();
        assertThrows(SQLTransientConnectionException.class, pool::getConnection, "closing twice frees one place");
        second.abort(Runnable::run);
        second.close();
        Connection fourth = pool.getConnection();
        assertThrows(SQLTransientConnectionException.class, pool::getConnection,
                "aborting and then closing frees one place");

        third.close();
        fourth.close();
        assertEquals(0, pool.pool().getClientsActive());
    }

    @Test
    void maxRowsLimitsTheRowsOfAQueryAndTheStatementStillRuns() throws SQLException {
        try (Connection c = connect(PoolMode.TRANSACTION); Statement st = c.createStatement()) {
            st.setMaxRows(2);
            try (ResultSet rs = st.executeQuery("SELECT generate_series(1, 5)")) {
                assertTrue(rs.next());
                assertTrue(rs.next());
                assertFalse(rs.next(), "the third row is past maxRows");
            }
            assertEquals(2, st.getMaxRows());
        }
    }
}
