package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session state made by SQL that does not look like what it does (names spelt with Unicode escapes,
 * a statement run under EXPLAIN ANALYZE, dynamic SQL in a DO block) pins logical connection A like its
 * plain form, in a pool of one server connection: A sees its state, and B, served by the same backend
 * once A is closed, finds it gone (DISCARD ALL at A's close).
 */
@PostgresTest
class EncodedPinTriggersTest {
    private static final String SETTING = "SELECT current_setting('app.tenant', true)";

    private final TestPools pools;

    EncodedPinTriggersTest(TestDatabase db) {
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void setConfigSpeltWithUnicodeEscapesPinsAndIsNotSeenByTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient("SELECT U&\"\\0073et_config\"('app.tenant','x',false)", SETTING, "x");
    }

    @Test
    void setConfigSpeltWithAnotherUnicodeEscapeCharacterPinsAndIsNotSeenByTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient("SELECT U&\"!0073et_config\" UESCAPE '!' ('app.tenant','y',false)",
                SETTING, "y");
    }

    @Test
    void advisoryLockSpeltWithUnicodeEscapesPinsAndIsReleasedForTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient("SELECT U&\"pg_advisory_\\006Cock\"(42)",
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 42"
                        + " AND pid = pg_backend_pid()", "1");
    }

    @Test
    void tableInTheTemporarySchemaSpeltWithUnicodeEscapesPinsAndIsDroppedForTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient("CREATE TABLE U&\"pg_\\0074emp\".encoded_tt(a int)",
                temporaryTable("encoded_tt"), "1");
    }

    @Test
    void explainAnalyzeCreateTempTablePinsAndIsDroppedForTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient("EXPLAIN ANALYZE CREATE TEMP TABLE explained_t AS SELECT 1",
                temporaryTable("explained_t"), "1");
    }

    @Test
    void explainWithAnalyzeOptionOfAnEscapedTemporarySchemaPinsAndIsDroppedForTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient(
                "EXPLAIN (ANALYZE, COSTS off) CREATE TABLE U&\"pg_!0074emp\" UESCAPE '!'.explained_u AS SELECT 1",
                temporaryTable("explained_u"), "1");
    }

    @Test
    void doBlockSettingASessionSettingThroughDynamicSqlPinsAndIsNotSeenByTheNextClient() throws SQLException {
        assertPinnedAndGoneForTheNextClient(
                "DO $$ BEGIN EXECUTE 'SET app.tenant = ' || quote_literal('z'); END $$", SETTING, "z");
    }

    private static String temporaryTable(String name) {
        return "SELECT count(*) FROM pg_class WHERE relname = '" + name + "'"
                + " AND relnamespace = pg_my_temp_schema()";
    }

    private void assertPinnedAndGoneForTheNextClient(String trigger, String probe, String left) throws SQLException {
        JdbcPool pool = pools.open("encoded", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .poolMode(PoolMode.TRANSACTION));
        int backend;
        try (Connection a = pool.getConnection()) {
            execute(a, trigger);
            assertEquals(left, one(a, probe), "the statement took effect for A, as on a direct connection");
            assertTrue(logical(a).holdsServerConnection(), "A keeps its backend after an autocommit statement");
            assertEquals(1, pool.pinnedConnections(), "A is pinned");
            backend = pid(a);
        }
        try (Connection b = pool.getConnection()) {
            assertEquals(backend, pid(b), "B is served by A's backend");
            assertNotEquals(left, one(b, probe), "B does not find what A left");
        }
    }
}
