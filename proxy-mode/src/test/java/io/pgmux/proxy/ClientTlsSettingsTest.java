package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Client TLS configured by pgbouncer.ini's client_tls_* settings and auth_type cert, with PgBouncer's meanings,
 * tried with psql (libpq's sslmode matrix) and pgjdbc against a proxy in front of the fixture's PostgreSQL.
 */
@PostgresTest
class ClientTlsSettingsTest {
    private static final String USER = ProxyFixture.USER;
    private static final String PASSWORD = ProxyFixture.PASSWORD;
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final List<String> CLIENT_SSLMODES = List.of("disable", "prefer", "require", "verify-ca",
            "verify-full");

    @TempDir
    static Path certificates;
    private static TestCertificates authority;
    private static TestCertificates otherAuthority;
    /** The proxy's certificate, for host name localhost only. */
    private static TestCertificates.Issued proxyCertificate;
    /** Another certificate for the proxy, from the other authority. */
    private static TestCertificates.Issued rotatedCertificate;
    private static TestCertificates.Issued appClient;
    private static TestCertificates.Issued malloryClient;
    private static TestCertificates.Issued appClientOfTheOtherAuthority;

    private final TestDatabase db;
    @TempDir
    Path dir;
    private PgMuxProxy proxy;

    ClientTlsSettingsTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void issueCertificates() throws Exception {
        authority = TestCertificates.authority(Files.createDirectory(certificates.resolve("ca")), "pgmux test CA");
        otherAuthority = TestCertificates.authority(Files.createDirectory(certificates.resolve("other")),
                "another CA");
        proxyCertificate = authority.issue("proxy", "localhost", "dns:localhost");
        rotatedCertificate = otherAuthority.issue("rotated", "localhost", "dns:localhost");
        appClient = authority.issue("app", USER, null);
        malloryClient = authority.issue("mallory", "mallory", null);
        appClientOfTheOtherAuthority = otherAuthority.issue("stranger", USER, null);
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /** Each row: the proxy's client_tls_sslmode, then what psql gets with sslmode disable … verify-full. */
    @ParameterizedTest(name = "client_tls_sslmode {0}")
    @CsvSource({
        "disable,     plain,        plain, no SSL, no SSL, no SSL",
        "allow,       plain,        TLS,   TLS,    TLS,    TLS",
        "prefer,      plain,        TLS,   TLS,    TLS,    TLS",
        "require,     SSL required, TLS,   TLS,    TLS,    TLS",
        "verify-ca,   SSL required, TLS,   TLS,    TLS,    TLS",
        "verify-full, SSL required, TLS,   TLS,    TLS,    TLS",
    })
    void psqlSslmodeMatrix(String proxySslmode, String disable, String prefer, String require, String verifyCa,
            String verifyFull) throws Exception {
        start(proxySslmode, "md5");
        List<String> expected = List.of(disable, prefer, require, verifyCa, verifyFull);
        for (int i = 0; i < CLIENT_SSLMODES.size(); i++) {
            String sslmode = CLIENT_SSLMODES.get(i);
            Psql.Result result = Psql.run(libpq("localhost", sslmode, appClient), "\\conninfo");
            String outcome = "psql sslmode=" + sslmode + ": " + result.output();
            switch (expected.get(i)) {
                case "TLS" -> assertTrue(result.succeeded() && result.output().contains("SSL connection"), outcome);
                case "plain" -> assertTrue(result.succeeded() && !result.output().contains("SSL connection"),
                        outcome);
                case "no SSL" -> assertTrue(!result.succeeded()
                        && result.output().contains("server does not support SSL"), outcome);
                default -> assertTrue(!result.succeeded()
                        && result.output().contains("FATAL:  " + expected.get(i)), outcome);
            }
        }
    }

    /** As PgBouncer's: TLS applies to TCP only, the Unix socket being guarded by its file's permissions. */
    @ParameterizedTest(name = "client_tls_sslmode {0}")
    @ValueSource(strings = {"require", "verify-ca", "verify-full"})
    void psqlLogsInOverTheUnixSocketWithoutTls(String proxySslmode) throws Exception {
        start(proxySslmode, "md5", "unix_socket_dir = " + dir + "\n");
        Psql.Result result = Psql.run(overUnixSocket(), "\\conninfo");
        assertTrue(result.succeeded() && result.output().contains("via socket")
                && !result.output().contains("SSL connection"), result.output());
    }

    @Test
    void requireProxyWithAUnixSocketStillRefusesAPlaintextTcpClient() throws Exception {
        start("require", "md5", "unix_socket_dir = " + dir + "\n");
        Psql.Result result = Psql.run(libpq("localhost", "disable", null), "\\conninfo");
        assertTrue(!result.succeeded() && result.output().contains("FATAL:  SSL required"), result.output());
    }

    @Test
    @Timeout(30)
    void anSslRequestOverTheUnixSocketIsAnsweredN() throws IOException {
        start("require", "md5", "unix_socket_dir = " + dir + "\n");
        try (SocketChannel unix = SocketChannel.open(UnixDomainSocketAddress.of(proxy.unixSocket()))) {
            unix.write(ByteBuffer.wrap(sslRequest()));
            ByteBuffer answer = ByteBuffer.allocate(1);
            assertEquals(1, unix.read(answer));
            assertEquals('N', answer.get(0));
        }
    }

    @Test
    void verifyCaProxyRefusesAClientWithoutACertificate() throws Exception {
        start("verify-ca", "md5");
        Psql.Result result = Psql.run(libpq("localhost", "require", null), "\\conninfo");
        assertFalse(result.succeeded(), result.output());
        assertFalse(result.output().contains("You are connected"), result.output());
    }

    @Test
    void verifyCaProxyRefusesAClientCertificateOfAnotherAuthority() {
        start("verify-ca", "md5");
        assertThrows(SQLException.class, () -> pgjdbc("verify-ca", USER, PASSWORD, appClientOfTheOtherAuthority)
                .close());
    }

    @Test
    void requireProxyRefusesAPlaintextPgjdbcClientWithPgBouncersError() {
        start("require", "md5");
        SQLException e = assertThrows(SQLException.class, () -> pgjdbc("disable", USER, PASSWORD, null).close());
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("SSL required"), e.getMessage());
    }

    @Test
    void pgjdbcVerifyingTheProxysCertificateIsServedOverTls() throws Exception {
        start("require", "md5");
        try (Connection c = pgjdbc("verify-ca", USER, PASSWORD, null); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 7")) {
            rs.next();
            assertEquals(7, rs.getInt(1));
        }
    }

    @Test
    void verifyFullClientRefusesTheProxyUnderAHostNameItsCertificateDoesNotName() throws Exception {
        start("require", "md5");
        Psql.Result psql = Psql.run(libpq("127.0.0.1", "verify-full", null), "\\conninfo");
        assertFalse(psql.succeeded(), psql.output());
        assertTrue(psql.output().contains("does not match host name \"127.0.0.1\""), psql.output());
        SQLException e = assertThrows(SQLException.class, () -> pgjdbc("verify-full", USER, PASSWORD, null)
                .close());
        assertTrue(e.getMessage().contains("127.0.0.1 could not be verified"), e.getMessage());
    }

    @Test
    void certAuthLogsInTheUserTheClientCertificateNames() throws Exception {
        start("verify-full", "cert");
        try (Connection c = pgjdbc("verify-ca", USER, null, appClient); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 8")) {
            rs.next();
            assertEquals(8, rs.getInt(1));
        }
    }

    /** As PgBouncer, which asks every TLS client for its certificate and checks one given against the CA. */
    @Test
    void anHbaCertLineLogsInByTheCertificateAClientGivesUnderSslmodeRequire() throws Exception {
        Files.writeString(dir.resolve("hba.conf"), "hostssl all all 0.0.0.0/0 cert\n");
        start("require", "hba", "auth_hba_file = hba.conf\n");
        try (Connection c = pgjdbc("require", USER, null, appClient); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 8")) {
            rs.next();
            assertEquals(8, rs.getInt(1));
        }
    }

    @Test
    void certAuthRefusesACertificateNamingAnotherUserWithPgBouncersError() {
        start("verify-ca", "cert");
        SQLException e = assertThrows(SQLException.class, () -> pgjdbc("verify-ca", USER, null, malloryClient)
                .close());
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("certificate authentication failed"), e.getMessage());
    }

    @Test
    void certAuthWithoutAVerifyingSslmodeIsRefusedAtStartupNamingBothKeys() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.load(writeIni("require", "cert")).start().close());
        assertEquals("auth_type cert takes the user name from the client certificate: it needs client_tls_sslmode"
                + " verify-ca or verify-full, not require", e.getMessage());
    }

    @Test
    void reloadMakesNewClientsGetTheRotatedCertificateWhileConnectedOnesCarryOn() throws Exception {
        start("require", "md5");
        Path rotatedCa = otherAuthority.caCertificate();
        try (Connection connected = pgjdbc("verify-ca", USER, PASSWORD, null)) {
            assertFalse(Psql.run(libpq("localhost", "verify-full", null, rotatedCa), "\\conninfo").succeeded(),
                    "the rotated CA does not sign the proxy's certificate yet");
            install(rotatedCertificate);
            assertFalse(Psql.run(libpq("localhost", "verify-full", null, rotatedCa), "\\conninfo").succeeded(),
                    "new files are read at RELOAD, not before");
            Psql.Result reload = Psql.run(admin(), "RELOAD");
            assertTrue(reload.succeeded(), reload.output());
            Psql.Result rotated = Psql.run(libpq("localhost", "verify-full", null, rotatedCa), "\\conninfo");
            assertTrue(rotated.succeeded() && rotated.output().contains("SSL connection"), rotated.output());
            assertFalse(Psql.run(libpq("localhost", "verify-full", null), "\\conninfo").succeeded(),
                    "the old CA no longer signs the proxy's certificate");
            try (Statement s = connected.createStatement(); ResultSet rs = s.executeQuery("SELECT 9")) {
                rs.next();
                assertEquals(9, rs.getInt(1));
            }
        }
    }

    @Test
    void reloadOfAKeyThatIsNotTheCertificatesFailsAndKeepsServingTheOldCertificate() throws Exception {
        start("require", "md5");
        Files.copy(malloryClient.privateKey(), dir.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
        Psql.Result reload = Psql.run(admin(), "RELOAD");
        assertFalse(reload.succeeded(), reload.output());
        assertTrue(reload.output().contains("RELOAD failed, see logs for additional details"), reload.output());
        Psql.Result after = Psql.run(libpq("localhost", "verify-full", null), "\\conninfo");
        assertTrue(after.succeeded() && after.output().contains("SSL connection"), after.output());
    }

    /**
     * As in PgBouncer, admin SET takes a key that is not the current certificate's, keeping the TLS in use with a
     * NOTICE, so that the certificate's SET that follows can rotate both.
     */
    @Test
    void adminSetRotatesTheKeyAndThenTheCertificateOneAtATime() throws Exception {
        start("require", "md5");
        Path rotatedCa = otherAuthority.caCertificate();
        Psql.Result key = Psql.run(admin(), "SET client_tls_key_file = '" + rotatedCertificate.privateKey() + "'");
        assertTrue(key.succeeded() && key.output().contains(
                "NOTICE:  TLS settings could not be applied, still using old configuration"), key.output());
        assertTrue(key.output().contains("SET client_tls_key_file="), key.output());
        Psql.Result old = Psql.run(libpq("localhost", "verify-full", null), "\\conninfo");
        assertTrue(old.succeeded() && old.output().contains("SSL connection"), old.output());
        Psql.Result certificate = Psql.run(admin(),
                "SET client_tls_cert_file = '" + rotatedCertificate.certificate() + "'");
        assertTrue(certificate.succeeded() && !certificate.output().contains("NOTICE"), certificate.output());
        Psql.Result rotated = Psql.run(libpq("localhost", "verify-full", null, rotatedCa), "\\conninfo");
        assertTrue(rotated.succeeded() && rotated.output().contains("SSL connection"), rotated.output());
    }

    @Test
    void keyFileThatIsNotTheCertificatesKeyIsRefusedAtStartupNamingTheKey() throws Exception {
        Path ini = writeIni("require", "md5");
        Files.copy(malloryClient.privateKey(), dir.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.load(ini).start().close());
        assertEquals("client_tls_key_file " + dir.resolve("server.key") + " is not the key of the certificate in"
                + " client_tls_cert_file " + dir.resolve("server.crt"), e.getMessage());
    }

    @Test
    void protocolsAndTls12CiphersAreTheOnesTheIniNames() throws Exception {
        start("require", "md5", "client_tls_protocols = tlsv1.2\n"
                + "client_tls_ciphers = ECDHE-ECDSA-AES128-GCM-SHA256\n");
        Psql.Result result = Psql.run(libpq("localhost", "verify-full", null), "\\conninfo");
        assertTrue(result.output().contains("protocol: TLSv1.2, cipher: ECDHE-ECDSA-AES128-GCM-SHA256"),
                result.output());
    }

    @Test
    void adminSetOfProtocolsAndTls12CiphersServesTheNextClientUnderThem() throws Exception {
        start("require", "md5");
        Psql.Result protocols = Psql.run(admin(), "SET client_tls_protocols = 'tlsv1.2'");
        Psql.Result ciphers = Psql.run(admin(), "SET client_tls_ciphers = 'ECDHE-ECDSA-AES128-GCM-SHA256'");
        assertTrue(protocols.succeeded() && !protocols.output().contains("NOTICE"), protocols.output());
        assertTrue(ciphers.succeeded() && !ciphers.output().contains("NOTICE"), ciphers.output());
        Psql.Result result = Psql.run(libpq("localhost", "verify-full", null), "\\conninfo");
        assertTrue(result.output().contains("protocol: TLSv1.2, cipher: ECDHE-ECDSA-AES128-GCM-SHA256"),
                result.output());
    }

    @Test
    void tls13CiphersAreTheOnesTheIniNames() throws Exception {
        start("require", "md5", "client_tls13_ciphers = TLS_CHACHA20_POLY1305_SHA256\n");
        Psql.Result result = Psql.run(libpq("localhost", "verify-full", null), "\\conninfo");
        assertTrue(result.output().contains("protocol: TLSv1.3, cipher: TLS_CHACHA20_POLY1305_SHA256"),
                result.output());
    }

    @Test
    void pgjdbcWithDirectTlsNegotiationIsServedOverTls() throws Exception {
        start("require", "md5");
        try (Connection c = pgjdbc("verify-ca", USER, PASSWORD, null, direct()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 8")) {
            rs.next();
            assertEquals(8, rs.getInt(1));
        }
    }

    @Test
    void directTlsToAProxyWithoutClientTlsIsClosed() {
        start("disable", "md5");
        SQLException e = assertThrows(SQLException.class,
                () -> pgjdbc("require", USER, PASSWORD, null, direct()).close());
        // closed in the handshake, not answered with a plaintext error
        assertEquals("08006", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("Remote host terminated the handshake"), e.getMessage());
    }

    @Test
    void directTlsWithoutAlpnIsClosedAfterTheHandshake() throws Exception {
        start("require", "md5");
        try (SSLSocket socket = directTlsSocket()) {
            socket.startHandshake();
            socket.getOutputStream().write(startupPacket());
            socket.getOutputStream().flush();
            assertEquals(-1, readOrEnd(socket), "closed without an answer, as PostgreSQL does");
        }
    }

    @Test
    void directTlsOfferingOnlyAnotherAlpnProtocolFailsTheHandshake() throws Exception {
        start("require", "md5");
        try (SSLSocket socket = directTlsSocket()) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"http/1.1"});
            socket.setSSLParameters(parameters);
            SSLException e = assertThrows(SSLException.class, socket::startHandshake);
            assertTrue(e.getMessage().contains("no_application_protocol"), e.getMessage());
        }
    }

    /** CVE-2021-23214: bytes sent before the handshake would be read as if they had come over TLS. */
    @Test
    void aStartupPacketPipelinedBehindTheSslRequestIsRefusedInPlainTextWithPgBouncersError() throws Exception {
        start("require", "md5");
        try (RawClient c = new RawClient(proxy.port())) {
            c.sendRaw(RawClient.concat(sslRequest(), startupPacket()));
            List<RawClient.Message> answer = c.readUntilClosed();
            assertEquals(1, answer.size(), "no 'S', only the error");
            assertEquals("FATAL", answer.get(0).field('S'));
            assertEquals("08P01", answer.get(0).field('C'));
            assertEquals("received unencrypted data after SSL request", answer.get(0).field('M'));
        }
    }

    @Test
    void anSslRequestInsideTlsIsClosedWithoutAnAnswer() throws Exception {
        start("require", "md5");
        try (Socket plain = new Socket("127.0.0.1", proxy.port())) {
            plain.setSoTimeout(10_000);
            plain.getOutputStream().write(sslRequest());
            assertEquals('S', plain.getInputStream().read());
            try (SSLSocket tls = (SSLSocket) trustingTheAuthority().getSocketFactory().createSocket(plain,
                    "localhost", proxy.port(), true)) {
                tls.startHandshake();
                tls.getOutputStream().write(sslRequest());
                tls.getOutputStream().flush();
                assertEquals(-1, readOrEnd(tls), "no second 'S' inside TLS, as PgBouncer");
            }
        }
    }

    private static byte[] sslRequest() {
        return ByteBuffer.allocate(8).putInt(8).putInt(80877103).array();
    }

    private static Properties direct() {
        Properties p = new Properties();
        p.setProperty("sslNegotiation", "direct");
        return p;
    }

    /** A JDK TLS socket to the proxy trusting its CA, which starts with the TLS handshake: direct TLS. */
    private SSLSocket directTlsSocket() throws Exception {
        SSLSocket socket = (SSLSocket) trustingTheAuthority().getSocketFactory().createSocket("127.0.0.1",
                proxy.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** The JDK's TLS, trusting the CA that issued the proxy's certificate. */
    private static SSLContext trustingTheAuthority() throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(authority.caCertificate())) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    /** A protocol 3.0 startup packet for {@link #USER} and the test database. */
    private byte[] startupPacket() {
        byte[] pairs = ("user\0" + USER + "\0database\0" + db.name() + "\0\0").getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + pairs.length).putInt(8 + pairs.length).putInt(196608).put(pairs).array();
    }

    /** The next byte, or -1 when the proxy closed the connection (also when it reset it). */
    private static int readOrEnd(SSLSocket socket) throws IOException {
        try {
            return socket.getInputStream().read();
        } catch (SSLException | java.net.SocketException e) {
            return -1;
        }
    }

    private void start(String sslmode, String authType) {
        start(sslmode, authType, "");
    }

    private void start(String sslmode, String authType, String extraSettings) {
        try {
            proxy = ProxyConfigLoader.load(writeIni(sslmode, authType, extraSettings)).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path writeIni(String sslmode, String authType) throws IOException {
        return writeIni(sslmode, authType, "");
    }

    private Path writeIni(String sslmode, String authType, String extraSettings) throws IOException {
        install(proxyCertificate);
        Files.copy(authority.caCertificate(), dir.resolve("root.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n\"" + ADMIN
                + "\" \"" + ADMIN_PASSWORD + "\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\n"
                + db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\nauth_type = " + authType + "\n"
                + "auth_file = userlist.txt\nadmin_users = " + ADMIN + "\n"
                + "client_tls_sslmode = " + sslmode + "\n"
                + "client_tls_cert_file = server.crt\nclient_tls_key_file = server.key\n"
                + "client_tls_ca_file = root.crt\n" + extraSettings);
        return ini;
    }

    /** Puts {@code certificate} where the ini's client_tls_cert_file and client_tls_key_file point. */
    private void install(TestCertificates.Issued certificate) throws IOException {
        Files.copy(certificate.certificate(), dir.resolve("server.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(certificate.privateKey(), dir.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
    }

    private String libpq(String host, String sslmode, TestCertificates.Issued client) {
        return libpq(host, sslmode, client, authority.caCertificate());
    }

    /** psql's connection string to the proxy's database as {@link #USER}, connecting to 127.0.0.1 under {@code host}. */
    private String libpq(String host, String sslmode, TestCertificates.Issued client, Path rootCertificate) {
        String certificate = client == null ? ""
                : " sslcert=" + client.certificate() + " sslkey=" + client.privateKey();
        return "host=" + host + " hostaddr=127.0.0.1 port=" + proxy.port() + " dbname=" + db.name() + " user="
                + USER + " password=" + PASSWORD + " sslmode=" + sslmode + " sslrootcert=" + rootCertificate
                + certificate + " connect_timeout=10";
    }

    /** psql's connection string to the proxy's database as {@link #USER} over its Unix socket in {@link #dir}. */
    private String overUnixSocket() {
        return "host=" + dir + " port=" + proxy.port() + " dbname=" + db.name() + " user=" + USER + " password="
                + PASSWORD + " connect_timeout=10";
    }

    private String admin() {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=pgbouncer user=" + ADMIN + " password="
                + ADMIN_PASSWORD + " sslmode=require connect_timeout=10";
    }

    /** pgjdbc to 127.0.0.1 with {@code ssl=true&sslmode=…}, trusting the proxy's CA, with a client certificate or not. */
    private Connection pgjdbc(String sslmode, String user, String password, TestCertificates.Issued client)
            throws Exception {
        return pgjdbc(sslmode, user, password, client, new Properties());
    }

    private Connection pgjdbc(String sslmode, String user, String password, TestCertificates.Issued client,
            Properties extra) throws Exception {
        Properties p = new Properties();
        p.putAll(extra);
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        p.setProperty("ssl", "true");
        p.setProperty("sslmode", sslmode);
        p.setProperty("sslrootcert", authority.caCertificate().toString());
        if (client != null) {
            p.setProperty("sslcert", client.certificate().toString());
            p.setProperty("sslkey", client.derPrivateKey().toString());
        } else {
            // not pgjdbc's default ~/.postgresql/postgresql.crt
            p.setProperty("sslcert", dir.resolve("none.crt").toString());
        }
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "30");
        return DriverManager.getConnection(ProxyFixture.jdbcUrl(proxy, db.name()), p);
    }
}
