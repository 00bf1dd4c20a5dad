package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.one;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

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
 * serverResetQueryAlways (PgBouncer's server_reset_query_always) resets every server connection a logical
 * connection gives back in transaction mode too: the way to keep state the SQL text cannot show (a custom
 * setting a function sets, which no query can list) from the next client, at one reset per transaction.
 */
@PostgresTest
class ServerResetQueryAlwaysTest {
    private static final String SETTING = "SELECT current_setting('app.tenant', true)";

    private final TestDatabase db;
    private final TestPools pools;

    ServerResetQueryAlwaysTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createSetTenant() throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE FUNCTION set_tenant(text) RETURNS text LANGUAGE sql"
                    + " AS $$SELECT set_config('app.tenant', $1, false)$$");
            st.execute("CREATE OR REPLACE FUNCTION grab(bigint) RETURNS void LANGUAGE sql"
                    + " AS $$SELECT pg_advisory_lock($1)$$");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void aSettingAFunctionLeavesIsResetBeforeTheNextClient() throws SQLException {
        JdbcPool pool = pools.open("resetalways", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .poolMode(PoolMode.TRANSACTION).serverResetQueryAlways(true));
        int backend;
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            a.setAutoCommit(false);
            execute(a, "SELECT set_tenant('A')");
            assertEquals("A", one(a, SETTING), "A's transaction sees its setting");
            backend = pid(a);
            a.commit();
            assertFalse(logical(a).holdsServerConnection(), "nothing pinned: the server went back");
            assertEquals(backend, pid(b), "B is served by A's backend");
            assertNotEquals("A", one(b, SETTING), "B does not find A's setting");
        }
    }

    @Test
    void theResetIsTheConfiguredQuery() throws SQLException {
        JdbcPool pool = pools.open("resetalways", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .poolMode(PoolMode.TRANSACTION).serverResetQueryAlways(true).serverResetQuery("RESET ALL"));
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            execute(a, "SELECT set_tenant('A'), grab(4711)");
            a.commit();
        }
        try (Connection b = pool.getConnection()) {
            assertNotEquals("A", one(b, SETTING), "RESET ALL reset the setting");
            assertEquals("1", one(b, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4711"
                    + " AND pid = pg_backend_pid()"), "and it was RESET ALL, not DISCARD ALL, which releases locks");
        }
    }
}
