package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import io.pgmux.proxy.auth.AuthType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Client authentication against an auth file, and server logins by SCRAM. */
@PostgresTest
class AuthTest {
    private static final String MD5_OF_PENCIL_FOR_ALICE = "md5" + md5Hex("pencil" + "alice");

    private final TestDatabase db;
    private PgMuxProxy proxy;

    AuthTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private void start(AuthType type, Path authFile) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(type).authFile(authFile));
    }

    private static Path userlist(Path dir) throws Exception {
        Path file = dir.resolve("userlist.txt");
        Files.writeString(file, "\"alice\" \"" + MD5_OF_PENCIL_FOR_ALICE + "\"\n\"bob\" \"builder\"\n");
        return file;
    }

    @Test
    void md5LoginWithAnMd5HashInTheAuthFile(@TempDir Path dir) throws Exception {
        start(AuthType.MD5, userlist(dir));
        assertEquals(1, selectOne("alice", "pencil"));
    }

    @Test
    void scramLoginWithAPlaintextPasswordInTheAuthFile(@TempDir Path dir) throws Exception {
        start(AuthType.SCRAM_SHA_256, userlist(dir));
        assertEquals(1, selectOne("bob", "builder"));
    }

    @Test
    void plainLogin(@TempDir Path dir) throws Exception {
        start(AuthType.PLAIN, userlist(dir));
        assertEquals(1, selectOne("bob", "builder"));
    }

    @Test
    void aPasswordLongerThanPostgresqlsAuthTokenLimitIsRefusedAsAWrongPassword(@TempDir Path dir) throws Exception {
        start(AuthType.PLAIN, userlist(dir));
        // PgBouncer's MAX_PASSWORD: its PasswordMessage is one byte over PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH
        SQLException e = assertThrows(SQLException.class, () -> selectOne("bob", "b".repeat(65_531)));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("password authentication failed"), e.getMessage());
    }

    @Test
    void trustAcceptsAnyPasswordOfAListedUser(@TempDir Path dir) throws Exception {
        start(AuthType.TRUST, userlist(dir));
        assertEquals(1, selectOne("bob", "whatever"));
    }

    @Test
    void wrongPasswordIsRefusedWithPgBouncersError(@TempDir Path dir) throws Exception {
        start(AuthType.MD5, userlist(dir));
        SQLException e = assertThrows(SQLException.class, () -> selectOne("alice", "crayon"));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("password authentication failed"), e.getMessage());
    }

    @Test
    void unknownUserIsRefusedLikeAWrongPassword(@TempDir Path dir) throws Exception {
        start(AuthType.SCRAM_SHA_256, userlist(dir));
        SQLException e = assertThrows(SQLException.class, () -> selectOne("mallory", "pencil"));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("SASL authentication failed"), e.getMessage());
    }

    @Test
    void serverLoginBySCRAMWithTheConfiguredPassword() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        proxy = PgMuxProxy.builder().listen("127.0.0.1", 0)
                .database("scram", "postgresql://" + user.name() + ":" + user.password() + "@" + db.host() + ":"
                        + db.port() + "/" + db.name())
                .poolMode(PoolMode.TRANSACTION)
                .authType(AuthType.TRUST).users(java.util.Map.of("carol", ""))
                .threads(1)
                .start();
        try (Connection c = ProxyFixture.connect(proxy, "scram", "carol", "", new Properties());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            assertEquals(user.name(), rs.getString(1));
        }
    }

    @Test
    void serverLoginAsTheClientUserWithItsSecretFromTheAuthFile(@TempDir Path dir) throws Exception {
        TestUser user = db.createUser(PasswordMethod.MD5);
        Path file = dir.resolve("userlist.txt");
        Files.writeString(file, "\"" + user.name() + "\" \"" + user.password() + "\"\n");
        proxy = PgMuxProxy.builder().listen("127.0.0.1", 0)
                .database("direct", "postgresql://" + db.host() + ":" + db.port() + "/" + db.name())
                .authType(AuthType.SCRAM_SHA_256).authFile(file)
                .threads(1)
                .start();
        try (Connection c = ProxyFixture.connect(proxy, "direct", user.name(), user.password(), new Properties());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            assertEquals(user.name(), rs.getString(1));
        }
    }

    private int selectOne(String user, String password) throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, db.name(), user, password, new Properties());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String md5Hex(String s) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("MD5")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
