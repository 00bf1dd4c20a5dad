package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.ServerCertificates;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TlsRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.util.PSQLException;

/**
 * server_tls_sslmode and the other server_tls_* settings against the fixture's PostgreSQL with TLS: TLS 1.3
 * only, a certificate from a test CA that names {@code localhost} only (so verify-full accepts it for host
 * localhost and refuses it for 127.0.0.1, while verify-ca accepts either), and pg_hba.conf lines that let
 * each kind of {@link TlsRule} user in over TLS only, plain TCP only, or with a client certificate.
 */
@PostgresTest(tls = true)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerTlsTest {
    /**
     * query_wait_timeout for the servers whose TLS handshake fails: their clients wait for them as for a server
     * that is down, this long rather than the default 120 s.
     */
    private static final Duration QUERY_WAIT = Duration.ofSeconds(2);
    /** How long a test waits for a log line or for a client to get in. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private final ServerCertificates certificates;
    private Path directory;
    private Path otherCa;
    private PgMuxProxy proxy;

    ServerTlsTest(TestDatabase db) {
        this.db = db;
        this.certificates = db.server().certificates();
    }

    @BeforeAll
    void otherAuthority(@TempDir Path directory) throws Exception {
        this.directory = directory;
        otherCa = TestCertificates.authority(Files.createDirectories(directory.resolve("other")), "another CA")
                .caCertificate();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void allowLogsInInPlainTextWhenTheServerLetsItIn() throws Exception {
        start(db.superuser(), "127.0.0.1", "allow", b -> { });
        assertFalse(serverConnectionIsEncrypted());
    }

    @Test
    void allowLogsInOverTlsWhenTheServerRefusesPlainText() throws Exception {
        start(db.createUser(TlsRule.TLS_ONLY), "127.0.0.1", "allow", b -> { });
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void preferUsesTlsWhenTheServerServesIt() throws Exception {
        start(db.superuser(), "127.0.0.1", "prefer", b -> { });
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void preferGivesTheServersRefusalOfATlsLoginWithoutTryingPlainText() {
        String user = db.createUser(TlsRule.PLAIN_ONLY);
        start(user, "127.0.0.1", "prefer", b -> { });
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("28000", e.getSQLState());
        assertTrue(e.getMessage().contains("pg_hba.conf rejects connection for host \"127.0.0.1\", user \"" + user
                + "\", database \"" + db.name() + "\", SSL encryption"), e.getMessage());
    }

    @Test
    void requireEncryptsWithoutCheckingTheCertificate() throws Exception {
        start(db.superuser(), "127.0.0.1", "require", b -> b.serverTlsCaFile(otherCa));
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void verifyCaAcceptsAChainFromTheCaFileWhateverTheHostName() throws Exception {
        start(db.superuser(), "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate()));
        assertTrue(serverConnectionIsEncrypted());
    }

    /** As in PgBouncer, a server whose certificate fails the check is waited for as one that is down. */
    @Test
    void aClientWaitsForAServerWhoseCertificateFailsVerifyCaUntilQueryWaitTimeout() {
        start(db.superuser(), "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(otherCa).queryWaitTimeout(QUERY_WAIT));
        PSQLException e = assertThrows(PSQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("08P01", e.getSQLState());
        assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
    }

    @Test
    void aCertificateFromAnotherCaIsLoggedAsOpenSslsCertificateVerifyFailedWithTheJdksReason() {
        start(db.superuser(), "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(otherCa).queryWaitTimeout(QUERY_WAIT));
        try (CapturedLog log = CapturedLog.start()) {
            assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
            assertTrue(log.text().contains("server login failed: TLS handshake failed (sslmode verify-ca): certificate"
                    + " verify failed: unable to find valid certification path to requested target"), log.text());
        }
    }

    @Test
    void aClientWaitingForAServerWhoseCertificateFailedGetsInOnceReloadTrustsItsCa() throws Exception {
        Files.writeString(directory.resolve("reload.txt"), "\"" + ProxyFixture.USER + "\" \"" + ProxyFixture.PASSWORD
                + "\"\n");
        Path ini = directory.resolve("reload.ini");
        String settings = "[databases]\n" + db.name() + " = host=127.0.0.1 port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + "\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\n"
                + "auth_type = md5\nauth_file = reload.txt\nadmin_users = " + ProxyFixture.USER + "\n"
                + "server_tls_sslmode = verify-ca\n";
        Files.writeString(ini, settings + "server_tls_ca_file = " + otherCa + "\n");
        proxy = ProxyConfigLoader.load(ini).start();
        try (CapturedLog log = CapturedLog.start()) {
            CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return serverConnectionIsEncrypted();
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            });
            Await.until(() -> log.text().contains("certificate verify failed"), WAIT, "a login that failed the check");
            assertFalse(waiting.isDone(), "the client waits");
            Files.writeString(ini, settings + "server_tls_ca_file = " + certificates.caCertificate() + "\n");
            setOnConsole("RELOAD");
            assertTrue(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void aNewClientGetsInOnceSetServerTlsCaFileTrustsTheServersCa() throws Exception {
        start(db.superuser(), "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(otherCa).queryWaitTimeout(QUERY_WAIT)
                .adminUsers(ProxyFixture.USER));
        assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        setOnConsole("SET server_tls_ca_file = '" + certificates.caCertificate() + "'");
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void verifyFullAcceptsTheHostNameTheCertificateNames() throws Exception {
        start(db.superuser(), certificates.certifiedHost(), "verify-full",
                b -> b.serverTlsCaFile(certificates.caCertificate()));
        assertTrue(serverConnectionIsEncrypted());
    }

    @Test
    void verifyFullRefusesACertificateThatDoesNotNameTheHostAsCertificateVerifyFailed() {
        start(db.superuser(), "127.0.0.1", "verify-full", b -> b.serverTlsCaFile(certificates.caCertificate())
                .queryWaitTimeout(QUERY_WAIT));
        try (CapturedLog log = CapturedLog.start()) {
            PSQLException e = assertThrows(PSQLException.class, () -> ProxyFixture.connect(proxy, db));
            assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
            assertTrue(log.text().contains("TLS handshake failed (sslmode verify-full): certificate verify failed: No"
                    + " subject alternative names matching IP address 127.0.0.1 found"), log.text());
        }
    }

    @Test
    void theClientCertificateLogsInToACertRule() throws Exception {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        TestCertificates.Issued certificate = certificates.clientCertificate(user);
        start(user, "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate())
                .serverTlsClientCertificate(certificate.certificate(), certificate.privateKey()));
        assertEquals("/CN=" + user, query("SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @ParameterizedTest
    @EnumSource(names = {"PKCS1_RSA", "SEC1_EC_AFTER_PARAMETERS", "SEC1_EC", "PKCS8_RSA", "PKCS8_EC"})
    void aClientCertificateLogsInToACertRuleWithItsKeyIn(KeyForm form) throws Exception {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        Path key = form.write(directory.resolve(user + ".key"));
        Path certificate = certificates.clientCertificate(user, KeyForm.request(key, user,
                directory.resolve(user + ".csr")));
        start(user, "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate())
                .serverTlsClientCertificate(certificate, key));
        assertEquals("/CN=" + user, query("SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @Test
    void adminSetOfAClientCertificateWithAPkcs1KeyLogsInToACertRule() throws Exception {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        Path key = KeyForm.PKCS1_RSA.write(directory.resolve(user + ".key"));
        Path certificate = certificates.clientCertificate(user, KeyForm.request(key, user,
                directory.resolve(user + ".csr")));
        start(user, "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate())
                .adminUsers(ProxyFixture.USER));
        setOnConsole("SET server_tls_cert_file = '" + certificate + "'");
        setOnConsole("SET server_tls_key_file = '" + key + "'");
        assertEquals("/CN=" + user, query("SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @Test
    void reloadOfAClientCertificateWithASec1KeyLogsInToACertRule() throws Exception {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        Path key = KeyForm.SEC1_EC_AFTER_PARAMETERS.write(directory.resolve(user + ".key"));
        Path certificate = certificates.clientCertificate(user, KeyForm.request(key, user,
                directory.resolve(user + ".csr")));
        Files.writeString(directory.resolve(user + ".txt"), "\"" + ProxyFixture.USER + "\" \""
                + ProxyFixture.PASSWORD + "\"\n");
        Path ini = directory.resolve(user + ".ini");
        String settings = "[databases]\n" + db.name() + " = host=127.0.0.1 port=" + db.port() + " dbname="
                + db.name() + " user=" + user + "\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\n"
                + "auth_type = md5\nauth_file = " + user + ".txt\nadmin_users = " + ProxyFixture.USER + "\n"
                + "server_tls_sslmode = verify-ca\nserver_tls_ca_file = " + certificates.caCertificate() + "\n";
        Files.writeString(ini, settings);
        proxy = ProxyConfigLoader.load(ini).start();
        Files.writeString(ini, settings + "server_tls_cert_file = " + certificate + "\nserver_tls_key_file = " + key
                + "\n");
        setOnConsole("RELOAD");
        assertEquals("/CN=" + user, query("SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @Test
    void anEncryptedServerTlsKeyFileIsRefusedAtStartNamingTheSettingAndTheFile() {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        TestCertificates.Issued certificate = certificates.clientCertificate(user);
        Path key = KeyForm.ENCRYPTED_PKCS8.write(directory.resolve(user + ".key"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> start(user, "127.0.0.1",
                "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate())
                        .serverTlsClientCertificate(certificate.certificate(), key)));
        assertEquals("cannot use server_tls_key_file " + key + ": the key is encrypted (BEGIN ENCRYPTED PRIVATE"
                + " KEY) and pgmux, like PgBouncer, has no setting for its passphrase: store it unencrypted, e.g."
                + " openssl pkey -in " + key + " -out <new file>", e.getMessage());
    }

    @Test
    void aServerTlsKeyFileThatIsNotTheCertificatesKeyIsRefusedAtStart() {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        TestCertificates.Issued certificate = certificates.clientCertificate(user);
        TestCertificates.Issued someoneElse = certificates.clientCertificate(db.createUser(TlsRule.CLIENT_CERTIFICATE));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> start(user, "127.0.0.1",
                "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate())
                        .serverTlsClientCertificate(certificate.certificate(), someoneElse.privateKey())));
        assertEquals("server_tls_key_file " + someoneElse.privateKey() + " is not the key of the certificate in"
                + " server_tls_cert_file " + certificate.certificate(), e.getMessage());
    }

    @Test
    void withoutAClientCertificateACertRuleRefusesTheLogin() {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        start(user, "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate()));
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("28000", e.getSQLState());
        assertTrue(e.getMessage().contains("connection requires a valid client certificate"), e.getMessage());
    }

    @Test
    void aCertificateForAnotherUserIsRefused() {
        String user = db.createUser(TlsRule.CLIENT_CERTIFICATE);
        TestCertificates.Issued someoneElse = certificates.clientCertificate(db.createUser(TlsRule.CLIENT_CERTIFICATE));
        start(user, "127.0.0.1", "verify-ca", b -> b.serverTlsCaFile(certificates.caCertificate())
                .serverTlsClientCertificate(someoneElse.certificate(), someoneElse.privateKey()));
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("28000", e.getSQLState());
        assertTrue(e.getMessage().contains("certificate authentication failed for user \"" + user + "\""),
                e.getMessage());
    }

    @Test
    void protocolsTheServerDoesNotSpeakKeepTheClientWaitingAndTheLogSaysWhy() {
        start(db.superuser(), "127.0.0.1", "require", b -> b.serverTlsProtocols("tlsv1.2")
                .queryWaitTimeout(QUERY_WAIT));
        try (CapturedLog log = CapturedLog.start()) {
            PSQLException e = assertThrows(PSQLException.class, () -> ProxyFixture.connect(proxy, db));
            assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
            assertTrue(log.text().contains("server login failed: TLS handshake failed (sslmode require): Received"
                    + " fatal alert: protocol_version"), log.text());
        }
    }

    @Test
    void protocolsThatIncludeTheServersWork() throws Exception {
        start(db.superuser(), "127.0.0.1", "require", b -> b.serverTlsProtocols("tlsv1.2,tlsv1.3"));
        assertEquals("TLSv1.3", query("SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @Test
    void serverTls13CiphersChooseTheSuiteOfTheServerConnections() throws Exception {
        // PostgreSQL prefers its own order, whose first TLS 1.3 suite is TLS_AES_256_GCM_SHA384
        start(db.superuser(), "127.0.0.1", "require", b -> b.set("server_tls13_ciphers", "TLS_AES_128_GCM_SHA256"));
        assertEquals("TLS_AES_128_GCM_SHA256", query("SELECT cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    /** The fixture's server speaks TLS 1.3 only: server_tls_ciphers gives the TLS 1.3 suites too when tls13 is empty. */
    @Test
    void serverTlsCiphersChooseTheSuiteOfTheServerConnectionsWhenServerTls13CiphersIsEmpty() throws Exception {
        start(db.superuser(), "127.0.0.1", "require", b -> b.set("server_tls_ciphers",
                "TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256"));
        assertEquals("TLS_AES_128_GCM_SHA256", query("SELECT cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @Test
    void adminSetOfServerTlsProtocolsTheServerDoesNotSpeakFailsTheNextServerLogin() throws Exception {
        start(db.superuser(), "127.0.0.1", "require", b -> b.adminUsers(ProxyFixture.USER)
                .queryWaitTimeout(QUERY_WAIT));
        assertTrue(serverConnectionIsEncrypted());
        setOnConsole("SET server_tls_protocols = 'tlsv1.2'");
        try (CapturedLog log = CapturedLog.start()) {
            // the server connection made under the old settings closes once released: the next query needs a new one
            PSQLException e = assertThrows(PSQLException.class, () -> query("SELECT 1"));
            assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
            assertTrue(log.text().contains("Received fatal alert: protocol_version"), log.text());
        }
    }

    @Test
    void adminSetOfServerTlsCiphersChoosesTheSuiteOfTheNextServerConnection() throws Exception {
        start(db.superuser(), "127.0.0.1", "require", b -> b.adminUsers(ProxyFixture.USER));
        assertEquals("TLS_AES_256_GCM_SHA384", query("SELECT cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        setOnConsole("SET server_tls_ciphers = 'TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256'");
        assertEquals("TLS_AES_128_GCM_SHA256", query("SELECT cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    @Test
    void serverTlsCiphersTheJdkCannotHonourAreRefusedAtStartNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> start(db.superuser(), "127.0.0.1", "require", b -> b.set("server_tls_ciphers", "HIGH:!aNULL")));
        assertTrue(e.getMessage().startsWith("server_tls_ciphers: \"HIGH\" is no cipher suite name"), e.getMessage());
    }

    @Test
    void iniServerTlsSettingsApplyUnlessTheDatabaseNamesItsOwnSslmode() throws Exception {
        Files.copy(certificates.caCertificate(), directory.resolve("root.crt"));
        String server = "host=127.0.0.1 port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser()
                + " password=" + db.superuserPassword();
        IniFile ini = IniFile.parse("[databases]\n"
                + "checked = " + server + "\n"
                + "strict = " + server + " sslmode=verify-full\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\nauth_type = md5\n"
                + "server_tls_sslmode = verify-ca\nserver_tls_ca_file = root.crt\nserver_tls_protocols = secure\n"
                + "query_wait_timeout = " + QUERY_WAIT.toSeconds() + "\n");
        proxy = ProxyConfigLoader.configure(ini, directory)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .start();
        assertEquals("t", query("checked", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        try (CapturedLog log = CapturedLog.start()) {
            assertThrows(SQLException.class,
                    () -> query("strict", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
            assertTrue(log.text().contains("(sslmode verify-full): certificate verify failed"), log.text());
        }
    }

    /** A proxy whose server connections log in as {@code user} (who needs no password here) to {@code host}. */
    private void start(String user, String host, String sslmode, Consumer<ProxyBuilder> tls) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.database(db.name(), "postgresql://" + user + "@" + host + ":" + db.port() + "/" + db.name()
                    + "?sslmode=" + sslmode);
            tls.accept(b);
        });
    }

    private void setOnConsole(String set) throws SQLException {
        try (Connection console = ProxyFixture.console(proxy, ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            console.createStatement().execute(set);
        }
    }

    /** Asks the server whether the pooler's connection to it, which runs the query, uses TLS. */
    private boolean serverConnectionIsEncrypted() throws SQLException {
        return "t".equals(query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
    }

    private String query(String sql) throws SQLException {
        return query(db.name(), sql);
    }

    /** Runs a one-value query through the proxy, as the proxy's client, on the pooler's server connection. */
    private String query(String database, String sql) throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, database, ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties());
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
