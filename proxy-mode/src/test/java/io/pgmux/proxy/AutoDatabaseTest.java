package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * The {@code *} fallback database (PgBouncer's auto-databases) on a proxy started from a pgbouncer.ini, with psql
 * and pgjdbc: a database [databases] does not list is made from the {@code *} entry under the name asked for,
 * shown by SHOW DATABASES, dropped after autodb_idle_timeout unused, and moved to a changed entry by RELOAD.
 */
@PostgresTest
class AutoDatabaseTest {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestDatabase db;
    /** A second database of the server, which no [databases] entry names. */
    private final String other;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    AutoDatabaseTest(TestDatabase db) {
        this.db = db;
        this.other = db.name() + "_other";
    }

    @BeforeEach
    void createOtherDatabase() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + other);
        }
    }

    @AfterEach
    void stop() throws SQLException {
        if (proxy != null) {
            proxy.close();
        }
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + other + " WITH (FORCE)");
        }
    }

    @Test
    void anUnlistedDatabaseIsMadeFromTheStarEntryUnderTheNameAskedFor() throws Exception {
        start(starEntry("") + " pool_size=3", "");
        Psql.Result psql = Psql.run(psqlUrl(other), "SELECT current_database()");
        assertTrue(psql.succeeded(), psql.output());
        assertEquals(other, psql.output().strip());
        try (Connection c = connect(db.name())) {
            assertEquals(db.name(), currentDatabase(c));
        }
        try (Connection console = console()) {
            Map<String, Map<String, String>> rows = databaseRows(console);
            assertFalse(rows.containsKey("*"), rows.toString());
            assertEquals(other, rows.get(other).get("database"));
            assertEquals(db.name(), rows.get(db.name()).get("database"));
            // the * entry's pool settings are the auto-database's
            assertEquals("3", rows.get(other).get("pool_size"));
        }
    }

    @Test
    void aStarEntryWithADbnameSendsEveryAutoDatabaseThere() throws Exception {
        start(starEntry(" dbname=" + db.name()), "");
        try (Connection c = connect("anything")) {
            assertEquals(db.name(), currentDatabase(c));
        }
        try (Connection console = console()) {
            assertEquals(db.name(), databaseRows(console).get("anything").get("database"));
        }
    }

    @Test
    void withoutAStarEntryAnUnlistedDatabaseIsRefusedWithPgBouncersText() throws Exception {
        start(db.name() + " = host=" + db.host() + " port=" + db.port() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), "");
        Psql.Result psql = Psql.run(psqlUrl(other), "SELECT 1");
        assertFalse(psql.succeeded(), psql.output());
        assertTrue(psql.output().contains("FATAL:  no such database: " + other), psql.output());
        PSQLException e = assertThrows(PSQLException.class, () -> connect(other).close());
        assertEquals("08P01", e.getSQLState());
        assertEquals("no such database: " + other, e.getServerErrorMessage().getMessage());
    }

    @Test
    void anAutoDatabaseUnusedForAutodbIdleTimeoutIsDropped() throws Exception {
        start(starEntry(""), "autodb_idle_timeout = 1\nserver_idle_timeout = 1\n");
        try (Connection console = console()) {
            try (Connection c = connect(other)) {
                assertEquals(other, currentDatabase(c));
                assertTrue(databaseRows(console).containsKey(other), "listed while in use");
            }
            Await.until(() -> poolRows(console).stream().noneMatch(r -> other.equals(r.get("database"))),
                    WAIT, "the auto-database dropped with its pools");
            assertFalse(databaseRows(console).containsKey(other));
        }
        // asked for again, it is made anew
        try (Connection c = connect(other)) {
            assertEquals(other, currentDatabase(c));
        }
    }

    @Test
    void reloadOfAChangedStarEntryMovesItsAutoDatabasesToIt() throws Exception {
        start(starEntry(" dbname=" + db.name()), "");
        try (Connection c = connect(other); Connection console = console()) {
            assertEquals(db.name(), currentDatabase(c));
            writeIni(starEntry(""), "");
            console.createStatement().execute("RELOAD");
            // transaction mode: the next transaction gets a server of the changed entry
            Await.until(() -> other.equals(currentDatabase(c)), WAIT, "the auto-database on its own name");
            assertEquals(other, databaseRows(console).get(other).get("database"));
        }
    }

    @Test
    void reloadListingAnAutoDatabasesNameMakesItThatEntrys() throws Exception {
        start(starEntry(""), "");
        try (Connection c = connect(other); Connection console = console()) {
            assertEquals(other, currentDatabase(c));
            writeIni(starEntry("") + "\n" + other + " = host=" + db.host() + " port=" + db.port() + " dbname="
                    + db.name() + " user=" + db.superuser() + " password=" + db.superuserPassword(), "");
            console.createStatement().execute("RELOAD");
            Await.until(() -> db.name().equals(currentDatabase(c)), WAIT, "the listed entry's database");
            assertEquals(db.name(), databaseRows(console).get(other).get("database"));
        }
    }

    @Test
    void setAutodbIdleTimeoutDropsAnAutoDatabaseUnusedForTheNewTimeout() throws Exception {
        start(starEntry(""), "autodb_idle_timeout = 3600\nserver_idle_timeout = 1\n");
        try (Connection console = console()) {
            try (Connection c = connect(other)) {
                assertEquals(other, currentDatabase(c));
            }
            console.createStatement().execute("SET autodb_idle_timeout = 1");
            Await.until(() -> !databaseRows(console).containsKey(other), WAIT, "the auto-database dropped");
        }
    }

    // ---------------------------------------------------------------- helpers

    private String starEntry(String extra) {
        return "* = host=" + db.host() + " port=" + db.port() + " user=" + db.superuser() + " password="
                + db.superuserPassword() + extra;
    }

    private void start(String databases, String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, USER, PASSWORD, ADMIN, ADMIN_PASSWORD);
        writeIni(databases, settings);
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
    }

    private void writeIni(String databases, String settings) throws Exception {
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), databases, 0,
                "unix_socket_dir =\nadmin_users = " + ADMIN + "\npool_mode = transaction\n" + settings);
    }

    private String psqlUrl(String database) {
        return "postgresql://" + USER + ":" + PASSWORD + "@127.0.0.1:" + proxy.port() + "/" + database
                + "?sslmode=disable";
    }

    private Connection connect(String database) throws SQLException {
        return ProxyFixture.connect(proxy, database, USER, PASSWORD, new Properties());
    }

    private Connection console() throws SQLException {
        return ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD);
    }

    private static String currentDatabase(Connection c) throws SQLException {
        return Sql.value(c, "SELECT current_database()");
    }

    private static Map<String, Map<String, String>> databaseRows(Connection console) {
        Map<String, Map<String, String>> byName = new HashMap<>();
        try {
            ProxyFixture.rows(console, "SHOW DATABASES").forEach(r -> byName.put(r.get("name"), r));
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        return byName;
    }

    private static List<Map<String, String>> poolRows(Connection console) {
        try {
            return ProxyFixture.rows(console, "SHOW POOLS");
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
