package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * max_db_client_connections and max_user_client_connections, global and per entry, on a proxy started from a
 * pgbouncer.ini in front of a real server: the client over a limit gets PgBouncer's FATAL, SHOW DATABASES and SHOW
 * USERS show the limits and the counts, RELOAD changes them.
 */
@PostgresTest
class ClientLimitsTest {
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final String BATCH = "batch";
    private static final String BATCH_PASSWORD = "batch-secret";
    private static final String DB_FULL = "FATAL 08P01: client connections exceeded (max_db_client_connections)";
    private static final String USER_FULL = "FATAL 08P01: client connections exceeded (max_user_client_connections)";

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    ClientLimitsTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void theGlobalLimitRefusesTheClientOverItInEachDatabase() throws Exception {
        proxy = start("one = " + target() + "\ntwo = " + target() + "\n", "max_db_client_connections = 2\n");
        try (Connection a = connect("one", ProxyFixture.USER); Connection b = connect("one", ProxyFixture.USER)) {
            assertEquals(DB_FULL, refusal(() -> connect("one", ProxyFixture.USER)));
            try (Connection other = connect("two", ProxyFixture.USER)) {
                assertTrue(other.isValid(5), "another database counts its own clients");
            }
        }
    }

    @Test
    void aDatabasesOwnLimitWinsOverTheGlobalOneAndMinusOneLeavesTheGlobalOne() throws Exception {
        proxy = start("own = " + target() + " max_db_client_connections=1\nglobal = " + target()
                + " max_db_client_connections=-1\n", "max_db_client_connections = 3\n");
        try (Connection a = connect("own", ProxyFixture.USER)) {
            assertEquals(DB_FULL, refusal(() -> connect("own", ProxyFixture.USER)));
        }
        try (Connection a = connect("global", ProxyFixture.USER); Connection b = connect("global", ProxyFixture.USER);
             Connection c = connect("global", ProxyFixture.USER)) {
            assertEquals(DB_FULL, refusal(() -> connect("global", ProxyFixture.USER)));
        }
    }

    @Test
    void aUsersLimitCountsItsClientsAcrossDatabases() throws Exception {
        proxy = start("one = " + target() + "\ntwo = " + target() + "\n",
                "max_user_client_connections = 5\n[users]\n" + BATCH + " = max_user_client_connections=2\n");
        try (Connection a = connect("one", BATCH); Connection b = connect("two", BATCH)) {
            assertEquals(USER_FULL, refusal(() -> connect("one", BATCH)));
            try (Connection other = connect("one", ProxyFixture.USER)) {
                assertTrue(other.isValid(5), "another user counts its own clients");
            }
        }
    }

    @Test
    void aClientThatLeftFreesItsSlot() throws Exception {
        proxy = start("one = " + target() + "\n", "max_db_client_connections = 1\n");
        try (Connection a = connect("one", ProxyFixture.USER)) {
            assertEquals(DB_FULL, refusal(() -> connect("one", ProxyFixture.USER)));
        }
        awaitNoClients("one");
        try (Connection again = connect("one", ProxyFixture.USER)) {
            assertTrue(again.isValid(5));
        }
    }

    @Test
    void psqlOverTheLimitPrintsPgBouncersMessage() throws Exception {
        proxy = start("one = " + target() + "\n", "[users]\n" + BATCH + " = max_user_client_connections=1\n");
        try (Connection a = connect("one", BATCH)) {
            Psql.Result psql = Psql.run("host=127.0.0.1 port=" + proxy.port() + " dbname=one user=" + BATCH
                    + " password=" + BATCH_PASSWORD, "SELECT 1");
            assertFalse(psql.succeeded(), psql.output());
            assertTrue(psql.output().contains("FATAL:  client connections exceeded (max_user_client_connections)"),
                    psql.output());
        }
    }

    @Test
    void aUsersEntryWithSpacesAroundItsEqualsSignsIsTakenAsPgBouncerTakesIt() throws Exception {
        proxy = start("one = " + target() + "\n", "[users]\n" + BATCH + " = max_user_client_connections = 1\n");
        try (Connection a = connect("one", BATCH)) {
            assertEquals(USER_FULL, refusal(() -> connect("one", BATCH)));
        }
    }

    @Test
    void showDatabasesAndUsersShowTheLimitsInForceAndTheClientsCounted() throws Exception {
        proxy = start("own = " + target() + " max_db_client_connections=4\nglobal = " + target() + "\n",
                "max_db_client_connections = 7\nmax_user_client_connections = 8\n[users]\n" + BATCH
                        + " = max_user_client_connections=3\n");
        try (Connection a = connect("own", BATCH); Connection b = connect("own", ProxyFixture.USER)) {
            Map<String, String> own = row("SHOW DATABASES", "own");
            assertEquals("4", own.get("max_client_connections"));
            assertEquals("2", own.get("current_client_connections"));
            assertEquals("7", row("SHOW DATABASES", "global").get("max_client_connections"));
            assertEquals("7", row("SHOW DATABASES", "pgbouncer").get("max_client_connections"));
            Map<String, String> batch = row("SHOW USERS", BATCH);
            assertEquals("3", batch.get("max_user_client_connections"));
            assertEquals("1", batch.get("current_client_connections"));
            assertEquals("8", row("SHOW USERS", ADMIN).get("max_user_client_connections"));
            assertEquals("1", row("SHOW USERS", ADMIN).get("current_client_connections"), "the console itself");
        }
    }

