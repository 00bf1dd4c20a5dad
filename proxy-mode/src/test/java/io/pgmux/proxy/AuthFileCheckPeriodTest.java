package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.SecretVolume;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pgmux's auth_file_check_period: the auth file is read again when it changes, without RELOAD, so that a
 * client's next login uses the new entry; clients logged in stay, and a malformed file leaves the users in
 * effect.
 */
@PostgresTest
class AuthFileCheckPeriodTest {
    private static final String USER = "app";
    private static final String OLD_PASSWORD = "old-secret";
    private static final String NEW_PASSWORD = "new-secret-rotated";
    private static final Duration WAIT = Duration.ofSeconds(15);
    private final TestDatabase db;
    private PgMuxProxy proxy;

    @TempDir
    Path dir;

    AuthFileCheckPeriodTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aChangedAuthFileIsReadAgainAndTheNextLoginUsesTheNewEntry() throws Exception {
        start("auth_file_check_period = 0.2\n");
        try (Connection before = login(OLD_PASSWORD)) {
            ProxyFixture.writeUserlist(dir, USER, NEW_PASSWORD);
            Await.until(() -> logsIn(NEW_PASSWORD), WAIT, "a login with the new entry's password");
            SQLException refused = assertThrows(SQLException.class, () -> login(OLD_PASSWORD).close());
            assertTrue(refused.getMessage().contains("password authentication failed"),
                    "the old password is refused from then on: " + refused.getMessage());
            assertEquals("1", Sql.value(before, "SELECT 1"), "the client logged in before stays");
        }
    }

    @Test
    void anAuthFileInASecretVolumeIsReadAgainWhenTheVolumeIsUpdated() throws Exception {
        Path volumeDir = Files.createDirectory(dir.resolve("secret"));
        SecretVolume volume = new SecretVolume(volumeDir, Map.of("userlist.txt", entry(OLD_PASSWORD)));
        start("auth_file = " + volume.file("userlist.txt") + "\nauth_file_check_period = 0.2\n");
        login(OLD_PASSWORD).close();

        volume.update(Map.of("userlist.txt", entry(NEW_PASSWORD)));
        Await.until(() -> logsIn(NEW_PASSWORD), WAIT, "a login with the updated volume's password");
    }

    @Test
    void aMalformedAuthFileLeavesTheUsersInEffect() throws Exception {
        start("auth_file_check_period = 0.2\n");
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + NEW_PASSWORD + "\n");
        // several periods: the malformed file was looked at and refused
        Thread.sleep(1_000);
        login(OLD_PASSWORD).close();

        ProxyFixture.writeUserlist(dir, USER, NEW_PASSWORD);
        Await.until(() -> logsIn(NEW_PASSWORD), WAIT, "the corrected file read");
    }

    private void start(String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, USER, OLD_PASSWORD);
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), db.name() + " = host=" + db.host() + " port=" + db.port()
                + " dbname=" + db.name() + " user=" + db.superuser() + " password=" + db.superuserPassword(), 0,
                "unix_socket_dir =\n" + settings);
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
    }

    private static String entry(String password) {
        return "\"" + USER + "\" \"" + password + "\"\n";
    }

    private Connection login(String password) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), USER, password, new Properties());
    }

    private boolean logsIn(String password) {
        try (Connection c = login(password)) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
