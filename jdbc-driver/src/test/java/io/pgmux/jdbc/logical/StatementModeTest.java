package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Statement mode gives the server connection back after every statement, so transactions cannot span
 * statements: asking for one fails with SQLSTATE 0A000 and never leaves a backend inside a transaction.
 */
@PostgresTest
class StatementModeTest {
    private static final String APP = "statement-mode";

    private final TestDatabase db;
    private final TestPools pools;

    StatementModeTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool pool(int size) {
        return pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(size).poolMode(PoolMode.STATEMENT));
    }

    @Test
    void eachStatementGivesItsBackendBackAtOnce() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            assertEquals(0, st.executeUpdate("DO $$ BEGIN END $$"));
            assertFalse(logical(c).holdsServerConnection(), "after an update");
            pid(c);
            assertFalse(logical(c).holdsServerConnection(), "after a query whose result set was closed");
        }
    }

    @Test
    void consecutiveStatementsRunOnDifferentBackendsWhenAnotherClientTookTheFirst() throws Exception {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection();
             Statement sleeper = other.createStatement()) {
            int first = pid(c);
            CompletableFuture<Void> sleeping = CompletableFuture.runAsync(() -> {
                try {
                    sleeper.execute("SELECT pg_sleep(2)");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            db.awaitRunningQuery("SELECT pg_sleep(2)", Duration.ofSeconds(10));
            assertNotEquals(first, pid(c), "the only open backend was busy, so the next statement went elsewhere");
            sleeping.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void setAutoCommitFalseIsRefusedWith0A000() throws SQLException {
        JdbcPool pool = pool(1);
        try (Connection c = pool.getConnection()) {
            assertEquals("0A000", assertThrows(SQLException.class, () -> c.setAutoCommit(false)).getSQLState());
            assertTrue(c.getAutoCommit());
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void aPoolConfiguredWithAutoCommitOffRefusesConnectionsWith0A000() {
        JdbcPool pool = pools.open(APP, JdbcPoolSettings.builder().autoCommit(false).poolConfig(
                PoolConfig.jdbcDefaults().poolMode(PoolMode.STATEMENT).poolName(APP).build()), new Properties());
        assertEquals("0A000", assertThrows(SQLException.class, pool::getConnection).getSQLState());
    }

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN", "START TRANSACTION", "BEGIN ISOLATION LEVEL SERIALIZABLE", "SELECT 1; BEGIN"})
    void sqlThatOpensATransactionIsRefusedWith0A000AndLeavesNoTransactionOpen(String sql) throws SQLException {
        JdbcPool pool = pool(1);
        try (Connection c = pool.getConnection()) {
            int backend = pid(c);
            assertEquals("0A000", assertThrows(SQLException.class, () -> execute(c, sql)).getSQLState());
            assertFalse(logical(c).holdsServerConnection());
            assertEquals("idle", backendState(backend), "the backend is not inside a transaction");
            assertEquals(backend, pid(c), "and is still in use");
        }
    }

    private String backendState(int pid) throws SQLException {
        try (Connection admin = db.connect();
             PreparedStatement ps = admin.prepareStatement("SELECT state FROM pg_stat_activity WHERE pid = ?")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "gone";
            }
        }
    }

}
