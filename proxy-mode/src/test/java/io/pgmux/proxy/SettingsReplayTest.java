package io.pgmux.proxy;

import static io.pgmux.testing.Sql.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ServerConnection;
import java.sql.Connection;
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
 * How a client's settings follow it onto whatever server connection it gets in transaction mode, and stay
 * away from the other clients of that server connection.
 */
@PostgresTest
class SettingsReplayTest {
    private final TestDatabase db;
    /**
     * Transaction mode with one server connection, which every client of a test shares in turn; cleartext
     * passwords, which {@link RawClient} speaks.
     */
    private PgMuxProxy oneServer;

    SettingsReplayTest(TestDatabase db) {
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

    /**
     * The replay is parsed under the settings the previous client left: with standard_conforming_strings off a
     * backslash in a plain literal would be an escape, and the next client's value would lose it.
     */
    @Test
    void aValueWithBackslashesAndQuotesSurvivesAServerLeftWithStandardConformingStringsOff() throws Exception {
        Properties old = new Properties();
        old.setProperty("options", "-c standard_conforming_strings=off");
        Properties quoted = new Properties();
        String name = "back\\slash 'quoted' \\'";
        quoted.setProperty("ApplicationName", name);
        try (Connection escaping = connect(old); Connection next = connect(quoted)) {
            assertEquals("off", show(escaping, "standard_conforming_strings"));
            assertEquals(name, show(next, "application_name"));
            assertEquals("on", show(next, "standard_conforming_strings"));
            assertEquals("off", show(escaping, "standard_conforming_strings"));
        }
    }

    @Test
    void aSettingTheClientSetsDoesNotReachTheNextClientOfItsServer() throws Exception {
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String byDefault = show(other, "statement_timeout");
            execute(setter, "SET statement_timeout = '4321ms'");
            assertEquals(byDefault, show(other, "statement_timeout"));
        }
    }

