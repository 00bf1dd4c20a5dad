package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.KeyForm;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar reads TLS keys in the forms operators have: its PEM parser is in the jar. */
@PostgresTest
class TlsKeyFileIT {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";

    private final TestDatabase db;
    @TempDir
    Path dir;

    TlsKeyFileIT(TestDatabase db) {
        this.db = db;
    }

    @Test
    void psqlVerifyFullLogsInThroughTheJarStartedWithAPkcs1Key() throws Exception {
        TestCertificates ca = TestCertificates.authority(Files.createDirectory(dir.resolve("ca")), "jar key CA");
        Path key = KeyForm.PKCS1_RSA.write(dir.resolve("server.key"));
        Path certificate = ca.sign("server", KeyForm.request(key, "localhost", dir.resolve("server.csr")),
                "dns:localhost");
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n");
        Path ini = Files.writeString(dir.resolve("pgbouncer.ini"), "[databases]\n"
                + "app = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\nauth_type = scram-sha-256\n"
                + "auth_file = userlist.txt\nunix_socket_dir = " + dir + "\n"
                + "client_tls_sslmode = require\nclient_tls_cert_file = " + certificate + "\n"
                + "client_tls_key_file = " + key + "\n");
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            Process psql = new ProcessBuilder(Clients.executable("psql", "install the PostgreSQL client tools to"
                    + " run this test").toString(), "-X", "-A", "-t", "-c", "\\conninfo", "host=localhost"
                    + " hostaddr=127.0.0.1 port=" + port + " dbname=app user=" + USER + " password=" + PASSWORD
                    + " sslmode=verify-full sslrootcert=" + ca.caCertificate() + " connect_timeout=10")
                    .redirectErrorStream(true).start();
            assertTrue(psql.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
            String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, psql.exitValue(), output);
            assertTrue(output.contains("SSL connection"), output);
        }
    }
}
