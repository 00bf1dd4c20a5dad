package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * client_tls_key_file in each PEM form OpenSSL writes, as PgBouncer takes them: psql with sslmode verify-full
 * logs in through a proxy given the key at start, by RELOAD and by the admin console's SET. A key that cannot be
 * used is refused naming the setting and the file.
 */
@PostgresTest
class ClientTlsKeyFormsTest {
    private static final String USER = ProxyFixture.USER;
    private static final String PASSWORD = ProxyFixture.PASSWORD;
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";

    @TempDir
    static Path certificates;
    private static TestCertificates authority;
    /** The proxy's certificate before a RELOAD or SET, from another authority than the keys' certificates. */
    private static TestCertificates.Issued before;
    private static Path beforeAuthority;
    /** The proxy's certificate and key in each unencrypted form, for host name localhost, from the authority. */
    private static final Map<KeyForm, Path[]> CERTIFICATE_AND_KEY = new EnumMap<>(KeyForm.class);

    private final TestDatabase db;
    @TempDir
    Path dir;
    private PgMuxProxy proxy;

    ClientTlsKeyFormsTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void issueCertificates() throws IOException {
        authority = TestCertificates.authority(Files.createDirectory(certificates.resolve("ca")), "key forms CA");
        TestCertificates other = TestCertificates.authority(Files.createDirectory(certificates.resolve("other")),
                "another CA");
        before = other.issue("before", "localhost", "dns:localhost");
        beforeAuthority = other.caCertificate();
        Path forms = Files.createDirectory(certificates.resolve("forms"));
        for (KeyForm form : new KeyForm[] {KeyForm.PKCS1_RSA, KeyForm.SEC1_EC_AFTER_PARAMETERS, KeyForm.SEC1_EC,
                KeyForm.PKCS8_RSA, KeyForm.PKCS8_EC}) {
            Path key = form.write(forms.resolve(form + ".key"));
            Path request = KeyForm.request(key, "localhost", forms.resolve(form + ".csr"));
            CERTIFICATE_AND_KEY.put(form, new Path[] {authority.sign(form.toString(), request, "dns:localhost"),
                key});
        }
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"PKCS1_RSA", "SEC1_EC_AFTER_PARAMETERS", "SEC1_EC", "PKCS8_RSA", "PKCS8_EC"})
    void psqlVerifyFullLogsInThroughAProxyStartedWithTheKeyIn(KeyForm form) throws Exception {
        install(CERTIFICATE_AND_KEY.get(form)[0], CERTIFICATE_AND_KEY.get(form)[1]);
        start();
        assertServedUnder(authority.caCertificate());
    }

    @ParameterizedTest
    @EnumSource(names = {"PKCS1_RSA", "SEC1_EC_AFTER_PARAMETERS", "SEC1_EC", "PKCS8_RSA", "PKCS8_EC"})
    void reloadTakesAKeyIn(KeyForm form) throws Exception {
        install(before.certificate(), before.privateKey());
        start();
        install(CERTIFICATE_AND_KEY.get(form)[0], CERTIFICATE_AND_KEY.get(form)[1]);
        Psql.Result reload = Psql.run(admin(), "RELOAD");
        assertTrue(reload.succeeded(), reload.output());
        assertServedUnder(authority.caCertificate());
    }

    @ParameterizedTest
    @EnumSource(names = {"PKCS1_RSA", "SEC1_EC_AFTER_PARAMETERS", "SEC1_EC", "PKCS8_RSA", "PKCS8_EC"})
    void adminSetTakesAKeyIn(KeyForm form) throws Exception {
        install(before.certificate(), before.privateKey());
        start();
        Psql.Result certificate = Psql.run(admin(), "SET client_tls_cert_file = '" + CERTIFICATE_AND_KEY.get(form)[0]
                + "'");
        assertTrue(certificate.succeeded(), certificate.output());
        Psql.Result key = Psql.run(admin(), "SET client_tls_key_file = '" + CERTIFICATE_AND_KEY.get(form)[1] + "'");
        assertTrue(key.succeeded() && !key.output().contains("NOTICE"), key.output());
        assertServedUnder(authority.caCertificate());
    }

    @ParameterizedTest
    @EnumSource(names = {"ENCRYPTED_PKCS8", "ENCRYPTED_PKCS1"})
    void anEncryptedKeyIsRefusedAtStartNamingTheSettingAndTheFile(KeyForm form) throws Exception {
        install(before.certificate(), before.privateKey());
        Path key = form.write(dir.resolve("server.key"));
        String header = form == KeyForm.ENCRYPTED_PKCS8 ? "BEGIN ENCRYPTED PRIVATE KEY" : "Proc-Type: 4,ENCRYPTED";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, this::start);
        assertEquals("cannot use client_tls_key_file " + key + ": the key is encrypted (" + header + ") and pgmux,"
                + " like PgBouncer, has no setting for its passphrase: store it unencrypted, e.g. openssl pkey -in "
                + key + " -out <new file>", e.getMessage());
    }

    @Test
    void aFileWithoutAKeyIsRefusedAtStartNamingTheSettingAndTheFile() throws Exception {
        install(before.certificate(), before.privateKey());
        Files.writeString(dir.resolve("server.key"), "not a key\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, this::start);
        assertEquals("cannot use client_tls_key_file " + dir.resolve("server.key") + ": it holds no private key in"
                + " PKCS#8 (BEGIN PRIVATE KEY), PKCS#1 (BEGIN RSA PRIVATE KEY) or SEC1 (BEGIN EC PRIVATE KEY) form",
                e.getMessage());
    }

    @Test
    void aKeyInAFormOpenSslDoesNotWriteIsRefusedAtStartNamingItsBlock() throws Exception {
        install(before.certificate(), before.privateKey());
        Files.writeString(dir.resolve("server.key"), "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n"
                + "-----END OPENSSH PRIVATE KEY-----\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, this::start);
        assertEquals("cannot use client_tls_key_file " + dir.resolve("server.key") + ": it holds no private key in"
                + " PKCS#8 (BEGIN PRIVATE KEY), PKCS#1 (BEGIN RSA PRIVATE KEY) or SEC1 (BEGIN EC PRIVATE KEY) form:"
                + " unrecognised object: OPENSSH PRIVATE KEY", e.getMessage());
    }

    /** A key file cut short, with a byte changed, or of random bytes: each is refused naming setting and file. */
    @ParameterizedTest
    @EnumSource(names = {"PKCS1_RSA", "SEC1_EC_AFTER_PARAMETERS", "PKCS8_EC"})
    void aDamagedKeyFileIsRefusedAtStartNamingTheSettingAndTheFile(KeyForm form) throws Exception {
        install(before.certificate(), before.privateKey());
        String pem = Files.readString(CERTIFICATE_AND_KEY.get(form)[1], StandardCharsets.US_ASCII);
        int body = pem.indexOf("\n", pem.lastIndexOf("-----BEGIN")) + 1;
        byte[] random = new byte[pem.length()];
        new Random(form.ordinal()).nextBytes(random);
        List<byte[]> damaged = List.of(
                pem.substring(0, pem.length() / 2).getBytes(StandardCharsets.US_ASCII),
                (pem.substring(0, body) + "!" + pem.substring(body + 1)).getBytes(StandardCharsets.US_ASCII),
                (pem.substring(0, body) + "AAAA" + pem.substring(body + 4)).getBytes(StandardCharsets.US_ASCII),
                random);
        for (byte[] bytes : damaged) {
            Files.write(dir.resolve("server.key"), bytes);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, this::start);
            assertTrue(e.getMessage().startsWith("cannot use client_tls_key_file " + dir.resolve("server.key")
                    + ": it holds no private key in PKCS#8 (BEGIN PRIVATE KEY), PKCS#1 (BEGIN RSA PRIVATE KEY) or"
                    + " SEC1 (BEGIN EC PRIVATE KEY) form"), e.getMessage());
        }
    }

    @Test
    void reloadOfAnEncryptedKeyFailsAndKeepsServingTheOldKey() throws Exception {
        install(before.certificate(), before.privateKey());
        start();
        KeyForm.ENCRYPTED_PKCS8.write(dir.resolve("server.key.new"));
        Files.move(dir.resolve("server.key.new"), dir.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
        Psql.Result reload = Psql.run(admin(), "RELOAD");
        assertFalse(reload.succeeded(), reload.output());
        assertTrue(reload.output().contains("RELOAD failed, see logs for additional details"), reload.output());
        assertServedUnder(beforeAuthority);
    }

    @Test
    void adminSetOfAnEncryptedKeyKeepsTheOldKeyWithANotice() throws Exception {
        install(before.certificate(), before.privateKey());
        start();
        Path encrypted = KeyForm.ENCRYPTED_PKCS1.write(dir.resolve("encrypted.key"));
        Psql.Result set = Psql.run(admin(), "SET client_tls_key_file = '" + encrypted + "'");
        assertTrue(set.output().contains(
                "NOTICE:  TLS settings could not be applied, still using old configuration"), set.output());
        assertServedUnder(beforeAuthority);
    }

    /** psql verify-full to host name localhost, trusting only {@code rootCertificate}, gets a TLS session. */
    private void assertServedUnder(Path rootCertificate) throws Exception {
        Psql.Result result = Psql.run("host=localhost hostaddr=127.0.0.1 port=" + proxy.port() + " dbname="
                + db.name() + " user=" + USER + " password=" + PASSWORD + " sslmode=verify-full sslrootcert="
                + rootCertificate + " connect_timeout=10", "\\conninfo");
        assertTrue(result.succeeded() && result.output().contains("SSL connection"), result.output());
    }

    private void start() throws IOException {
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n\"" + ADMIN
                + "\" \"" + ADMIN_PASSWORD + "\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\n"
                + db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\nauth_type = md5\n"
                + "auth_file = userlist.txt\nadmin_users = " + ADMIN + "\n"
                + "client_tls_sslmode = require\n"
                + "client_tls_cert_file = server.crt\nclient_tls_key_file = server.key\n");
        proxy = ProxyConfigLoader.load(ini).start();
    }

    /** Puts the certificate and key where the ini's client_tls_cert_file and client_tls_key_file point. */
    private void install(Path certificate, Path key) throws IOException {
        Files.copy(certificate, dir.resolve("server.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(key, dir.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
    }

    private String admin() {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=pgbouncer user=" + ADMIN + " password="
                + ADMIN_PASSWORD + " sslmode=require connect_timeout=10";
    }
}
