package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Startup settings seen from the server's side: applied on every server connection the client gets, or refused at
 * login with PostgreSQL's own error; PgBouncer's ignore_startup_parameters and application_name_add_host.
 */
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

    /**
     * Only a setting no server of the pool has taken is tried at login: the server's own values and any
     * application_name need no server, so a client logs in while every server is lent.
     */
    @Test
    void aLoginAskingForTheServersValuesOrAnApplicationNameNeedsNoFreeServer() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
        try (Connection holder = ProxyFixture.connect(proxy, db)) {
            holder.setAutoCommit(false);
            setting(holder, "search_path");
            try (RawClient plain = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
                    RawClient named = new RawClient(proxy.port())) {
                named.login(db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                        Map.of("application_name", "a name no login used"));
            }
            holder.commit();
        }
    }

    /** As PostgreSQL reports it when a client connects directly: DateStyle=ISO is welcomed as "ISO, MDY". */
    @Test
    void aStartupSettingIsWelcomedInTheServersSpelling() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.TRUST).users(Map.of("raw", "")));
        try (RawClient client = new RawClient(proxy.port())) {
            client.startup(Map.of("user", "raw", "database", db.name(), "DateStyle", "ISO"));
            assertEquals(directDateStyle(), reported(client.readUntilReady(), "DateStyle"));
        }
    }

    /**
     * DateStyle=ISO, which pgjdbc sends at every login, is spelt otherwise by the server: once a login of the pool
     * was welcomed with it, the next ones are welcomed at once, rather than each waiting for a free server to try it
     * on again.
     */
    @Test
    void aSettingTheServerSpellsOtherwiseIsTriedOnlyByThePoolsFirstLoginWithIt() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1).authType(AuthType.TRUST)
                .users(Map.of("raw", "")));
        Map<String, String> iso = Map.of("user", "raw", "database", db.name(), "DateStyle", "ISO");
        try (RawClient first = new RawClient(proxy.port())) {
            first.startup(iso);
            first.readUntilReady();
        }
        try (RawClient holder = new RawClient(proxy.port()); RawClient next = new RawClient(proxy.port())) {
            holder.startup(iso);
            holder.readUntilReady();
            holder.query("BEGIN");
            holder.readUntilReady();
            next.readTimeout(5_000);
            next.startup(iso);
            assertEquals(directDateStyle(), reported(next.readUntilReady(), "DateStyle"),
                    "the welcome while no server is free");
        }
    }

    private String directDateStyle() throws SQLException {
        try (Connection direct = db.connect()) {
            return direct.unwrap(PGConnection.class).getParameterStatus("DateStyle");
        }
    }

    private static String reported(List<RawClient.Message> welcome, String name) {
        for (RawClient.Message m : welcome) {
            String[] nameAndValue = new String(m.body(), StandardCharsets.UTF_8).split("\0");
            if (m.type() == 'S' && nameAndValue[0].equals(name)) {
                return nameAndValue[1];
            }
        }
        return null;
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

    /** default_transaction_read_only is a reported parameter, which the proxy echoed and never set. */
    @Test
    void aReadOnlyStartupSettingMakesEverySessionReadOnlyAsDirect() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
        Properties readOnly = new Properties();
        readOnly.setProperty("options", "-c default_transaction_read_only=on");
        try (Connection direct = direct(readOnly); Statement d = direct.createStatement();
             Connection proxied = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                     readOnly);
             Connection other = ProxyFixture.connect(proxy, db);
             Statement p = proxied.createStatement(); Statement o = other.createStatement()) {
            o.execute("CREATE TABLE IF NOT EXISTS read_only_target (a int)");
            assertEquals(setting(direct, "default_transaction_read_only"),
                    setting(proxied, "default_transaction_read_only"));
            SQLException directly = assertThrows(SQLException.class,
                    () -> d.execute("INSERT INTO read_only_target VALUES (1)"));
            SQLException throughProxy = assertThrows(SQLException.class,
                    () -> p.execute("INSERT INTO read_only_target VALUES (1)"));
            assertEquals(directly.getSQLState(), throughProxy.getSQLState());
            assertEquals("off", setting(other, "default_transaction_read_only"), "the next client of its server");
            o.execute("INSERT INTO read_only_target VALUES (2)");
        }
    }

    /** PostgreSQL refuses these at login with FATAL; the proxy says the same instead of welcoming and dropping them. */
    @ParameterizedTest
    @ValueSource(strings = {"-c is_superuser=on", "-c server_version=1", "-c session_authorization=no_such_role",
            "-c no_such_setting=1", "-c default_transaction_isolation=sideways", "-c DateStyle=bogus"})
    void aStartupSettingPostgresqlRefusesIsRefusedAtLoginWithItsError(String options) throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
        Properties asked = new Properties();
        asked.setProperty("options", options);
        SQLException directly = assertThrows(SQLException.class, () -> direct(asked).close());
        SQLException throughProxy = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db.name(),
                ProxyFixture.USER, ProxyFixture.PASSWORD, asked).close());
        assertEquals(directly.getSQLState(), throughProxy.getSQLState(), () -> throughProxy.getMessage());
        assertEquals(directly.getMessage(), throughProxy.getMessage());
    }

    /** Directly as the superuser the proxy's servers log in as, with the same startup settings. */
    private Connection direct(Properties settings) throws SQLException {
        Properties properties = new Properties();
        properties.putAll(settings);
        properties.setProperty("user", db.superuser());
        properties.setProperty("password", db.superuserPassword());
        return DriverManager.getConnection(db.jdbcUrl(), properties);
    }
}
