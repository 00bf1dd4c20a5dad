package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EnableTlsTest {

    private final TestDatabase database;
    private Path directory;
    private TestCertificates authority;

    EnableTlsTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    void serveTls(@TempDir Path directory) {
        this.directory = directory;
        authority = TestCertificates.authority(directory, "pgmux fixture test CA");
        TestCertificates.Issued server = authority.issue("server", "localhost", "dns:localhost,ip:127.0.0.1");
        database.server().enableTls(server.certificate(), server.privateKey());
    }

    @Test
    void clientVerifyingTheCertificateAgainstTheCaGetsAnEncryptedConnection() throws SQLException {
        try (Connection connection = connect("verify-full", authority.caCertificate())) {
            assertEquals("t", query(connection, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        }
    }

    @Test
    void clientTrustingAnotherCaIsRefusedTheHandshake() throws IOException {
        Path otherCa = TestCertificates.authority(Files.createDirectories(directory.resolve("other")), "another CA")
                .caCertificate();
        assertThrows(SQLException.class, () -> connect("verify-ca", otherCa).close());
    }

    private Connection connect(String sslmode, Path rootCertificate) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", database.superuser());
        properties.setProperty("password", database.superuserPassword());
        properties.setProperty("sslmode", sslmode);
        properties.setProperty("sslrootcert", rootCertificate.toString());
        return DriverManager.getConnection(database.jdbcUrl(), properties);
    }
}
