package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import io.pgmux.proxy.config.IniFile;
import io.pgmux.proxy.config.ProxyConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * server_tls_sslmode against the real PostgreSQL serving TLS with a certificate from a test CA. The
 * certificate names {@code localhost} only (no IP address), so verify-full accepts it for host localhost and
 * refuses it for host 127.0.0.1, while verify-ca accepts it for either.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerTlsVerificationTest {
    /** Far below query_wait_timeout (120 s): a refused certificate must not leave the client waiting. */
    private static final Duration FAST = Duration.ofSeconds(10);

    private final TestDatabase db;
    private Path directory;
    private TestCertificates authority;
    private Path otherCa;
    private PgMuxProxy proxy;

    ServerTlsVerificationTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void serveTls(@TempDir Path directory) throws Exception {
        this.directory = directory;
        authority = TestCertificates.authority(directory, "pgmux test CA");
        TestCertificates.Issued server = authority.issue("server", "localhost", "dns:localhost");
        otherCa = TestCertificates.authority(Files.createDirectories(directory.resolve("other")), "another CA")
                .caCertificate();
        db.server().enableTls(server.certificate(), server.privateKey());
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void requireEncryptsWithoutCheckingTheCertificate() throws Exception {
        start("127.0.0.1", "require", b -> { });
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void verifyCaAcceptsAChainFromTheCaFileWhateverTheHostName() throws Exception {
        start("127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(authority.caCertificate()));
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void verifyCaWithAnotherCaFailsTheLoginAtOnceWithTheReason() {
        start("127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(otherCa));
        long started = System.nanoTime();
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(FAST) < 0, "failed fast");
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("server login failed: TLS handshake failed (sslmode verify-ca):"
                + " unable to find valid certification path to requested target"), e.getMessage());
    }

    @Test
    void verifyFullAcceptsTheHostNameTheCertificateNames() throws Exception {
        start("localhost", "verify-full", b -> b.serverTlsCaFile(authority.caCertificate()));
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void verifyFullRefusesACertificateThatDoesNotNameTheHost() {
        start("127.0.0.1", "verify-full", b -> b.serverTlsCaFile(authority.caCertificate()));
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("TLS handshake failed (sslmode verify-full): No subject alternative"
                + " names matching IP address 127.0.0.1 found"), e.getMessage());
    }

    @Test
    void iniServerTlsSettingsApplyUnlessTheDatabaseNamesItsOwnSslmode() throws Exception {
        Files.copy(authority.caCertificate(), directory.resolve("root.crt"));
        String server = "host=127.0.0.1 port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser()
                + " password=" + db.superuserPassword();
        IniFile ini = IniFile.parse("[databases]\n"
                + "checked = " + server + "\n"
                + "strict = " + server + " sslmode=verify-full\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\nauth_type = md5\n"
                + "server_tls_sslmode = verify-ca\nserver_tls_ca_file = root.crt\nserver_tls_protocols = secure\n");
        proxy = ProxyConfigLoader.configure(ini, directory)
                .users(java.util.Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .start();
        assertTrue(serverConnectionIsEncrypted("checked"));
        SQLException e = assertThrows(SQLException.class, () -> serverConnectionIsEncrypted("strict"));
        assertTrue(e.getMessage().contains("sslmode verify-full"), e.getMessage());
    }

    private void start(String host, String sslmode, Consumer<PgMuxProxy.Builder> tls) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.database(db.name(), "postgresql://" + db.superuser() + ":" + db.superuserPassword() + "@" + host + ":"
                    + db.port() + "/" + db.name() + "?sslmode=" + sslmode);
            tls.accept(b);
        });
    }

    private boolean serverConnectionIsEncrypted() throws SQLException {
        return serverConnectionIsEncrypted(db.name());
    }

    /** Asks the server whether the pooler's connection to it, which runs the query, uses TLS. */
    private boolean serverConnectionIsEncrypted(String database) throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, database, ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties());
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
