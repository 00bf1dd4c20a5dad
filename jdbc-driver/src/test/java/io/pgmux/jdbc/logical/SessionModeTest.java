package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session mode: a logical connection holds one server connection from getConnection() to close(), and the
 * server_reset_query (DISCARD ALL) cleans it before the next client, who still gets the pool's settings.
 */
@PostgresTest
class SessionModeTest {
    private static final String APP = "session-mode";

    private final TestDatabase db;
    private final TestPools pools;

    SessionModeTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool pool(int size) {
        return pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(size).poolMode(PoolMode.SESSION));
    }

    @Test
    void aLogicalConnectionHoldsOneBackendFromGetConnectionToClose() throws Exception {
        JdbcPool pool = pool(1);
        Connection c = pool.getConnection();
        assertTrue(logical(c).holdsServerConnection(), "borrowed at getConnection()");
        int backend = pid(c);
        CompletableFuture<Connection> second = CompletableFuture.supplyAsync(() -> {
            try {
                return pool.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.pool().getThreadsAwaitingConnection() == 0 && !second.isDone()
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(second.isDone(), "between statements the only backend still belongs to the first client");
        assertEquals(1, pool.pool().getThreadsAwaitingConnection(), "the second client waits for it");
        assertEquals(backend, pid(c));
        c.close();
        try (Connection next = second.get(10, TimeUnit.SECONDS)) {
            assertEquals(backend, pid(next), "close() gave it to the waiting client");
        }
        assertEquals(0, pool.pinnedConnections(), "session mode does not count pins");
    }

    @Test
    void theNextClientGetsTheBackendResetByDiscardAll() throws SQLException {
        JdbcPool pool = pool(1);
        int backend;
        String workMem;
        try (Connection c = pool.getConnection()) {
            workMem = one(c, "SHOW work_mem");
            execute(c, "SET work_mem = '7MB'");
            execute(c, "CREATE TEMP TABLE session_temp (id int)");
            backend = pid(c);
        }
        try (Connection next = pool.getConnection()) {
            assertEquals(backend, pid(next), "the backend is reused");
            assertEquals(workMem, one(next, "SHOW work_mem"));
            assertEquals("0", one(next, "SELECT count(*) FROM pg_class WHERE relname = 'session_temp'"));
        }
    }

    @Test
    void aClientThatTurnedAutocommitOffStillGivesItsBackendBackForReuse() throws SQLException {
        JdbcPool pool = pool(1);
        int backend;
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            backend = pid(c);
            c.commit();
        }
        try (Connection next = pool.getConnection()) {
            assertTrue(next.getAutoCommit());
            assertEquals(backend, pid(next), "the backend is reset and reused, not closed");
        }
    }

    @Test
    void thePoolsSchemaIsAppliedAgainAfterTheResetForTheNextClient() throws SQLException {
        try (Connection admin = db.connect()) {
            execute(admin, "CREATE SCHEMA session_schema");
        }
        JdbcPool pool = pools.open(APP, JdbcPoolSettings.builder().schema("session_schema").poolConfig(
                PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.SESSION).poolName(APP).build()),
                new Properties());
        int backend;
        try (Connection c = pool.getConnection()) {
            assertEquals("session_schema", one(c, "SELECT current_schema()"));
            backend = pid(c);
        }
        try (Connection next = pool.getConnection()) {
            assertEquals(backend, pid(next));
            assertEquals("session_schema", next.getSchema());
            assertEquals("session_schema", one(next, "SELECT current_schema()"),
                    "DISCARD ALL reset the search_path, so the schema must be set again");
        }
        assertFalse(pool.isClosed());
    }

    @Test
    void abortFromAnotherThreadClosesTheBackendInsteadOfReturningIt() throws Exception {
        JdbcPool pool = pool(1);
        Connection c = pool.getConnection();
        int aborted = pid(c);
        Thread other = new Thread(() -> {
            try {
                c.abort(Runnable::run);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        other.start();
        other.join(10_000);
        assertTrue(c.isClosed());
        c.close();
        assertEquals(0, pool.pool().getActiveConnections());
        try (Connection next = pool.getConnection()) {
            assertTrue(pid(next) != aborted, "the next client gets a new backend");
        }
    }

    @Test
    void eachOpenLogicalConnectionIsAnActiveClientOfThePool() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection first = pool.getConnection()) {
            try (Connection second = pool.getConnection()) {
                assertEquals(2, pool.pool().getClientsActive());
                assertEquals(2, pool.pool().view().snapshot().clActive);
            }
            assertEquals(1, pool.pool().getClientsActive());
        }
        assertEquals(0, pool.pool().getClientsActive());
    }
}
