package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.Backends;
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
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * auth_query: a user missing from the auth file is looked up on the server as auth_user (the fixture's
 * superuser, whose password is in the auth file), and logs in with what PostgreSQL stores for it; the pooler's
 * own server logins for that user pass its SCRAM keys through.
 */
@PostgresTest
class AuthQueryTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    AuthQueryTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void scramOnlyServerUserLogsInWithTheVerifierTheQueryReturned() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> { });
        try (Connection c = connect(user.name(), user.password()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            assertEquals(user.name(), rs.getString(1));
        }
        assertTrue(db.countConnections(Backends.ofUser(user.name())) >= 1, "server connections as the user");
    }

    @Test
    void psqlLogsInAsAQueriedUserAndIsRefusedWithAWrongPassword() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> { });
        String url = "postgresql://" + user.name() + ":%s@127.0.0.1:" + proxy.port() + "/" + db.name()
                + "?sslmode=disable";
        Psql.Result good = Psql.run(url.formatted(user.password()), "SELECT current_user");
        assertTrue(good.succeeded(), good.output());
        assertEquals(user.name(), good.output().strip());
        Psql.Result bad = Psql.run(url.formatted("wrong"), "SELECT 1");
        assertFalse(bad.succeeded(), bad.output());
        assertTrue(bad.output().contains("SASL authentication failed"), bad.output());
    }

    @Test
    void wrongPasswordOfAQueriedUserIsRefusedByThePooler() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> { });
        assertEquals("SASL authentication failed", refusal(user.name(), user.password() + "x"));
        assertEquals(0, db.countConnections(Backends.ofUser(user.name())));
    }

    @Test
    void md5ServerUserLogsInByMd5() throws Exception {
        TestUser user = db.createUser(PasswordMethod.MD5);
        start(b -> b.authType(AuthType.MD5));
        try (Connection c = connect(user.name(), user.password())) {
            assertTrue(c.isValid(5));
        }
        assertEquals("password authentication failed", refusal(user.name(), "wrong"));
    }

    @Test
    void userWhosePasswordExpiredIsRefusedAsAnUnknownUserIs() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + user.name() + " VALID UNTIL '2000-01-01'");
        }
        start(b -> { });
        String expired = refusal(user.name(), user.password());
        assertEquals("SASL authentication failed", expired);
        assertEquals(expired, refusal("nosuchuser", "whatever"));
    }

    @Test
    void queryReturningNoRowRefusesTheUserAsUnknown() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_query", "SELECT rolname, rolpassword FROM pg_authid WHERE rolname = $1 AND false"));
        assertEquals("SASL authentication failed", refusal(user.name(), user.password()));
    }

    @Test
    void userTheQueryDoesNotFindUnderTrustIsRefusedWithPgBouncersNoSuchUser() throws Exception {
        start(b -> b.authType(AuthType.TRUST));
        assertEquals("no such user", refusal("nosuchuser", "whatever"));
    }

    @Test
    void queryReturningTwoRowsRefusesTheUserAsUnknown() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_query", "SELECT rolname, rolpassword FROM pg_authid WHERE rolname = $1"
                + " UNION ALL SELECT rolname, rolpassword FROM pg_authid WHERE rolname = $1"));
        assertEquals("SASL authentication failed", refusal(user.name(), user.password()));
    }

    @Test
    void queryReturningANullSecretRefusesTheUserAsUnknown() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_query", "SELECT $1::text, NULL::text"));
        assertEquals("SASL authentication failed", refusal(user.name(), user.password()));
    }

    /**
     * PgBouncer takes a user the query returns with a NULL secret for one that exists and matches no password, so
     * trust lets it in: its suite logs in that way to auth_user databases under client limits.
     */
    @Test
    void underTrustAUserTheQueryReturnsWithANullSecretLogsIn() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.authType(AuthType.TRUST).set("auth_query", "SELECT $1::text, NULL::text")
                .database(db.name(), "postgresql://" + db.superuser() + ":"
                        + URLEncoder.encode(db.superuserPassword(), StandardCharsets.UTF_8) + "@" + db.host() + ":"
                        + db.port() + "/" + db.name() + "?sslmode=disable"));
        try (Connection c = connect(user.name(), ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
        }
    }

    /** PgBouncer looks the user up at each login: the secret the pooler keeps for its server logins follows. */
    @Test
    void aPasswordChangedOnTheServerIsTheOneTheNextLoginNeeds() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> { });
        try (Connection c = connect(user.name(), user.password())) {
            assertTrue(c.isValid(5));
        }
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + user.name() + " PASSWORD 'changed-" + user.password() + "'");
        }
        assertEquals("SASL authentication failed", refusal(user.name(), user.password()));
        try (Connection c = connect(user.name(), "changed-" + user.password()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            assertEquals(user.name(), rs.getString(1), "a new server login with the new secret");
        }
    }

    /** With one server in auth_user's pool, a lookup that kept its server would leave the next one waiting. */
    @Test
    void lookupsOfUnknownAndExpiredUsersGiveTheirServerBackToThePool() throws Exception {
        TestUser expired = db.createUser(PasswordMethod.SCRAM_SHA_256);
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + expired.name() + " VALID UNTIL '2000-01-01'");
        }
        start(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(1)));
        for (int i = 0; i < 3; i++) {
            assertEquals("SASL authentication failed", refusal("nosuchuser" + i, "whatever"), "no row");
            assertEquals("SASL authentication failed", refusal(expired.name(), expired.password()), "a NULL secret");
        }
        try (Connection c = connect(user.name(), user.password())) {
            assertTrue(c.isValid(5));
        }
    }

    @Test
    void failingQueryRefusesWithBouncerConfigError() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_query", "SELECT rolname, rolpassword FROM no_such_table WHERE rolname = $1"));
        assertEquals("bouncer config error", refusal(user.name(), user.password()));
    }

    @Test
    void userNameIsPassedAsALiteralNotAsSql() throws Exception {
        start(b -> { });
        assertEquals("SASL authentication failed", refusal("x' OR true OR '", "whatever"));
    }

    @Test
    void databaseEntrysOwnAuthUserIsUsedWhereNoGlobalOneIsSet() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_user", "").databaseSetting(db.name(), "auth_user", db.superuser()));
        try (Connection c = connect(user.name(), user.password())) {
            assertTrue(c.isValid(5));
        }
    }

    @Test
    void databaseEntrysOwnAuthQueryWinsOverTheGlobalOne() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.databaseSetting(db.name(), "auth_query",
                "SELECT rolname, rolpassword FROM pg_authid WHERE rolname = $1 AND false"));
        assertEquals("SASL authentication failed", refusal(user.name(), user.password()));
    }

    @Test
    void databaseEntrysOwnAuthDbnameWinsOverTheGlobalOne() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_dbname", db.name()).databaseSetting(db.name(), "auth_dbname", "nosuchdb"));
        assertEquals("bouncer config error", refusal(user.name(), user.password()));
    }

    @Test
    void authDbnameNamingNoDatabaseRefusesWithBouncerConfigError() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.set("auth_dbname", "nosuchdb"));
        assertEquals("bouncer config error", refusal(user.name(), user.password()));
    }

    /** The database names no user, so pools log in as the client's user with the secret the query returned. */
    /**
     * The user name of a client that has not logged in is a value of the auth_query: it must never be lexed under
     * the client_encoding and backslash_quote a client of the auth user's pool left on the server connection.
     */
    @Test
    void aUserNameBuiltToBreakOutUnderSjisDoesNotRunItsInsert() throws Exception {
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("DROP TABLE IF EXISTS auth_query_target");
            s.execute("CREATE TABLE auth_query_target (a int)");
        }
        start(b -> b.defaultPoolSize(1));
        String options = "-c%20backslash_quote%3Don%20-c%20standard_conforming_strings%3Doff";
        Psql.Result sjis = Psql.run("postgresql://" + db.superuser() + ":" + db.superuserPassword() + "@127.0.0.1:"
                + proxy.port() + "/" + db.name() + "?sslmode=disable&client_encoding=SJIS&options=" + options,
                "SHOW client_encoding");
        assertTrue(sjis.output().contains("SJIS"), sjis.output());
        try (RawClient attacker = new RawClient(proxy.port())) {
            attacker.startup(Map.of("user", "Á\\';INSERT INTO auth_query_target VALUES(3);--",
                    "database", db.name()));
            attacker.read();
        }
        try (Connection direct = db.connect(); Statement s = direct.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM auth_query_target")) {
            rows.next();
            assertEquals(0, rows.getInt(1));
        }
    }

    /**
     * A client of the auth user's pool may leave a search_path that puts its own now() ahead of pg_catalog's: the
     * auth_query (whose default calls now()) must not run it, as the auth user, for the next login.
     */
    @Test
    void theAuthQueryDoesNotRunFunctionsOfTheSearchPathAClientLeft() throws Exception {
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS hijack CASCADE");
            s.execute("CREATE SCHEMA hijack");
            s.execute("CREATE TABLE hijack.calls (at timestamptz)");
            s.execute("CREATE FUNCTION hijack.now() RETURNS timestamptz LANGUAGE sql"
                    + " AS 'INSERT INTO hijack.calls VALUES (pg_catalog.now()) RETURNING at'");
        }
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        start(b -> b.defaultPoolSize(1));
        try (Connection leaving = connect(db.superuser(), db.superuserPassword());
             Statement s = leaving.createStatement()) {
            s.execute("SET search_path = hijack, pg_catalog");
        }
        connect(user.name(), user.password()).close();
        try (Connection direct = db.connect(); Statement s = direct.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM hijack.calls")) {
            rows.next();
            assertEquals(0, rows.getInt(1), "calls of the client's now() by the auth_query");
        }
    }

    private void start(Consumer<ProxyBuilder> settings) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.database(db.name(), "postgresql://" + db.host() + ":" + db.port() + "/" + db.name()
                            + "?sslmode=disable")
                    .authType(AuthType.SCRAM_SHA_256)
                    .users(Map.of(db.superuser(), db.superuserPassword()))
                    .set("auth_user", db.superuser());
            settings.accept(b);
        });
    }

    private Connection connect(String user, String password) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), user, password, new Properties());
    }

    /** The message of the FATAL 08P01 the login got. */
    private String refusal(String user, String password) {
        SQLException e = assertThrows(SQLException.class, () -> connect(user, password).close());
        assertEquals("08P01", e.getSQLState(), e.getMessage());
        return e.getMessage().replaceFirst("^FATAL: ", "");
    }
}