    /** As in PgBouncer: only admin users, who raise the limits, reach the console past them. */
    @Test
    void aStatsUsersConsoleSessionsAreHeldToTheClientLimitsAndAnAdminsAreNot() throws Exception {
        proxy = start("one = " + target() + "\n", "max_db_client_connections = 1\nstats_users = " + BATCH + "\n"
                + "[users]\n" + BATCH + " = max_user_client_connections=2\n");
        try (Connection stats = console(BATCH)) {
            assertEquals(DB_FULL, refusal(() -> console(BATCH)));
            try (Connection admin = console(ADMIN); Connection again = console(ADMIN)) {
                assertTrue(admin.isValid(5) && again.isValid(5), "an admin user's sessions past the limit");
            }
        }
        writeIni("one = " + target() + "\n", "stats_users = " + BATCH + "\n[users]\n" + BATCH
                + " = max_user_client_connections=2\n");
        proxy.reload();
        try (Connection client = connect("one", BATCH); Connection stats = console(BATCH)) {
            assertEquals(USER_FULL, refusal(() -> console(BATCH)));
        }
    }

    private Connection console(String user) throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, "pgbouncer", user, user.equals(BATCH) ? BATCH_PASSWORD : ADMIN_PASSWORD,
                simple);
    }

    @Test
    void reloadLowersALimitForNewClientsAndKeepsThoseConnected() throws Exception {
        proxy = start("one = " + target() + "\n", "");
        try (Connection a = connect("one", ProxyFixture.USER); Connection b = connect("one", ProxyFixture.USER)) {
            writeIni("one = " + target() + " max_db_client_connections=1\n", "");
            proxy.reload();
            assertEquals(DB_FULL, refusal(() -> connect("one", ProxyFixture.USER)));
            assertTrue(a.isValid(5) && b.isValid(5), "clients already in keep their place");
            assertEquals("1", row("SHOW DATABASES", "one").get("max_client_connections"));
        }
        writeIni("one = " + target() + "\n", "max_user_client_connections = 1\n");
        proxy.reload();
        try (Connection a = connect("one", ProxyFixture.USER)) {
            assertEquals(USER_FULL, refusal(() -> connect("one", ProxyFixture.USER)));
        }
    }

    @Test
    void aBadValueIsAConfigErrorNamingTheKey() {
        IllegalArgumentException global = assertThrows(IllegalArgumentException.class,
                () -> start("one = " + target() + "\n", "max_db_client_connections = many\n"));
        assertTrue(global.getMessage().contains("max_db_client_connections must be a whole number, not \"many\""),
                global.getMessage());
        IllegalArgumentException entry = assertThrows(IllegalArgumentException.class,
                () -> start("one = " + target() + " max_db_client_connections=-5\n", ""));
        assertTrue(entry.getMessage().contains("database one: max_db_client_connections must be 0 or more, not -5"),
                entry.getMessage());
        IllegalArgumentException user = assertThrows(IllegalArgumentException.class,
                () -> start("one = " + target() + "\n", "[users]\n" + BATCH + " = max_user_client_connections=x\n"));
        assertTrue(user.getMessage().contains("user batch: max_user_client_connections must be a whole number, not"
                + " \"x\""), user.getMessage());
    }

    private PgMuxProxy start(String databases, String settings) throws Exception {
        return ProxyConfigLoader.load(writeIni(databases, settings)).start();
    }

    /** {@code settings} may end with a [users] section. */
    private Path writeIni(String databases, String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD, BATCH, BATCH_PASSWORD, ADMIN,
                ADMIN_PASSWORD);
        return ProxyFixture.writeIni(dir.resolve("pgbouncer.ini"), databases, proxy == null ? 0 : proxy.port(),
                "unix_socket_dir =\nadmin_users = " + ADMIN + "\npool_mode = transaction\n" + settings);
    }

    private String target() {
        return "host=" + db.host() + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser()
                + " password='" + db.superuserPassword() + "'";
    }

    private Connection connect(String database, String user) throws SQLException {
        Connection c = ProxyFixture.connect(proxy, database, user, user.equals(BATCH) ? BATCH_PASSWORD
                : ProxyFixture.PASSWORD, new Properties());
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
        return c;
    }

    @FunctionalInterface
    private interface Login {
        Connection open() throws SQLException;
    }

    /** What the refused login saw: severity, SQLSTATE and message. */
    private static String refusal(Login login) {
        PSQLException e = assertThrows(PSQLException.class, () -> login.open().close());
        return e.getServerErrorMessage().getSeverity() + " " + e.getSQLState() + ": "
                + e.getServerErrorMessage().getMessage();
    }

    /** The proxy counts a client out when it sees its connection close, which may come after close() returns. */
    private void awaitNoClients(String database) {
        Await.equal("0", () -> row("SHOW DATABASES", database).get("current_client_connections"),
                Duration.ofSeconds(10), "the clients of " + database + " counted");
    }

    private Map<String, String> row(String command, String name) throws SQLException {
        return ProxyFixture.row(proxy, ADMIN, ADMIN_PASSWORD, command, name);
    }
}
