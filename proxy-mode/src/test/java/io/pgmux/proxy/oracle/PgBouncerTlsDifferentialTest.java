package io.pgmux.proxy.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PgBouncer as the oracle for server TLS: both poolers, started from the same pgbouncer.ini, in front of the fixture's
 * PostgreSQL with TLS, whose certificate names {@code localhost} only. What a pgjdbc client sees must be the same.
 */
@PostgresTest(tls = true)
class PgBouncerTlsDifferentialTest {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String QUERY_WAIT_TIMEOUT = "FATAL 08P01: query_wait_timeout";
    private static Path binary;

    private final TestDatabase db;
    private final List<AutoCloseable> started = new ArrayList<>();
    @TempDir
    Path dir;

    PgBouncerTlsDifferentialTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void findOracle() throws Exception {
        if (binary == null) {
            binary = PgBouncerProcess.oracle();
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : started) {
            c.close();
        }
    }

    /** The control: the same setup with the server's own CA logs in, so a failure below is the certificate's. */
    @Test
    void aCertificateFromTheTrustedCaUnderVerifyCaLogsInAlike() throws Exception {
        Poolers p = start("verify-ca", Files.readString(db.server().certificates().caCertificate()));
        assertEquals("logged in", login(p.pgbouncer));
        assertEquals("logged in", login(p.pgmux));
    }

    /** Both wait for a server whose certificate fails the check as for one that is down, and log OpenSSL's words. */
    @Test
    void aCertificateFromAnotherCaUnderVerifyCaKeepsTheClientWaitingIntoQueryWaitTimeoutAlike() throws Exception {
        Path other = TestCertificates.authority(Files.createDirectory(dir.resolve("other")), "another CA")
                .caCertificate();
        Poolers p = start("verify-ca", Files.readString(other));
        assertEquals(QUERY_WAIT_TIMEOUT, login(p.pgbouncer));
        assertEquals(QUERY_WAIT_TIMEOUT, login(p.pgmux));
        assertTrue(p.oracle.log().contains("certificate verify failed"), p.oracle.log());
    }

    @Test
    void aCertificateNotNamingTheHostUnderVerifyFullKeepsTheClientWaitingIntoQueryWaitTimeoutAlike()
            throws Exception {
        Poolers p = start("verify-full", Files.readString(db.server().certificates().caCertificate()));
        assertEquals(QUERY_WAIT_TIMEOUT, login(p.pgbouncer));
        assertEquals(QUERY_WAIT_TIMEOUT, login(p.pgmux));
    }

    /**
     * Both poolers on one ini whose database {@code app} is reached at 127.0.0.1, an address the server's certificate
     * does not name, under {@code sslmode} with the CA file {@code ca}.
     */
    private Poolers start(String sslmode, String ca) throws Exception {
        String userlist = "\"" + USER + "\" \"" + PASSWORD + "\"\n";
        String body = "[databases]\napp = host=127.0.0.1 port=" + db.port() + " dbname=" + db.name() + " user="
                + db.superuser() + " password=" + db.superuserPassword() + "\n[pgbouncer]\nauth_file = userlist.txt\n"
                + "auth_type = md5\npool_mode = transaction\nignore_startup_parameters = extra_float_digits\n"
                + "server_tls_sslmode = " + sslmode + "\nserver_tls_ca_file = ca.pem\nquery_wait_timeout = 1\n";
        PgBouncerProcess pgbouncer = PgBouncerProcess.start(binary, body, "userlist.txt", userlist, "ca.pem", ca);
        started.add(pgbouncer);
        Files.writeString(dir.resolve("userlist.txt"), userlist);
        Files.writeString(dir.resolve("ca.pem"), ca);
        Path ini = dir.resolve("pgmux.ini");
        Files.writeString(ini, body.replace("[pgbouncer]\n", "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\n"));
        PgMuxProxy pgmux = ProxyConfigLoader.load(ini).start();
        started.add(pgmux);
        return new Poolers(pgbouncer.port(), pgmux.port(), pgbouncer);
    }

    private record Poolers(int pgbouncer, int pgmux, PgBouncerProcess oracle) {
    }

    /** What a client logging in to the pooler on {@code port} sees: "logged in", or the error that ended it. */
    private static String login(int port) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", PASSWORD);
        props.setProperty("connectTimeout", "10");
        props.setProperty("socketTimeout", "30");
        try {
            DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/app", props).close();
            return "logged in";
        } catch (PSQLException e) {
            ServerErrorMessage server = e.getServerErrorMessage();
            if (server == null) {
                throw e;
            }
            return server.getSeverity() + " " + server.getSQLState() + ": " + server.getMessage();
        }
    }
}
