package io.pgmux.proxy;

import static io.pgmux.testing.Sql.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Custom settings ({@code prefix.name}), which PostgreSQL lists nowhere, follow their client in transaction mode
 * like built-in ones and never reach another client of its server connection: the multi-tenant pattern of a
 * row-level-security policy on {@code current_setting('app.tenant')}.
 */
@PostgresTest
class CustomSettingsTest {
    private final TestDatabase db;
    /** Transaction mode with one server connection, which every client of a test shares in turn. */
    private PgMuxProxy oneServer;

    CustomSettingsTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1).authType(AuthType.PLAIN));
    }

    @AfterEach
    void stop() {
        oneServer.close();
    }

    /** Each way of setting it for the session, {@code %s} standing for the value. */
    @ParameterizedTest
    @ValueSource(strings = {"SET app.tenant = '%s'", "SET SESSION app.tenant TO '%s'",
            "SELECT pg_catalog.set_config('app.tenant', '%s', false)", "set /* the tenant */ \"app\" . Tenant = '%s'",
            "SELECT 1; SET app.tenant = '%s'", "DO $$BEGIN EXECUTE 'SET app.tenant = ''%s'''; END$$"})
    void aCustomSettingDoesNotReachTheNextClientOfItsServer(String set) throws Exception {
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            execute(setter, set.formatted("secret-of-B"));
            String seen = tenant(other);
            assertTrue(seen == null || seen.isEmpty(), "the next client saw " + seen);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET app.tenant = '%s'", "SET SESSION app.tenant TO '%s'",
            "SELECT pg_catalog.set_config('app.tenant', '%s', false)", "set /* the tenant */ \"app\" . Tenant = '%s'"})
    void aCustomSettingFollowsItsClientToAnotherServer(String set) throws Exception {
        try (Connection setter = connect(new Properties())) {
            execute(setter, set.formatted("tenant-b"));
            replaceTheServer(setter);
            assertEquals("tenant-b", tenant(setter));
        }
    }

    /** pgjdbc's server-prepared statements: after the fifth run only Bind and Execute name the statement. */
    @Test
    void aPreparedSetConfigRunAgainFollowsItsClient() throws Exception {
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties());
             PreparedStatement set = setter.prepareStatement("SELECT pg_catalog.set_config('app.tenant', ?, false)")) {
            for (int i = 0; i < 8; i++) {
                set.setString(1, "tenant-" + i);
                set.executeQuery().close();
                String seen = tenant(other);
                assertTrue(seen == null || seen.isEmpty(), "the next client saw " + seen);
                assertEquals("tenant-" + i, tenant(setter));
            }
        }
    }

    @Test
    void resetReturnsACustomSettingToItsStartupValue() throws Exception {
        Properties startup = new Properties();
        startup.setProperty("options", "-c app.tenant=from-startup");
        try (Connection c = connect(startup); Connection other = connect(new Properties())) {
            execute(c, "SET app.tenant = 'changed'");
            execute(c, "RESET app.tenant");
            tenant(other);
            assertEquals("from-startup", tenant(c));
        }
    }

    /** As PostgreSQL's: DISCARD ALL resets every setting, a startup one to its startup value. */
    @ParameterizedTest
    @ValueSource(strings = {"DISCARD ALL", "RESET ALL"})
    void resettingEverySettingReturnsACustomOneToItsStartupValue(String reset) throws Exception {
        Properties startup = new Properties();
        startup.setProperty("options", "-c app.tenant=from-startup");
        try (Connection c = connect(startup); Connection other = connect(new Properties())) {
            execute(c, "SET app.tenant = 'changed'");
            execute(c, reset);
            assertEquals("from-startup", tenant(c));
            tenant(other);
            assertEquals("from-startup", tenant(c));
        }
    }

    /**
     * A name the text does not show cannot be followed: the client keeps its server, and the server is cleaned
     * before anyone else gets it.
     */
    @Test
    void aSettingNamedOnlyAtRunTimeKeepsItsClientOnItsServerAndNeverReachesTheNextClient() throws Exception {
        try (Connection setter = connect(new Properties())) {
            try (PreparedStatement set = setter.prepareStatement("SELECT pg_catalog.set_config(?, ?, false)")) {
                set.setString(1, "app.tenant");
                set.setString(2, "secret-of-B");
                set.executeQuery().close();
            }
            assertEquals("secret-of-B", tenant(setter));
            assertEquals("secret-of-B", tenant(setter));
        }
        try (Connection next = connect(new Properties())) {
            assertNotEquals("secret-of-B", tenant(next));
        }
    }

    private static String tenant(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_catalog.current_setting('app.tenant', true)")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Terminates the backend {@code c} last ran on and waits until the pool has let it go. */
    private void replaceTheServer(Connection c) throws Exception {
        String pid;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_backend_pid()")) {
            rs.next();
            pid = rs.getString(1);
        }
        try (Connection direct = db.connect()) {
            execute(direct, "SELECT pg_terminate_backend(" + pid + ", 5000)");
        }
        Pool<ServerConnection> pool = ProxyFixture.pool(oneServer, db);
        Await.value(pool::getTotalConnections, total -> total == 0, Duration.ofSeconds(5));
    }

    private Connection connect(Properties props) throws SQLException {
        return ProxyFixture.connect(oneServer, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, props);
    }
}
