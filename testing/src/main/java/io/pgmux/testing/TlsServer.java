package io.pgmux.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server of {@code @PostgresTest(tls = true)} classes: a second embedded PostgreSQL, started on first use
 * and kept for the JVM, that serves TLS from its start with {@link ServerCertificates} (TLS 1.3 only, so that
 * a client limited to older protocols is refused) and whose pg_hba.conf has the {@link TlsRule} lines. It is
 * embedded whatever serves the other classes (the fixture cannot give a PG_TEST_URL server its rules), and
 * the shared server stays as it is. A failure to start is remembered, as {@link SharedServer} does.
 */
final class TlsServer {
    private static final Logger LOG = LoggerFactory.getLogger(TlsServer.class);
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static PgServer server;
    private static RuntimeException failure;

    private TlsServer() {
    }

    static PgServer get() {
        LOCK.lock();
        try {
            if (server == null && failure == null) {
                try {
                    server = launch();
                } catch (IOException e) {
                    failure = new UncheckedIOException(e);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (failure != null) {
                throw new IllegalStateException("no PostgreSQL with TLS for tests: " + failure.getMessage(), failure);
            }
            return server;
        } finally {
            LOCK.unlock();
        }
    }

    private static PgServer launch() throws IOException {
        Path directory = Files.createTempDirectory("pgmux-tls-server-");
        TestCertificates authority = TestCertificates.authority(directory, "pgmux test server CA");
        TestCertificates.Issued certificate = authority.issue("server", ServerCertificates.CERTIFIED_HOST,
                "dns:" + ServerCertificates.CERTIFIED_HOST);
        EmbeddedServer launched;
        try {
            launched = EmbeddedServer.launch("embedded PostgreSQL with TLS", Map.of(
                    "ssl", "on",
                    "ssl_cert_file", certificate.certificate().toAbsolutePath().toString(),
                    "ssl_key_file", certificate.privateKey().toAbsolutePath().toString(),
                    "ssl_ca_file", authority.caCertificate().toAbsolutePath().toString(),
                    "ssl_min_protocol_version", "TLSv1.3"), AuthRules.tlsFile());
        } catch (IOException | RuntimeException e) {
            EmbeddedServer.deleteTree(directory);
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            launched.shutdown();
            EmbeddedServer.deleteTree(directory);
        }, "pgmux-test-tls-server-shutdown"));
        launched.useCertificates(new ServerCertificates(authority));
        for (TlsRule rule : TlsRule.values()) {
            launched.execute("create role " + rule.groupRole(), "CREATE ROLE " + rule.groupRole() + " NOLOGIN");
        }
        LOG.info("TLS tests use {}", launched.description());
        return launched;
    }
}
