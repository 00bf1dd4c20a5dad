package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The state-isolation test: two tenants under a row-level-security policy keyed on the custom setting
 * {@code app.tenant}, clients of both sharing one server connection in transaction mode, each way of setting the
 * tenant (SET, SET SESSION, set_config(…, false), startup {@code -c}) in use at once beside a client that sets none,
 * and 10,000 transactions that alternate between all of them: no client ever sees a row of another tenant, and none
 * ever loses its setting.
 */
@PostgresTest
class TenantIsolationTest {
    private static final int TRANSACTIONS = 10_000;
    private static final int ROWS_PER_TENANT = 3;
    private static final List<String> WAYS = List.of("SET app.tenant = '%s'", "SET SESSION app.tenant TO '%s'",
            "SELECT pg_catalog.set_config('app.tenant', '%s', false)", "startup");

    private final TestDatabase db;
    private TestUser owner;
    private PgMuxProxy oneServer;

    TenantIsolationTest(TestDatabase db) {
        this.db = db;
    }

    /** The policy binds the proxy's server login, a plain role: a superuser would bypass it. */
    @BeforeEach
    void start() throws SQLException {
        owner = db.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("DROP TABLE IF EXISTS tenant_rows");
            s.execute("CREATE TABLE tenant_rows (tenant text NOT NULL, secret text NOT NULL)");
            s.execute("INSERT INTO tenant_rows SELECT t, t || '-secret-' || i FROM unnest(ARRAY['a', 'b']) t,"
                    + " generate_series(1, " + ROWS_PER_TENANT + ") i");
            s.execute("ALTER TABLE tenant_rows ENABLE ROW LEVEL SECURITY");
            s.execute("CREATE POLICY tenant_only ON tenant_rows USING (tenant = current_setting('app.tenant', true))");
            s.execute("GRANT SELECT ON tenant_rows TO " + owner.name());
        }
        oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1)
                .database(db.name(), "postgresql://" + owner.name() + ":" + owner.password() + "@" + db.host() + ":"
                        + db.port() + "/" + db.name()));
    }

    @AfterEach
    void stop() {
        if (oneServer != null) {
            oneServer.close();
        }
    }

    @Test
    void tenThousandAlternatingTransactionsSeeOnlyTheirTenantsRows() throws Exception {
        List<Tenant> clients = new ArrayList<>();
        try {
            for (String way : WAYS) {
                clients.add(new Tenant("a", way));
                clients.add(new Tenant("b", way));
            }
            clients.add(new Tenant(null, null));
            int otherTenantRows = 0;
            int settingsLost = 0;
            int ownRowsMissing = 0;
            Random random = new Random(29);
            for (int i = 0; i < TRANSACTIONS; i++) {
                Tenant client = clients.get(i % clients.size());
                if (random.nextInt(10) == 0) {
                    // as an application that sets the tenant at the start of a request, now and then
                    client.set();
                }
                try (ResultSet row = client.query.executeQuery()) {
                    row.next();
                    String tenant = row.getString(1);
                    int a = row.getInt(2);
                    int b = row.getInt(3);
                    if (client.name == null) {
                        settingsLost += tenant == null || tenant.isEmpty() ? 0 : 1;
                        otherTenantRows += a + b;
                    } else {
                        settingsLost += client.name.equals(tenant) ? 0 : 1;
                        otherTenantRows += client.name.equals("a") ? b : a;
                        ownRowsMissing += ROWS_PER_TENANT - (client.name.equals("a") ? a : b);
                    }
                }
            }
            assertEquals(0, otherTenantRows, "rows of the other tenant seen");
            assertEquals(0, settingsLost, "transactions that found another app.tenant than their client's");
            assertEquals(0, ownRowsMissing, "own rows not seen");
        } finally {
            for (Tenant client : clients) {
                client.connection.close();
            }
        }
    }

    /** One client of one tenant, which sets its tenant the given way; or of none (null), which sets nothing. */
    private final class Tenant {
        final String name;
        final Connection connection;
        final PreparedStatement query;
        /** The statement that sets the tenant; null for the startup packet's and for none. */
        final String set;

        Tenant(String name, String way) throws SQLException {
            this.name = name;
            Properties properties = new Properties();
            if ("startup".equals(way)) {
                properties.setProperty("options", "-c app.tenant=" + name);
            }
            connection = ProxyFixture.connect(oneServer, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                    properties);
            this.set = name == null || "startup".equals(way) ? null : way.formatted(name);
            set();
            query = connection.prepareStatement("SELECT pg_catalog.current_setting('app.tenant', true),"
                    + " count(*) FILTER (WHERE tenant = 'a'), count(*) FILTER (WHERE tenant = 'b') FROM tenant_rows");
        }

        void set() throws SQLException {
            if (set != null) {
                try (Statement s = connection.createStatement()) {
                    s.execute(set);
                }
            }
        }
    }
}
