package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import org.junit.jupiter.api.Test;

@PostgresTest(tls = true)
class TlsServerTest {
    private static final String ENCRYPTED = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

    private final TestDatabase database;

    TlsServerTest(TestDatabase database) {
        this.database = database;
    }

    @Test
    void isAServerOfItsOwnBesideTheSharedOne() {
        assertNotSame(SharedServer.get(), database.server());
    }

    @Test
    void verifyFullWithTheCaAndTheCertifiedHostGetsTls() throws SQLException {
        String user = database.createUser(TlsRule.TLS_ONLY);
        try (Connection c = connect(database.server().certificates().certifiedHost(), user, verifyFull())) {
            assertEquals("t", query(c, ENCRYPTED));
        }
    }

    @Test
    void theCertificateDoesNotNameTheLoopbackAddress() {
        String user = database.createUser(TlsRule.TLS_ONLY);
        assertThrows(SQLException.class, () -> connect("127.0.0.1", user, verifyFull()).close());
    }

    @Test
    void aPlainOnlyUserIsRefusedOverTls() throws SQLException {
        String user = database.createUser(TlsRule.PLAIN_ONLY);
        SQLException e = assertThrows(SQLException.class, () -> connect("127.0.0.1", user, sslmode("require")).close());
        assertEquals("28000", e.getSQLState());
        try (Connection c = connect("127.0.0.1", user, sslmode("disable"))) {
            assertEquals("f", query(c, ENCRYPTED));
        }
    }

    @Test
    void aClientCertificateUserGetsInWithItsCertificateOnly() throws SQLException {
        String user = database.createUser(TlsRule.CLIENT_CERTIFICATE);
        Properties without = sslmode("require");
        without.setProperty("sslcert", "");
        assertEquals("28000", assertThrows(SQLException.class, () -> connect("127.0.0.1", user, without).close())
                .getSQLState());
        TestCertificates.Issued certificate = database.server().certificates().clientCertificate(user);
        Properties with = sslmode("require");
        with.setProperty("sslcert", certificate.certificate().toString());
        with.setProperty("sslkey", certificate.derPrivateKey().toString());
        try (Connection c = connect("127.0.0.1", user, with)) {
            assertEquals(user, query(c, "SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                    .replace("/CN=", ""));
        }
    }

    private Properties verifyFull() {
        Properties properties = sslmode("verify-full");
        properties.setProperty("sslrootcert", database.server().certificates().caCertificate().toString());
        return properties;
    }

    private static Properties sslmode(String sslmode) {
        Properties properties = new Properties();
        properties.setProperty("sslmode", sslmode);
        return properties;
    }

    private Connection connect(String host, String user, Properties properties) throws SQLException {
        properties.setProperty("user", user);
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + database.port() + "/" + database.name(),
                properties);
    }
}
