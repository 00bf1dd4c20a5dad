package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The four kinds of session state that transaction pooling breaks behind PgBouncer, through the driver in
 * transaction mode with two server connections, each giving the results a direct pgjdbc connection gives: the
 * logical connection that made the state is pinned to its server connection while the others go on.
 */
@PostgresTest
class SessionStateAsOnADirectConnectionTest {
    private final TestPools pools;
    private JdbcPool pool;

    SessionStateAsOnADirectConnectionTest(TestDatabase db) {
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void open() {
        pool = pools.open("session-state", PoolConfig.jdbcDefaults().defaultPoolSize(2).poolMode(PoolMode.TRANSACTION));
    }

    @AfterEach
    void close() {
        pools.close();
    }

    @Test
    void aListenerReceivesThroughGetNotificationsWhatAnotherConnectionNotifies() throws SQLException {
        try (Connection listener = pool.getConnection(); Connection notifier = pool.getConnection()) {
            execute(listener, "LISTEN jdbc_channel");
            execute(notifier, "NOTIFY jdbc_channel, 'through the pool'");
            PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(10_000);
            assertNotNull(got);
            assertEquals(1, got.length);
            assertEquals("through the pool", got[0].getParameter());
            assertEquals(1, pool.pool().getClientsPinned(), "the pool's MXBean shows the pin");
            assertEquals(1L, pool.pool().getPinsByReason().get("LISTEN"));
        }
    }

    @Test
    void aSessionAdvisoryLockIsNotGrantedToAnotherConnectionUntilItIsReleased() throws SQLException {
        try (Connection holder = pool.getConnection(); Connection other = pool.getConnection()) {
            assertEquals("t", one(holder, "SELECT pg_try_advisory_lock(4711)"));
            assertEquals("f", one(other, "SELECT pg_try_advisory_lock(4711)"));
            assertEquals("t", one(holder, "SELECT pg_advisory_unlock(4711)"));
            assertEquals("t", one(other, "SELECT pg_try_advisory_lock(4711)"));
            execute(other, "SELECT pg_advisory_unlock_all()");
        }
    }

    @Test
    void aTemporaryTableOutlivesTheTransactionThatCreatedIt() throws SQLException {
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection()) {
            execute(c, "CREATE TEMP TABLE scratch (n int)");
            execute(other, "SELECT 1");
            execute(c, "INSERT INTO scratch VALUES (1), (2)");
            assertEquals("2", one(c, "SELECT count(*) FROM scratch"));
        }
    }

    @Test
    void aHoldableResultSetIsReadAcrossCommits() throws SQLException {
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY,
                    ResultSet.HOLD_CURSORS_OVER_COMMIT)) {
                s.setFetchSize(10);
                try (ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 100) g")) {
                    int read = 0;
                    while (rs.next()) {
                        assertEquals(++read, rs.getInt(1));
                        if (read % 25 == 0) {
                            c.commit();
                            execute(other, "SELECT 1");
                        }
                    }
                    assertEquals(100, read);
                }
            }
            c.commit();
        }
    }
}
