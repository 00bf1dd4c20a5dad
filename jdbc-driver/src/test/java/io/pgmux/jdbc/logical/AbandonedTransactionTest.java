package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A logical connection that keeps a transaction open and is then forgotten gives its server connection
 * back: always once it is garbage-collected, and with idleTransactionTimeout once it was idle that long.
 * Either way its transaction is rolled back, so its locks are released.
 */
@PostgresTest
class AbandonedTransactionTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final TestDatabase db;
    private final TestPools pools;

    AbandonedTransactionTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createRow() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("DROP TABLE IF EXISTS accounts");
            st.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int)");
            st.execute("INSERT INTO accounts VALUES (1, 100)");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool pool(String name, Duration idleTransactionTimeout) {
        return pools.open(name, JdbcPoolSettings.builder()
                .poolConfig(PoolConfig.jdbcDefaults().poolName(name).defaultPoolSize(1).build())
                .idleTransactionTimeout(idleTransactionTimeout), new Properties());
    }

    /** Opens a transaction that locks the row and returns the backend pid, keeping no reference to it. */
    private static int lockRowAndForget(JdbcPool pool) throws SQLException {
        return lockRowAndForget(pool, null);
    }

    /** As {@link #lockRowAndForget(JdbcPool)}, running {@code sessionSql} first when it is not null. */
    private static int lockRowAndForget(JdbcPool pool, String sessionSql) throws SQLException {
        Connection c = pool.getConnection();
        if (sessionSql != null) {
            execute(c, sessionSql);
        }
        c.setAutoCommit(false);
        execute(c, "UPDATE accounts SET balance = balance - 10 WHERE id = 1");
        return pid(c);
    }

    /** Asks for a collection, then tells whether the row is free: the reclaimer acts on collected connections. */
    private boolean collectedAndRowFree() throws SQLException {
        System.gc();
        return rowIsFree();
    }

    /** Whether another session can lock the row now, without waiting for it. */
    private boolean rowIsFree() throws SQLException {
        try (Connection other = db.connect()) {
            other.setAutoCommit(false);
            try {
                execute(other, "SELECT 1 FROM accounts WHERE id = 1 FOR UPDATE NOWAIT");
                return true;
            } catch (SQLException e) {
                assertEquals("55P03", e.getSQLState(), e.toString());
                return false;
            } finally {
                other.rollback();
            }
        }
    }

    private String balance() throws SQLException {
        try (Connection admin = db.connect()) {
            return one(admin, "SELECT balance FROM accounts WHERE id = 1");
        }
    }

    private String stateOf(int pid) throws SQLException {
        try (Connection admin = db.connect()) {
            return one(admin, "SELECT coalesce((SELECT state FROM pg_stat_activity WHERE pid = " + pid
                    + "), 'gone')");
        }
    }

    @Test
    void aGarbageCollectedConnectionsTransactionIsRolledBackAndItsServerConnectionReturned() throws Exception {
        JdbcPool pool = pool("abandoned-gc", Duration.ZERO);
        int pid = lockRowAndForget(pool);
        assertEquals("idle in transaction", stateOf(pid));

        Await.until(this::collectedAndRowFree, PATIENCE, "the forgotten transaction's row lock is released");
        assertEquals("100", balance(), "rolled back");
        assertEquals("idle", stateOf(pid), "the server connection is kept, not closed");
        assertEquals(0, pool.pool().getClientsActive(), "the forgotten client is counted out");
        try (Connection next = pool.getConnection()) {
            assertEquals(pid, pid(next), "and lent to the next client");
        }
    }

    @Test
    void aGarbageCollectedSessionModeConnectionIsRolledBackResetAndItsServerConnectionReturned() throws Exception {
        JdbcPool pool = pools.open("abandoned-session", JdbcPoolSettings.builder()
                .poolConfig(PoolConfig.jdbcDefaults().poolName("abandoned-session").poolMode(PoolMode.SESSION)
                        .defaultPoolSize(1).build()), new Properties());
        int pid = lockRowAndForget(pool, "SET work_mem = '7MB'");

        Await.until(this::collectedAndRowFree, PATIENCE, "the forgotten transaction's row lock is released");
        assertEquals("100", balance(), "rolled back");
        try (Connection next = pool.getConnection()) {
            assertEquals(pid, pid(next), "the server connection is lent to the next client");
            assertEquals("4MB", one(next, "SHOW work_mem"), "with the session state reset");
            assertEquals(1, pool.pool().getClientsActive(), "the forgotten client is counted out");
        }
    }

    @Test
    void aConnectionIdleInATransactionBeyondTheTimeoutIsRolledBackAndClosedWithTheReason() throws Exception {
        JdbcPool pool = pool("abandoned-idle", Duration.ofMillis(300));
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "UPDATE accounts SET balance = balance - 10 WHERE id = 1");
            int pid = pid(c);

            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (!c.isClosed()) {
                assertTrue(System.nanoTime() < deadline, "not reclaimed after " + PATIENCE);
                Thread.sleep(20);
            }
            assertTrue(rowIsFree());
            assertEquals("100", balance(), "rolled back");
            assertEquals("idle", stateOf(pid), "the server connection is kept, not closed");

            SQLException e = assertThrows(SQLException.class, () -> execute(c, "SELECT 1"));
            assertEquals("08003", e.getSQLState());
            assertTrue(e.getMessage().startsWith("idle transaction timeout"), e.getMessage());
            assertTrue(e.getMessage().contains("idleTransactionTimeout (300 ms)"), e.getMessage());
            assertEquals("08003", assertThrows(SQLException.class, c::commit).getSQLState());
        }
        assertEquals(0, pool.pool().getClientsActive());
    }

    @Test
    void aStatementRunningLongerThanTheTimeoutIsNotIdle() throws SQLException {
        JdbcPool pool = pool("abandoned-busy", Duration.ofMillis(200));
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "UPDATE accounts SET balance = balance - 10 WHERE id = 1");
            execute(c, "SELECT pg_sleep(1)");
            c.commit();
        }
        assertEquals("90", balance());
    }
}
