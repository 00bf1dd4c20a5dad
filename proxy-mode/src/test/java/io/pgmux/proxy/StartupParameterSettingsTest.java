package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PgBouncer's ignore_startup_parameters and application_name_add_host, seen from the server's side. */
@PostgresTest
class StartupParameterSettingsTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    StartupParameterSettingsTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private static String setting(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet row = s.executeQuery("SELECT current_setting('" + name + "')")) {
            row.next();
            return row.getString(1);
        }
    }

    @Test
    void anIgnoredStartupParameterNeverReachesTheServer() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.set("ignore_startup_parameters", "extra_float_digits, search_path"));
        Properties asked = new Properties();
        asked.setProperty("currentSchema", "nowhere");
        try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, asked);
             Connection direct = db.connect()) {
            assertEquals(setting(direct, "search_path"), setting(c, "search_path"), "the server's own search_path");
        }
    }

    @Test
    void aStartupParameterNotIgnoredReachesTheServer() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("ignore_startup_parameters", "extra_float_digits"));
        Properties asked = new Properties();
        asked.setProperty("currentSchema", "nowhere");
        try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, asked)) {
            assertEquals("nowhere", setting(c, "search_path"));
        }
    }

    /** A raw client: pgjdbc sets application_name again after the login, as it does behind PgBouncer. */
    @Test
    void applicationNameAddHostAddsTheClientsAddressAsPgBouncerWritesIt() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("application_name_add_host", "1")
                .authType(AuthType.TRUST).users(Map.of("raw", "")));
        try (RawClient client = new RawClient(proxy.port())) {
            client.startup(Map.of("user", "raw", "database", db.name(), "application_name", "report"));
            client.readUntilReady();
            client.query("SELECT current_setting('application_name')");
            String name = RawClient.firstColumn(client.readUntilReady());
            assertTrue(name.matches("report - 127\\.0\\.0\\.1:\\d+"), name);
        }
    }
}
