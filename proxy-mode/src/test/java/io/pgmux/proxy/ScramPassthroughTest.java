package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.ScramSecret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The auth file holds only the server's SCRAM verifier for a user and the database names no password: the
 * pooler logs in to PostgreSQL with the keys the client's own SCRAM login gave away (PgBouncer's passthrough).
 */
@PostgresTest
class ScramPassthroughTest {
    private final TestDatabase db;
    private TestUser user;
    private PgMuxProxy proxy;

    ScramPassthroughTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void createUser() {
        user = db.createUser(PasswordMethod.SCRAM_SHA_256);
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void rightPasswordLogsInToTheServerWithTheClientsScramKeys(@TempDir Path dir) throws Exception {
        start(AuthType.SCRAM_SHA_256, dir, serverVerifier());
        try (Connection c = connect(user.password()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            assertEquals(user.name(), rs.getString(1));
            assertTrue(db.countConnections(Backends.ofUser(user.name())) >= 1, "server connections as the user");
        }
    }

    @Test
    void wrongPasswordIsRefusedByThePoolerWithoutAServerLogin(@TempDir Path dir) throws Exception {
        start(AuthType.SCRAM_SHA_256, dir, serverVerifier());
        SQLException e = assertThrows(SQLException.class, () -> connect(user.password() + "x"));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("SASL authentication failed"), e.getMessage());
        assertEquals(0, proxy.registry().find(db.name(), user.name()).map(Pool::getTotalConnections).orElse(0));
        assertEquals(0, db.countConnections(Backends.ofUser(user.name())));
        // No failed server login is remembered (server_login_retry), so the right password works at once.
        try (Connection c = connect(user.password())) {
            assertTrue(c.isValid(5));
        }
    }

    @Test
    void verifierWithAnotherSaltFailsTheServerLoginNamingTheCause(@TempDir Path dir) throws Exception {
        String ours = ScramSecret.generate(user.password(), 4096, new SecureRandom()).encoded();
        start(AuthType.SCRAM_SHA_256, dir, ours);
        SQLException e = assertThrows(SQLException.class, () -> connect(user.password()));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("server login failed: SCRAM passthrough impossible: the server's verifier"
                + " has another salt than the auth file's"), e.getMessage());
        assertEquals(0, db.countConnections(Backends.ofUser(user.name())));
    }

    @Test
    void clientThatLogsInWithoutScramLeavesNoKeysSoTheServerLoginFails(@TempDir Path dir) throws Exception {
        start(AuthType.PLAIN, dir, serverVerifier());
        SQLException e = assertThrows(SQLException.class, () -> connect(user.password()));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("server login failed: wrong password type"), e.getMessage());
    }

    /** What PostgreSQL stores for the user, read as a superuser, as an operator would copy it. */
    private String serverVerifier() throws SQLException {
        try (Connection c = db.connect();
             PreparedStatement s = c.prepareStatement("SELECT rolpassword FROM pg_authid WHERE rolname = ?")) {
            s.setString(1, user.name());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                String verifier = rs.getString(1);
                assertTrue(verifier.startsWith("SCRAM-SHA-256$"), "a SCRAM user's rolpassword");
                return verifier;
            }
        }
    }

    /** The database entry names host, port and dbname only, so logins use the client's user and secret. */
    private void start(AuthType authType, Path dir, String secret) throws Exception {
        Path userlist = dir.resolve("userlist.txt");
        Files.writeString(userlist, "\"" + user.name() + "\" \"" + secret + "\"\n");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .database(db.name(), "postgresql://" + db.host() + ":" + db.port() + "/" + db.name()
                        + "?sslmode=disable")
                .authType(authType)
                .authFile(userlist));
    }

    private Connection connect(String password) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), user.name(), password, new Properties());
    }
}
