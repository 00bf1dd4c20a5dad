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
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * State the SQL text cannot show (a function that runs its argument as SQL) is caught after the fact, as the
 * proxy catches it: a statement whose text hints at it is followed, when its transaction ends, by one query
 * that tells what the session holds, and logical connection A is pinned if it holds anything; B, served by the
 * same backend after A closes, finds nothing. A hint that leads to nothing costs no pin.
 */
@PostgresTest
class HiddenSessionStateCheckTest {
    private static final String TEMP_TABLE = "SELECT count(*) FROM pg_class WHERE relname = 'hidden_t'"
            + " AND relnamespace = pg_my_temp_schema()";
    private static final String LOCK = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 77"
            + " AND pid = pg_backend_pid()";

    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;

    HiddenSessionStateCheckTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createRunSql() throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE FUNCTION run_sql(text) RETURNS void LANGUAGE plpgsql"
                    + " AS $$BEGIN EXECUTE $1; END$$");
        }
        pool = pools.open("hidden", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void aTemporaryTableMadeInsideAFunctionPinsAfterTheFact() throws SQLException {
        assertPinnedAndGoneForTheNextClient("SELECT run_sql('CREATE TEMP TABLE hidden_t (a int)')", TEMP_TABLE);
    }

    @Test
    void anAdvisoryLockTakenInsideAFunctionPinsAfterTheFact() throws SQLException {
        assertPinnedAndGoneForTheNextClient("SELECT run_sql('SELECT pg_advisory_lock(77)')", LOCK);
    }

    @Test
    void aHintedStateLeftInATransactionClosedUnfinishedIsResetForTheNextClient() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            execute(a, "SELECT run_sql('SELECT pg_advisory_lock(77)')");
            assertEquals("1", one(a, LOCK));
        }
        try (Connection b = pool.getConnection()) {
            assertEquals("0", one(b, LOCK), "B does not hold A's session lock");
        }
    }

    @Test
    void aHintThatLeadsToNothingDoesNotPin() throws SQLException {
        try (Connection a = pool.getConnection()) {
            execute(a, "SELECT run_sql('SELECT 1 AS temp')");
            assertFalse(logical(a).holdsServerConnection(), "the check found nothing: the server went back");
            assertEquals(0, pool.pinnedConnections());
        }
    }

    private void assertPinnedAndGoneForTheNextClient(String trigger, String probe) throws SQLException {
        int backend;
        try (Connection a = pool.getConnection()) {
            execute(a, trigger);
            assertTrue(logical(a).holdsServerConnection(), "A keeps its backend after an autocommit statement");
            assertEquals(1, pool.pinnedConnections(), "A is pinned");
            assertEquals("1", one(a, probe), "the state is A's, as on a direct connection");
            backend = pid(a);
        }
        try (Connection b = pool.getConnection()) {
            assertEquals(backend, pid(b));
            assertEquals("0", one(b, probe), "B does not find what A left");
        }
    }
}