    /** Tagged SELECT and DO, not SET: the text tells the pooler to read the settings all the same. */
    @ParameterizedTest
    @ValueSource(strings = {"SELECT pg_catalog.set_config('statement_timeout', '4321ms', false)",
            "DO $$BEGIN EXECUTE 'SET statement_timeout = ''4321ms'''; END$$"})
    void aSettingSetUnderAnotherCommandTagFollowsItsClientAndNotTheNext(String set) throws Exception {
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String byDefault = show(other, "statement_timeout");
            execute(setter, set);
            assertEquals(byDefault, show(other, "statement_timeout"));
            assertEquals("4321ms", show(setter, "statement_timeout"));
        }
    }

    /**
     * Inside an open transaction pgjdbc's Parse, Bind, Describe, Execute and Sync reach the linked relay in one read,
     * which forwards them as one run: the settings scan still reads the Parse's text.
     */
    @Test
    void aSettingSetByAFunctionInsideATransactionFollowsItsClientAndNotTheNext() throws Exception {
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String byDefault = show(other, "statement_timeout");
            setter.setAutoCommit(false);
            show(setter, "pg_backend_pid()");
            execute(setter, "SELECT pg_catalog.set_config('statement_timeout', '4321ms', false)");
            setter.commit();
            setter.setAutoCommit(true);
            assertEquals(byDefault, show(other, "statement_timeout"));
            assertEquals("4321ms", show(setter, "statement_timeout"));
        }
    }

    @Test
    void aSettingTheClientSetsFollowsItToAnotherServer() throws Exception {
        try (Connection setter = connect(new Properties())) {
            execute(setter, "SET statement_timeout = '4321ms'");
            execute(setter, "SET search_path = pg_catalog, public");
            replaceTheServer(setter);
            assertEquals("4321ms", show(setter, "statement_timeout"));
            assertEquals("pg_catalog, public", show(setter, "search_path"));
        }
    }

    /** PostgreSQL lists custom settings nowhere: one the client had at startup is followed by name. */
    @Test
    void aCustomSettingFromTheStartupPacketFollowsTheClientWithItsNewValue() throws Exception {
        Properties tenant = new Properties();
        tenant.setProperty("options", "-c app.tenant=1");
        try (Connection c = connect(tenant)) {
            execute(c, "SET app.tenant = '2'");
            replaceTheServer(c);
            assertEquals("2", show(c, "app.tenant"));
        }
    }

    /** On PostgreSQL a RESET returns a setting to the value the startup packet asked for, not the server's default. */
    @Test
    void resetReturnsASettingToItsStartupValue() throws Exception {
        Properties startup = new Properties();
        startup.setProperty("options", "-c statement_timeout=4321 -c search_path=pg_catalog");
        try (Connection c = connect(startup); Connection other = connect(new Properties())) {
            execute(c, "SET statement_timeout = '5s'");
            execute(c, "SET search_path = public");
            execute(c, "RESET statement_timeout");
            execute(c, "RESET search_path");
            show(other, "statement_timeout");
            assertEquals("4321ms", show(c, "statement_timeout"));
            assertEquals("pg_catalog", show(c, "search_path"));
        }
    }

    /** Terminates the backend {@code c} last ran on and waits until the pool has let it go. */
    private void replaceTheServer(Connection c) throws Exception {
        String pid = show(c, "pg_backend_pid()");
        try (Connection direct = db.connect()) {
            execute(direct, "SELECT pg_terminate_backend(" + pid + ", 5000)");
        }
        Pool<ServerConnection> pool = ProxyFixture.pool(oneServer, db);
        Await.value(pool::getTotalConnections, total -> total == 0, Duration.ofSeconds(5));
        assertNotEquals(pid, show(c, "pg_backend_pid()"));
    }

    @Test
    void resetAllForgetsWhatTheClientSetOnEveryLaterServer() throws Exception {
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String byDefault = show(other, "statement_timeout");
            execute(setter, "SET statement_timeout = '4321ms'");
            show(other, "statement_timeout");
            execute(setter, "RESET ALL");
            show(other, "statement_timeout");
            assertEquals(byDefault, show(setter, "statement_timeout"));
        }
    }

    /** psql -c 'SET …' sends Terminate as soon as the SET is answered, often while the proxy reads the settings. */
    @Test
    void aClientLeavingRightAfterASetLeavesItsServerIdleAndClean() throws Exception {
        try (RawClient leaving = RawClient.login(oneServer, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            leaving.query("SET statement_timeout = '4321ms'");
            assertEquals("CZ", RawClient.types(leaving.readUntilReady()));
            leaving.send('X', new byte[0]);
        }
        try (Connection next = connect(new Properties()); Connection direct = db.connect()) {
            assertEquals(show(direct, "statement_timeout"), show(next, "statement_timeout"));
            assertEquals(1, ProxyFixture.pool(oneServer, db).getTotalConnections());
        }
    }

    @Test
    void aSetLocalEndsWithItsTransactionAsOnPostgresql() throws Exception {
        try (Connection c = connect(new Properties())) {
            String byDefault = show(c, "statement_timeout");
            c.setAutoCommit(false);
            execute(c, "SET LOCAL statement_timeout = '4321ms'");
            assertEquals("4321ms", show(c, "statement_timeout"));
            c.commit();
            c.setAutoCommit(true);
            assertEquals(byDefault, show(c, "statement_timeout"));
        }
    }

    /** SET ROLE is not in pg_settings: without following it, the next client of the server would run as the role. */
    @Test
    void aRoleTheClientSetsDoesNotReachTheNextClientOfItsServer() throws Exception {
        String role = createRole();
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String login = show(other, "(current_user)");
            execute(setter, "SET ROLE " + role);
            assertEquals(login, show(other, "(current_user)"));
            assertEquals(role, show(setter, "(current_user)"));
        } finally {
            dropRole(role);
        }
    }

    @Test
    void aRoleTheClientSetsFollowsItToAnotherServer() throws Exception {
        String role = createRole();
        try (Connection setter = connect(new Properties())) {
            execute(setter, "SET ROLE " + role);
            replaceTheServer(setter);
            assertEquals(role, show(setter, "(current_user)"));
        } finally {
            dropRole(role);
        }
    }

    @Test
    void resetRoleGivesTheClientItsLoginRoleOnEveryLaterServer() throws Exception {
        String role = createRole();
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String login = show(other, "(current_user)");
            execute(setter, "SET ROLE " + role);
            execute(setter, "RESET ROLE");
            replaceTheServer(setter);
            assertEquals(login, show(setter, "(current_user)"));
        } finally {
            dropRole(role);
        }
    }

    @Test
    void aSessionAuthorizationFollowsTheClientAndStaysAwayFromTheNextClient() throws Exception {
        String role = createRole();
        try (Connection setter = connect(new Properties()); Connection other = connect(new Properties())) {
            String login = show(other, "(session_user)");
            execute(setter, "SET SESSION AUTHORIZATION " + role);
            assertEquals(login, show(other, "(session_user)"));
            replaceTheServer(setter);
            assertEquals(role, show(setter, "(session_user)"));
            execute(setter, "RESET SESSION AUTHORIZATION");
            assertEquals(login, show(setter, "(session_user)"));
        } finally {
            dropRole(role);
        }
    }

    private String createRole() throws SQLException {
        String role = "replayed_role_" + Long.toHexString(System.nanoTime());
        try (Connection direct = db.connect()) {
            execute(direct, "CREATE ROLE " + role);
        }
        return role;
    }

    private void dropRole(String role) throws SQLException {
        try (Connection direct = db.connect()) {
            execute(direct, "DROP ROLE " + role);
        }
    }

    private Connection connect(Properties props) throws SQLException {
        return ProxyFixture.connect(oneServer, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, props);
    }

    /** SHOW a setting, or SELECT an expression (one with parentheses). */
    private static String show(Connection c, String setting) throws SQLException {
        String sql = (setting.contains("(") ? "SELECT " : "SHOW ") + setting;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
