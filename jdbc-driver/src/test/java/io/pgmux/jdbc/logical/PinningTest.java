package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.hold;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.one;
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
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * Session state the pool cannot move between backends pins a logical connection to its server connection
 * until close(); the server connection is then cleaned before anyone else gets it. Statements that only
 * look like such state (it ends with the transaction) do not pin.
 */
@PostgresTest
class PinningTest {
    private static final String APP = "pinning";
    private static final String WORK_MEM = "SHOW work_mem";

    private final TestPools pools;

    PinningTest(TestDatabase db) {
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @FunctionalInterface
    interface Trigger {
        void run(Connection c) throws SQLException;
    }

    // ---------------------------------------------------------------- what pins

    @Test
    void sessionSetPinsAndIsResetBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "SET work_mem = '7MB'"), WORK_MEM);
    }

    @Test
    void sessionSetConfigPinsAndIsResetBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "SELECT set_config('work_mem', '7MB', false)"), WORK_MEM);
    }

    @Test
    void resetPins() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "RESET work_mem"), null);
    }

    @Test
    void listenPinsAndTheChannelIsUnlistenedBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "LISTEN pin_channel"),
                "SELECT count(*) FROM pg_listening_channels()");
    }

    @Test
    void sqlPreparePinsAndTheStatementIsDeallocatedBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "PREPARE pin_statement AS SELECT 1"),
                "SELECT count(*) FROM pg_prepared_statements WHERE from_sql");
    }

    @Test
    void temporaryTablePinsAndIsDroppedBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "CREATE TEMP TABLE pin_temp (id int)"),
                "SELECT count(*) FROM pg_class WHERE relname = 'pin_temp' AND relnamespace = pg_my_temp_schema()");
    }

    @Test
    void sessionAdvisoryLockPinsAndIsReleasedBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "SELECT pg_advisory_lock(4242)"),
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242");
    }

    @Test
    void cursorWithHoldPinsAndIsClosedBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "DECLARE pin_cursor CURSOR WITH HOLD FOR SELECT 1"),
                "SELECT count(*) FROM pg_cursors WHERE name = 'pin_cursor'");
    }

    @Test
    void loadPins() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "LOAD 'plpgsql'"), null);
    }

    @Test
    void discardAllPins() throws SQLException {
        assertPinsUntilCloseThenClean(c -> execute(c, "DISCARD ALL"), null);
    }

    @Test
    void unwrapToPgConnectionPinsAndWhatWasDoneThroughItIsResetBeforeReuse() throws SQLException {
        assertPinsUntilCloseThenClean(c -> {
            Connection pgjdbc = (Connection) c.unwrap(PGConnection.class);
            try (Statement st = pgjdbc.createStatement()) {
                // Straight through pgjdbc: the SQL classifier never sees this.
                st.execute("SET work_mem = '7MB'");
            }
        }, WORK_MEM);
    }

    // ---------------------------------------------------------------- what only looks like it

    @Test
    void setLocalInsideATransactionDoesNotPin() throws SQLException {
        assertDoesNotPin(WORK_MEM, "7MB", "BEGIN", "SET LOCAL work_mem = '7MB'");
    }

    @Test
    void transactionAdvisoryLockDoesNotPin() throws SQLException {
        assertDoesNotPin("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4243", "1",
                "BEGIN", "SELECT pg_advisory_xact_lock(4243)");
    }

    @Test
    void temporaryTableOnCommitDropDoesNotPin() throws SQLException {
        assertDoesNotPin("SELECT count(*) FROM pg_class WHERE relname = 'pin_xact_temp' "
                + "AND relnamespace = pg_my_temp_schema()", "1",
                "BEGIN", "CREATE TEMP TABLE pin_xact_temp (id int) ON COMMIT DROP");
    }

    @Test
    void transactionLocalSetConfigDoesNotPin() throws SQLException {
        assertDoesNotPin(WORK_MEM, "7MB", "BEGIN", "SELECT set_config('work_mem', '7MB', true)");
    }

    @Test
    void transactionLocalSetConfigInAutocommitDoesNotPin() throws SQLException {
        JdbcPool pool = pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
        try (Connection c = pool.getConnection()) {
            String clean = one(c, WORK_MEM);
            assertEquals("7MB", one(c, "SELECT set_config('work_mem', '7MB', true)"));
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(0, pool.pinsTotal());
            assertEquals(clean, one(c, WORK_MEM));
        }
    }

    // ---------------------------------------------------------------- scenarios

    /**
     * The trigger pins the subject to backend P: later autocommit statements stay on P while another
     * logical connection is served by Q, and the pin is counted. After close(), the next borrower of P
     * finds the session as clean as a fresh one (when a probe can see the state).
     */
    private void assertPinsUntilCloseThenClean(Trigger trigger, String probe) throws SQLException {
        JdbcPool pool = pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(2).poolMode(PoolMode.TRANSACTION));
        String clean = null;
        if (probe != null) {
            try (Connection fresh = pool.getConnection()) {
                clean = one(fresh, probe);
            }
        }
        int pinned;
        TestPools.Held onQ;
        try (Connection subject = pool.getConnection()) {
            trigger.run(subject);
            assertTrue(logical(subject).holdsServerConnection(), "still holds its backend after an autocommit statement");
            assertEquals(1, pool.pinnedConnections(), "the pin is counted");
            pinned = logical(subject).currentBackendPid();
            assertEquals(pinned, pid(subject));
            try (Connection other = pool.getConnection()) {
                assertNotEquals(pinned, pid(other), "another logical connection is served by the other backend");
            }
            assertEquals(pinned, pid(subject), "later statements stay on the pinned backend");
            if (probe != null) {
                assertNotEquals(clean, one(subject, probe), "the trigger left state in the session");
            }
            onQ = hold(pool);
            assertNotEquals(pinned, onQ.pid());
        }
        assertEquals(0, pool.pinnedConnections(), "close() ends the pin");
        assertEquals(1, pool.pinsTotal());
        try (Connection next = pool.getConnection()) {
            assertEquals(pinned, pid(next), "the pinned backend is reused, not closed");
            if (probe != null) {
                assertEquals(clean, one(next, probe), "and its session was cleaned first");
            }
        } finally {
            onQ.close();
        }
    }

    /**
     * The statements run inside a transaction and have their effect there, yet nothing pins: commit gives the
     * backend back, and the next borrower of it (a pool of one) finds the effect gone.
     */
    private void assertDoesNotPin(String probe, String insideTransaction, String... statements) throws SQLException {
        JdbcPool pool = pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
        String clean;
        int backend;
        try (Connection subject = pool.getConnection()) {
            clean = one(subject, probe);
            for (String sql : statements) {
                execute(subject, sql);
            }
            backend = pid(subject);
            assertEquals(insideTransaction, one(subject, probe), "the statement took effect in the transaction");
            execute(subject, "COMMIT");
            assertFalse(logical(subject).holdsServerConnection(), "commit gave the backend back");
            assertEquals(0, pool.pinnedConnections());
            assertEquals(0, pool.pinsTotal());
        }
        try (Connection next = pool.getConnection()) {
            assertEquals(backend, pid(next));
            assertEquals(clean, one(next, probe));
        }
    }
}
