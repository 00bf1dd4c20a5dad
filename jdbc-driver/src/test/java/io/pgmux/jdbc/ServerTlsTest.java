package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.ServerCertificates;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TlsRule;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pgjdbc's ssl properties given to a PgMuxDataSource reach every server connection it opens, against the
 * fixture's PostgreSQL with TLS (its certificate names localhost only; a cert rule for client certificates).
 */
@PostgresTest(tls = true)
class ServerTlsTest {
    private static final String TLS_OF_THIS_CONNECTION = "SELECT ssl, client_dn FROM pg_stat_ssl"
            + " WHERE pid = pg_backend_pid()";

    private final TestDatabase database;
    private final ServerCertificates certificates;

    ServerTlsTest(TestDatabase database) {
        this.database = database;
        this.certificates = database.server().certificates();
    }

    @Test
    void verifyFullWithTheServersCaAndHostNameEncrypts() throws SQLException {
        try (PgMuxDataSource ds = dataSource(certificates.certifiedHost(), database.superuser())) {
            verify(ds, "verify-full", certificates.caCertificate());
            assertEquals("t", tlsOfAConnection(ds));
        }
    }

    @Test
    void verifyCaWithAnotherCaRefusesTheConnectionWithTheReason(@TempDir Path directory) {
        Path otherCa = TestCertificates.authority(directory, "another CA").caCertificate();
        try (PgMuxDataSource ds = dataSource("127.0.0.1", database.superuser())) {
            verify(ds, "verify-ca", otherCa);
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("08006", e.getSQLState());
            assertTrue(e.getMessage().contains("SSL error"), e.getMessage());
        }
    }

    @Test
    void verifyFullRefusesAHostTheCertificateDoesNotName() {
        try (PgMuxDataSource ds = dataSource("127.0.0.1", database.superuser())) {
            verify(ds, "verify-full", certificates.caCertificate());
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("08006", e.getSQLState());
            assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
        }
    }

    @Test
    void theClientCertificateLogsInToACertRule() throws SQLException {
        String user = database.createUser(TlsRule.CLIENT_CERTIFICATE);
        TestCertificates.Issued certificate = certificates.clientCertificate(user);
        try (PgMuxDataSource ds = dataSource("127.0.0.1", user)) {
            verify(ds, "verify-ca", certificates.caCertificate());
            ds.addDataSourceProperty("sslcert", certificate.certificate().toString());
            ds.addDataSourceProperty("sslkey", certificate.derPrivateKey().toString());
            assertEquals("t /CN=" + user, tlsOfAConnection(ds));
        }
    }

    @Test
    void disableReachesAUserWhomTheServerLetsInOnlyInPlainText() throws SQLException {
        String user = database.createUser(TlsRule.PLAIN_ONLY);
        try (PgMuxDataSource ds = dataSource("127.0.0.1", user)) {
            ds.addDataSourceProperty("sslmode", "disable");
            assertEquals("f", tlsOfAConnection(ds));
        }
    }

    private PgMuxDataSource dataSource(String host, String user) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl("jdbc:postgresql://" + host + ":" + database.port() + "/" + database.name());
        ds.setUsername(user);
        ds.setMaximumPoolSize(2);
        ds.setConnectionTimeout(10_000);
        return ds;
    }

    private static void verify(PgMuxDataSource ds, String sslmode, Path rootCertificate) {
        ds.addDataSourceProperty("sslmode", sslmode);
        ds.addDataSourceProperty("sslrootcert", rootCertificate.toString());
    }

    /** {@code t} or {@code f}, then the client certificate's subject if one was presented. */
    private static String tlsOfAConnection(PgMuxDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(TLS_OF_THIS_CONNECTION)) {
            rs.next();
            String subject = rs.getString(2);
            return rs.getString(1) + (subject == null ? "" : " " + subject);
        }
    }
}
