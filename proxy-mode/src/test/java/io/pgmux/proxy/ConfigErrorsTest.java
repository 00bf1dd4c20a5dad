package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * Configuration a running proxy refuses on the admin console, by RELOAD of a file it cannot use or by SET of a
 * value out of range: the error names file, line and what is wrong, and the running configuration is kept.
 */
@PostgresTest
class ConfigErrorsTest {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final String SECRET = "s3cr3t-Pa55";

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    ConfigErrorsTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aStartRefusedForItsHbaFileLeavesNoJanitorRunning() {
        Set<Thread> before = janitors();
        RuntimeException refused = assertThrows(RuntimeException.class,
                () -> start("auth_type = hba\nauth_hba_file = " + dir.resolve("missing_hba.conf")));
        assertTrue(refused.getMessage().contains("missing_hba.conf"), refused.getMessage());
        Set<Thread> left = janitors();
        left.removeAll(before);
        assertEquals(Set.of(), left);
    }

    /** The pool janitors' threads alive now. */
    private static Set<Thread> janitors() {
        Set<Thread> janitors = new HashSet<>();
        Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("pgmux-janitor") && t.isAlive())
                .forEach(janitors::add);
        return janitors;
    }

    @Test
    void reloadOfAnAuthFileByteThatIsNotUtf8NamesTheAuthFileAndItsLineAndKeepsItsUsers() throws Exception {
        start("");
        try (Connection console = console()) {
            Path users = dir.resolve("userlist.txt");
            Files.write(users, ("\"" + USER + "\" \"" + PASSWORD + "\"\n\"" + ADMIN + "\" \"" + ADMIN_PASSWORD
                    + "\"\n\"b\u00f6b\" \"x\"\n").getBytes(StandardCharsets.ISO_8859_1));
            String detail = reloadRefused(console);
            assertTrue(detail.endsWith("auth_file " + users + " line 3: byte 0xF6 at column 3 is not UTF-8 (the file"
                    + " must be UTF-8)"), detail);
        }
        try (Connection c = client()) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
        }
    }

    @Test
    void setAuthFileToAFileWithAByteThatIsNotUtf8NamesItsLineAndKeepsTheUsers() throws Exception {
        start("");
        Path other = dir.resolve("other.txt");
        Files.write(other, "\"caf\u00e9\" \"x\"\n".getBytes(StandardCharsets.ISO_8859_1));
        try (Connection console = console()) {
            assertEquals("auth_file " + other + " line 1: byte 0xE9 at column 5 is not UTF-8 (the file must be UTF-8)",
                    setRefused(console, "SET auth_file = '" + other + "'"));
        }
        try (Connection c = client()) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
        }
    }

    @Test
    void reloadOfTheAdminConsoleAsGlobalAuthDbnameIsRefusedWithPgBouncersWordsAndKeepsTheRunningSettings()
            throws Exception {
        start("auth_dbname = " + db.name() + "\n");
        try (Connection console = console()) {
            writeIni("auth_dbname = pgbouncer\n");
            String detail = reloadRefused(console);
            assertTrue(detail.endsWith("cannot use the reserved \"pgbouncer\" database as an auth_dbname"), detail);
            assertEquals(db.name(), config(console, "auth_dbname"));
        }
    }

    @Test
    void reloadOfAMisspelledSectionNamesItsLineAndKeepsTheRunningSettings() throws Exception {
        start("default_pool_size = 4\n");
        try (Connection console = console()) {
            Path ini = dir.resolve("pgmux.ini");
            Files.writeString(ini, Files.readString(ini).replace("[pgbouncer]", "[pgbouncr]")
                    .replace("default_pool_size = 4", "default_pool_size = 7"));
            String detail = reloadRefused(console);
            assertEquals(ini + " line 3: unknown section [pgbouncr] (did you mean [pgbouncer]?): a pgbouncer.ini has"
                    + " [pgbouncer], [databases], [users] and [peers]", detail);
            assertEquals("4", config(console, "default_pool_size"));
        }
    }

    @Test
    void reloadOfAnUnclosedQuoteNamesTheDatabaseAndKeyAndKeepsTheDatabase() throws Exception {
        start("");
        try (Connection console = console()) {
            Path ini = dir.resolve("pgmux.ini");
            Files.writeString(ini, Files.readString(ini).replace("password=", "password='"));
            String detail = reloadRefused(console);
            assertEquals(ini + " line 2: database " + db.name() + ": the quoted value of password has no closing"
                    + " quote (a quote inside is written twice: '')", detail);
        }
        try (Connection c = client()) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
        }
    }

    @Test
    void reloadOfAConnectionUriEntryShowsNoPasswordInItsDetail() throws Exception {
        start("");
        try (Connection console = console()) {
            Path ini = dir.resolve("pgmux.ini");
            Files.writeString(ini, Files.readString(ini).replace("[pgbouncer]", "other = postgresql://"
                    + db.superuser() + ":" + SECRET + "@" + db.host() + ":" + db.port() + "/" + db.name()
                    + "\n[pgbouncer]"));
            String detail = reloadRefused(console);
            assertTrue(detail.startsWith(ini + " line 3: database other: a connection URI is not taken here"), detail);
            assertFalse(detail.contains(SECRET), detail);
        }
    }

    @Test
    void setMaxPacketSizeBelowWhatALoginNeedsIsRefusedAndTheConsoleStaysReachable() throws Exception {
        start("");
        try (Connection console = console()) {
            for (String value : List.of("1", "0")) {
                assertEquals("max_packet_size must be 1024 or more, not " + value + ": a smaller limit refuses the"
                        + " messages of every login, the admin console's too",
                        setRefused(console, "SET max_packet_size = " + value));
            }
            assertEquals("2147483647", config(console, "max_packet_size"));
        }
        try (Connection again = console(); Connection c = client()) {
            assertEquals("2147483647", config(again, "max_packet_size"));
            assertEquals("1", Sql.value(c, "SELECT 1"));
        }
    }

    @Test
    void setStatsPeriodOfZeroIsRefusedWithTheReason() throws Exception {
        start("");
        try (Connection console = console()) {
            assertEquals("stats_period must be 1 second or more, not 0: it is how often the averages are computed"
                    + " and logged", setRefused(console, "SET stats_period = 0"));
            assertEquals("60", config(console, "stats_period"));
        }
    }

    @Test
    void setLogfileToAKernelFileIsRefusedWithTheReason() throws Exception {
        start("");
        try (Connection console = console()) {
            assertEquals("logfile must be a regular file or one not made yet, not /proc/self/mem: it is a file of the"
                    + " kernel's proc file system", setRefused(console, "SET logfile = '/proc/self/mem'"));
            assertEquals("", config(console, "logfile"));
        }
    }

    /** Every SHOW view, with a client and its server connection open, shows no password of the ini or the auth_file. */
    @Test
    void noShowCommandPrintsAPasswordOfTheIniOrTheAuthFile() throws Exception {
        TestUser server = db.createUser(PasswordMethod.SCRAM_SHA_256);
        ProxyFixture.writeUserlist(dir, USER, PASSWORD, ADMIN, ADMIN_PASSWORD);
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), db.name() + " = host=" + db.host() + " port=" + db.port()
                + " dbname=" + db.name() + " user=" + server.name() + " password=" + server.password(), 0,
                "unix_socket_dir =\nadmin_users = " + ADMIN + "\n");
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).start();
        try (Connection c = client(); Connection console = console()) {
            c.setAutoCommit(false);
            assertEquals("1", Sql.value(c, "SELECT 1"));
            for (String view : List.of("POOLS", "STATS", "STATS_TOTALS", "STATS_AVERAGES", "TOTALS", "CLIENTS",
                    "SERVERS", "DATABASES", "USERS", "LISTS", "CONFIG", "VERSION", "STATE", "FDS", "SOCKETS",
                    "ACTIVE_SOCKETS", "MEM", "PINS", "PEERS", "PEER_POOLS")) {
                String shown = ProxyFixture.rows(console, "SHOW " + view).toString();
                for (String secret : List.of(server.password(), PASSWORD, ADMIN_PASSWORD)) {
                    assertFalse(shown.contains(secret), "SHOW " + view + " shows a password: " + shown);
                }
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private void start(String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, USER, PASSWORD, ADMIN, ADMIN_PASSWORD);
        writeIni(settings);
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
    }

    private void writeIni(String settings) throws Exception {
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), database(), 0, "unix_socket_dir =\nadmin_users = " + ADMIN
                + "\n" + settings);
    }

    private String database() {
        return db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name() + " user="
                + db.superuser() + " password=" + db.superuserPassword();
    }

    /** RELOAD, refused with PgBouncer's error: its DETAIL. */
    private static String reloadRefused(Connection console) {
        PSQLException e = assertThrows(PSQLException.class, () -> console.createStatement().execute("RELOAD"));
        assertEquals("F0000", e.getSQLState());
        return e.getServerErrorMessage().getDetail();
    }

    /** SET, refused with PgBouncer's {@code SET failed}: its DETAIL. */
    private static String setRefused(Connection console, String set) {
        PSQLException e = assertThrows(PSQLException.class, () -> console.createStatement().execute(set));
        assertEquals("SET failed", e.getServerErrorMessage().getMessage());
        return e.getServerErrorMessage().getDetail();
    }

    private static String config(Connection console, String key) throws SQLException {
        return ProxyFixture.rows(console, "SHOW CONFIG").stream().filter(r -> key.equals(r.get("key")))
                .map(r -> r.get("value")).findFirst().orElseThrow(() -> new AssertionError("no setting " + key));
    }

    private Connection client() throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), USER, PASSWORD, new Properties());
    }

    private Connection console() throws SQLException {
        return ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD);
    }
}
