package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.hold;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an application sees when the pool or the server fails it: clear errors with SQLSTATEs, a leak
 * warning in the log, a lost transaction that must be rolled back, and recovery without restarting anything.
 */
@PostgresTest
class FailureTest {
    private final TestDatabase db;
    private final TestPools pools;

    FailureTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createTable() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("DROP TABLE IF EXISTS failure_rows");
            st.execute("CREATE TABLE failure_rows (id int)");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool pool(String applicationName, PoolConfig.Builder config) {
        return pools.open(applicationName, config.poolMode(PoolMode.TRANSACTION));
    }

    private long committedRows() throws SQLException {
        try (Connection admin = db.connect()) {
            return count(admin, "SELECT count(*) FROM failure_rows");
        }
    }

    private static boolean isConnectionLoss(SQLException e) {
        return e.getSQLState() != null && (e.getSQLState().startsWith("08") || e.getSQLState().equals("57P01"));
    }

    @Test
    void aPoolTimeoutFailsWith08001NamingThePoolItsSizeTheWaitersAndTheWait() throws SQLException {
        JdbcPool pool = pool("fail-timeout", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .queryWaitTimeout(Duration.ofMillis(500)));
        try (TestPools.Held holder = hold(pool); Connection waiter = pool.getConnection()) {
            long start = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> pid(waiter));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals("08001", e.getSQLState());
            String message = e.getMessage();
            assertTrue(message.contains(pool.pool().name()), "names the pool: " + message);
            assertTrue(message.contains("pool size 1"), "names its size: " + message);
            assertTrue(Pattern.compile("\\d+ clients waiting").matcher(message).find(), "counts waiters: " + message);
            Matcher waited = Pattern.compile("within (\\d+) ms").matcher(message);
            assertTrue(waited.find(), "says how long it waited: " + message);
            assertTrue(Integer.parseInt(waited.group(1)) >= 500, message);
            assertTrue(millis >= 500, "failed after the wait timeout, not before: " + millis + " ms");
            assertTrue(millis < 30_000, "failed at the wait timeout, not long after: " + millis + " ms");
            holder.close();
            assertEquals(holder.pid(), pid(waiter), "the waiter works once the backend is free");
        }
    }

    @Test
    void aLeaseHeldLongerThanTheLeakDetectionThresholdIsLogged() throws Exception {
        JdbcPool pool = pool("fail-leak", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .leakDetectionThreshold(Duration.ofSeconds(1)));
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (TestPools.Held holder = hold(pool)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!captured.toString(StandardCharsets.UTF_8).toLowerCase(Locale.ROOT).contains("leak")
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            System.setErr(stderr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        stderr.print(log);
        assertTrue(log.toLowerCase(Locale.ROOT).contains("leak"), "a leak warning was logged: " + log);
        assertTrue(log.contains(pool.pool().name()), "naming the pool: " + log);
    }

    @Test
    void aBackendTerminatedMidTransactionFailsItAndTheConnectionRequiresRollback() throws SQLException {
        String app = "fail-kill-tx";
        JdbcPool pool = pool(app, PoolConfig.jdbcDefaults().defaultPoolSize(1));
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            execute(c, "INSERT INTO failure_rows VALUES (1)");
            int backend = logical(c).currentBackendPid();
            assertEquals(1, db.terminateBackends(Backends.withApplicationName(app)));

            SQLException lost = assertThrows(SQLException.class, () -> execute(c, "INSERT INTO failure_rows VALUES (2)"));
            assertTrue(isConnectionLoss(lost), "08xxx or 57P01, was " + lost.getSQLState());
            assertEquals("08007", assertThrows(SQLException.class, () -> pid(c)).getSQLState(),
                    "no statement runs until the application rolls back");
            assertEquals("08007", assertThrows(SQLException.class, () -> pid(c)).getSQLState(), "still");
            c.rollback();
            assertNotEquals(backend, pid(c), "after rollback it works, on a new backend");
            execute(c, "INSERT INTO failure_rows VALUES (3)");
            c.commit();
        }
        assertEquals(1, committedRows(), "only the row after the rollback");
    }

    @Test
    void aBackendTerminatedInsideAPlainSqlTransactionRequiresRollbackToo() throws SQLException {
        String app = "fail-kill-sql-tx";
        JdbcPool pool = pool(app, PoolConfig.jdbcDefaults().defaultPoolSize(1));
        try (Connection c = pool.getConnection()) {
            execute(c, "BEGIN");
            execute(c, "INSERT INTO failure_rows VALUES (1)");
            assertEquals(1, db.terminateBackends(Backends.withApplicationName(app)));

            SQLException lost = assertThrows(SQLException.class, () -> execute(c, "INSERT INTO failure_rows VALUES (2)"));
            assertTrue(isConnectionLoss(lost), "08xxx or 57P01, was " + lost.getSQLState());
            // The application still believes it is inside its transaction: a statement now must not be
            // committed on its own on a new backend.
            SQLException refused = assertThrows(SQLException.class,
                    () -> execute(c, "INSERT INTO failure_rows VALUES (3)"));
            assertEquals("08007", refused.getSQLState());
            execute(c, "ROLLBACK");
            assertTrue(pid(c) > 0, "after ROLLBACK it works again");
        }
        assertEquals(0, committedRows(), "nothing of the lost transaction was committed");
    }

    @Test
    void aBackendTerminatedBetweenAutocommitStatementsIsReplacedTransparently() throws SQLException {
        String app = "fail-kill-idle";
        JdbcPool pool = pool(app, PoolConfig.jdbcDefaults().defaultPoolSize(1).serverCheckDelay(Duration.ZERO));
        try (Connection c = pool.getConnection()) {
            int backend = pid(c);
            assertEquals(1, db.terminateBackends(Backends.withApplicationName(app)));
            int replacement = pid(c);
            assertNotEquals(backend, replacement, "the dead backend failed its check and was replaced");
            assertEquals(1, pool.pool().getTotalConnections());
        }
    }

    @Test
    void afterAServerRestartNewAndIdleLogicalConnectionsWork() throws SQLException {
        JdbcPool pool = pool("fail-restart", PoolConfig.jdbcDefaults().defaultPoolSize(2)
                .serverCheckDelay(Duration.ZERO));
        try (Connection idle = pool.getConnection()) {
            int before = pid(idle);
            db.server().restart();
            try (Connection fresh = pool.getConnection()) {
                assertNotEquals(before, pid(fresh), "a new logical connection works on a new backend");
            }
            assertTrue(pid(idle) > 0, "a logical connection opened before the restart works too");
        }
    }

    @Test
    void isValidAnswersWithinItsTimeoutWhileThePoolIsExhausted() throws Exception {
        // the only backend stays held and the pool's own wait outlasts the test: an answer can only come from
        // isValid's timeout
        JdbcPool pool = pool("fail-valid", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .queryWaitTimeout(Duration.ofMinutes(30)));
        try (TestPools.Held holder = hold(pool); Connection c = pool.getConnection()) {
            CompletableFuture<Boolean> valid = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.isValid(1);
                } catch (SQLException e) {
                    throw new AssertionError("isValid reports with true or false, it does not throw", e);
                }
            });
            // a TimeoutException here: isValid waited for a backend instead of answering
            valid.get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * The pool has opened its server connection once, so the defaults of isolation, schema and catalog are
     * known: reading them must not wait for a server connection to be free.
     */
    @Test
    void sessionDefaultsAreReadWithoutWaitingForAServerConnection() throws SQLException {
        int serverIsolation;
        String serverSchema;
        try (Connection direct = db.connect()) {
            serverIsolation = direct.getTransactionIsolation();
            serverSchema = direct.getSchema();
        }
        JdbcPool pool = pool("fail-defaults", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .queryWaitTimeout(Duration.ofMillis(500)));
        try (TestPools.Held holder = hold(pool); Connection c = pool.getConnection()) {
            assertEquals(serverIsolation, c.getTransactionIsolation());
            assertEquals(serverSchema, c.getSchema());
            assertEquals(db.name(), c.getCatalog());
        }
    }

    /**
     * A DatabaseMetaData result set is open when its backend dies; closing it afterwards must not upset the
     * count of what still needs the server, or a later result set would lose its backend while open.
     */
    @Test
    void aMetaDataResultSetClosedAfterItsBackendDiedDoesNotReleaseALaterResultSetsBackend() throws SQLException {
        String app = "fail-kill-meta";
        JdbcPool pool = pool(app, PoolConfig.jdbcDefaults().defaultPoolSize(2));
        try (Connection c = pool.getConnection()) {
            ResultSet tables = c.getMetaData().getTables(null, null, "failure_rows", null);
            assertEquals(1, db.terminateBackends(Backends.withApplicationName(app)));
            SQLException lost = assertThrows(SQLException.class, () -> pid(c));
            assertTrue(isConnectionLoss(lost), lost.getSQLState());
            tables.close();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
                assertTrue(logical(c).holdsServerConnection(), "the open result set keeps its backend");
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
        }
    }
}
