package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.SecretVolume;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pgmux's server_password_file and server_password_command, of a [databases] entry or of [pgbouncer]: the server
 * password is read at each new server login, without RELOAD, while the connections logged in already keep
 * working; one that cannot be read fails the login with PgBouncer's error and leaves no backend behind.
 */
@PostgresTest
class ServerPasswordSourceTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private final TestDatabase db;
    private final TestUser user;
    private PgMuxProxy proxy;

    @TempDir
    Path dir;

    ServerPasswordSourceTest(TestDatabase db) {
        this.db = db;
        this.user = db.createUser(PasswordMethod.SCRAM_SHA_256);
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void anEntrysServerPasswordFileIsReadAgainAtTheNextServerLogin() throws Exception {
        SecretVolume volume = new SecretVolume(dir, Map.of("password", user.password()));
        proxy = start(" server_password_file=" + volume.file("password"), "");
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            int oldServer = backendPid(first);

            String rotated = user.password() + "-rotated";
            volume.update(Map.of("password", rotated));
            alterPassword(rotated);

            second.setAutoCommit(false);
            int newServer = backendPid(second);
            assertNotEquals(oldServer, newServer, "the second client needed a server of its own");
            assertEquals(user.name(), usename(newServer), "the new server logged in with the rotated password");
            assertEquals(oldServer, backendPid(first), "the server logged in before the rotation still serves");
            first.commit();
            second.commit();
        }
    }

    @Test
    void aGlobalServerPasswordCommandsOutputIsKeptForItsCacheTime() throws Exception {
        Path password = Files.writeString(dir.resolve("password"), user.password() + "\n");
        Path runs = dir.resolve("runs");
        proxy = start("", "server_password_command = echo run >> " + runs + "; cat " + password + "\n"
                + "server_password_command_cache_time = 600\n");
        List<Connection> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Connection c = connect();
                c.setAutoCommit(false);
                backendPid(c);
                clients.add(c);
            }
            assertEquals(3, backendsOfUser(), "three server logins");
            assertEquals(List.of("run"), Files.readAllLines(runs), "the command ran once for the three");
        } finally {
            for (Connection c : clients) {
                c.close();
            }
        }
    }

    @Test
    void aMissingServerPasswordFileFailsTheLoginWithPgBouncersErrorUntilTheFileIsThere() throws Exception {
        Path password = dir.resolve("password");
        proxy = start(" server_password_file=" + password, "server_login_retry = 1\n");
        String log = logOf(() -> {
            SQLException refused = assertThrows(SQLException.class, () -> connectAndQuery());
            assertEquals("08P01", refused.getSQLState());
            assertEquals("server login failed: server password could not be read",
                    refused.getMessage().replaceFirst("^FATAL: ", ""));
        });
        assertTrue(log.contains("server_password_file " + password + " cannot be read (NoSuchFileException)"),
                "the log names the key and the file: " + log);
        assertEquals(0, backendsOfUser(), "no backend left behind");

        Files.writeString(password, user.password());
        Await.until(() -> {
            try {
                connectAndQuery();
                return true;
            } catch (SQLException e) {
                return false;
            }
        }, WAIT, "a login once the file is there, without RELOAD");
    }

    @Test
    void aFailingServerPasswordCommandFailsTheLoginWithPgBouncersError() throws Exception {
        proxy = start(" server_password_command='echo no token >&2; exit 3'", "");
        String log = logOf(() -> {
            SQLException refused = assertThrows(SQLException.class, () -> connectAndQuery());
            assertEquals("08P01", refused.getSQLState());
            assertEquals("server login failed: server password could not be read",
                    refused.getMessage().replaceFirst("^FATAL: ", ""));
        });
        assertTrue(log.contains("server_password_command 'echo no token >&2; exit 3' exited with status 3: no token"),
                "the log names the key, the command and its error: " + log);
        assertEquals(0, backendsOfUser(), "no backend left behind");
    }

    @Test
    void anEntryWithPasswordAndAServerPasswordFileIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> start(" password=x server_password_file=/nowhere", ""));
        assertTrue(e.getMessage().contains("database " + db.name() + ": password and server_password_file cannot be"
                + " used together"), e.getMessage());
    }

    @Test
    void bothGlobalServerPasswordSourcesAreRefusedAtTheSecondOnesLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> start("", "server_password_file = /nowhere\nserver_password_command = cat /nowhere\n"));
        assertTrue(e.getMessage().startsWith("line 7: server_password_file and server_password_command cannot be"
                + " used together"), e.getMessage());
    }

    /** A proxy whose entry logs in as the test's user ({@code user=}) with {@code entryKeys}. */
    private PgMuxProxy start(String entryKeys, String settings) {
        String ini = "[databases]\n" + db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname="
                + db.name() + " user=" + user.name() + entryKeys
                + "\n[pgbouncer]\npool_mode = transaction\ndefault_pool_size = 4\n" + settings;
        return ProxyConfigLoader.configure(IniFile.parse(ini), dir)
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(2)
                .start();
    }

    private Connection connect() throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, new Properties());
    }

    private void connectAndQuery() throws SQLException {
        try (Connection c = connect()) {
            backendPid(c);
        }
    }

    /** What the proxy logged (slf4j-simple writes to stderr) while {@code action} ran. */
    private static String logOf(Runnable action) {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(stderr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        stderr.print(log);
        return log;
    }

    private void alterPassword(String password) throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("SET password_encryption = 'scram-sha-256'");
            st.execute("ALTER ROLE " + user.name() + " PASSWORD '" + password + "'");
        }
    }

    private String usename(int pid) throws SQLException {
        try (Connection admin = db.connect();
             PreparedStatement st = admin.prepareStatement("SELECT usename FROM pg_stat_activity WHERE pid = ?")) {
            st.setInt(1, pid);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private int backendsOfUser() throws SQLException {
        try (Connection admin = db.connect();
             PreparedStatement st = admin.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE usename = ? AND datname = current_database()")) {
            st.setString(1, user.name());
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
