package io.pgmux.jdbc;

import static io.pgmux.testing.Sql.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The multi-tenant pattern of row-level security keyed on a custom setting, through logical connections
 * that share one server connection (transaction mode, maximumPoolSize=1): tenants A and B take turns,
 * 10,000 transactions in all, 2,000 for each way of setting the tenant (SET, SET SESSION, set_config(…,
 * false), the startup option {@code -c app.tenant=…} of the URL, and a function that calls set_config(…, false)
 * itself, which no text shows, with serverResetQueryAlways). Every transaction must see its own
 * tenant's rows only and its own setting: none of the other tenant's rows, no setting lost. Checked as a
 * role that row-level security applies to (not the superuser, which bypasses it).
 */
@PostgresTest
class TenantIsolationTest {
    private static final int TRANSACTIONS_PER_WAY = 2_000;
    private static final int ROWS_PER_TENANT = 3;
    private static final String CHECK = "SELECT count(*) FILTER (WHERE tenant = current_setting('app.tenant', true)),"
            + " count(*) FILTER (WHERE tenant IS DISTINCT FROM current_setting('app.tenant', true)),"
            + " current_setting('app.tenant', true) FROM tenant_docs";

    private final TestDatabase db;
    private TestUser tenantRole;

    TenantIsolationTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void createTheTenantTable() throws SQLException {
        tenantRole = db.createUser(PasswordMethod.MD5);
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS tenant_docs");
            st.execute("CREATE TABLE tenant_docs (tenant text NOT NULL, body text)");
            st.execute("INSERT INTO tenant_docs SELECT t, t || '-' || i FROM unnest(ARRAY['A', 'B']) t,"
                    + " generate_series(1, " + ROWS_PER_TENANT + ") i");
            st.execute("ALTER TABLE tenant_docs ENABLE ROW LEVEL SECURITY");
            st.execute("CREATE POLICY tenant_only ON tenant_docs USING (tenant = current_setting('app.tenant', true))");
            st.execute("GRANT SELECT ON tenant_docs TO " + tenantRole.name());
            st.execute("CREATE OR REPLACE FUNCTION set_tenant(text) RETURNS text LANGUAGE sql"
                    + " AS $$SELECT set_config('app.tenant', $1, false)$$");
        }
    }

    @Test
    void sessionSetNeverShowsOneTenantTheOthersRowsOrLosesItsSetting() throws SQLException {
        alternate(tenant -> "SET app.tenant = '" + tenant + "'");
    }

    @Test
    void setSessionNeverShowsOneTenantTheOthersRowsOrLosesItsSetting() throws SQLException {
        alternate(tenant -> "SET SESSION app.tenant TO '" + tenant + "'");
    }

    @Test
    void sessionSetConfigNeverShowsOneTenantTheOthersRowsOrLosesItsSetting() throws SQLException {
        alternate(tenant -> "SELECT set_config('app.tenant', '" + tenant + "', false)");
    }

    @Test
    void startupOptionOfTheUrlNeverShowsOneTenantTheOthersRowsOrIsLost() throws SQLException {
        try (PgMuxDataSource a = dataSource("A"); PgMuxDataSource b = dataSource("B")) {
            for (int i = 0; i < TRANSACTIONS_PER_WAY; i++) {
                boolean turnOfA = i % 2 == 0;
                String tenant = turnOfA ? "A" : "B";
                try (Connection c = (turnOfA ? a : b).getConnection()) {
                    if (i % 100 == 1) {
                        // A hostile turn: the other tenant's name set for the session; the pin resets it at close.
                        execute(c, "SET app.tenant = '" + (turnOfA ? "B" : "A") + "'");
                        continue;
                    }
                    assertSeesOnlyItsOwn(c, tenant, i);
                }
            }
        }
    }

    @Test
    void aFunctionSettingItWithServerResetQueryAlwaysNeverShowsOneTenantTheOthersRows() throws SQLException {
        try (PgMuxDataSource ds = dataSource(null)) {
            ds.setServerResetQueryAlways(true);
            for (int i = 0; i < TRANSACTIONS_PER_WAY; i++) {
                String tenant = i % 2 == 0 ? "A" : "B";
                try (Connection c = ds.getConnection()) {
                    if (i % 100 == 0) {
                        assertSeesOnlyItsOwn(c, null, i);
                    }
                    c.setAutoCommit(false);
                    execute(c, "SELECT set_tenant('" + tenant + "')");
                    assertSeesOnlyItsOwn(c, tenant, i);
                }
            }
        }
    }

    private interface SetTenant {
        String sql(String tenant);
    }

    /** Tenants take turns on one pool: each turn sets its tenant one way, then runs a transaction that checks it. */
    private void alternate(SetTenant set) throws SQLException {
        try (PgMuxDataSource ds = dataSource(null)) {
            for (int i = 0; i < TRANSACTIONS_PER_WAY; i++) {
                String tenant = i % 2 == 0 ? "A" : "B";
                try (Connection c = ds.getConnection()) {
                    if (i % 100 == 0) {
                        assertSeesOnlyItsOwn(c, null, i);
                    }
                    execute(c, set.sql(tenant));
                    assertSeesOnlyItsOwn(c, tenant, i);
                    if (i % 100 == 2) {
                        execute(c, "RESET app.tenant");
                        assertSeesOnlyItsOwn(c, "", i);
                    }
                }
            }
        }
    }

    /** One transaction: the tenant's own rows, none of the other's, and its own setting ("" after RESET, null unset). */
    private static void assertSeesOnlyItsOwn(Connection c, String tenant, int turn) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(CHECK)) {
            rs.next();
            boolean set = tenant != null && !tenant.isEmpty();
            assertEquals(set ? ROWS_PER_TENANT : 0, rs.getInt(1), "rows of the tenant set (none if unset), turn " + turn);
            assertEquals(0, rs.getInt(2), "rows of another tenant, turn " + turn);
            String setting = rs.getString(3);
            assertEquals(tenant, tenant == null && "".equals(setting) ? null : setting, "setting, turn " + turn);
        }
        c.commit();
        c.setAutoCommit(true);
    }

    /** One server connection in transaction mode, as the tenant role; with {@code -c app.tenant=<tenant>} unless null. */
    private PgMuxDataSource dataSource(String tenant) {
        PgMuxDataSource ds = new PgMuxDataSource();
        String url = db.jdbcUrl();
        if (tenant != null) {
            url += (url.contains("?") ? "&" : "?") + "options="
                    + URLEncoder.encode("-c app.tenant=" + tenant, StandardCharsets.UTF_8).replace("+", "%20");
        }
        ds.setJdbcUrl(url);
        ds.setUsername(tenantRole.name());
        ds.setPassword(tenantRole.password());
        ds.setMaximumPoolSize(1);
        ds.setPoolMode(PoolMode.TRANSACTION);
        return ds;
    }
}
