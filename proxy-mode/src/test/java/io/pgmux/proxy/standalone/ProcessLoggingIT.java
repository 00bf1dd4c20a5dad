package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.RawClient;
import io.pgmux.proxy.log.Syslog;
import io.pgmux.proxy.log.SyslogReceiver;
import io.pgmux.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar's logging beyond stderr and the logfile: syslog, syslog_ident and syslog_facility (to a Unix
 * datagram socket the test binds, standing for /dev/log), and verbose with {@code -v}; RELOAD changes each as
 * PgBouncer's does. No server is needed: the admin console answers on its own.
 */
class ProcessLoggingIT {
    private static final String ADMIN = "admin";

    @TempDir
    Path dir;

    /** A pgbouncer.ini whose console user {@value #ADMIN} logs in without a password, plus {@code extra} lines. */
    private Path ini(String... extra) throws Exception {
        Files.writeString(dir.resolve("userlist.txt"), "\"" + ADMIN + "\" \"\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=127.0.0.1 port=1\n[pgbouncer]\nlisten_addr = 127.0.0.1\n"
                + "listen_port = 0\nunix_socket_dir =\nauth_type = trust\nauth_file = userlist.txt\n"
                + "admin_users = " + ADMIN + "\n" + String.join("\n", extra) + "\n");
        return ini;
    }

    private static List<String> syslogAt(Path socket) {
        return List.of("-D" + Syslog.SOCKET_PROPERTY + "=" + socket);
    }

    private static void console(int port, String command) throws SQLException {
        console(port, command, "prefer");
    }

    private static void console(int port, String command, String sslmode) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("sslmode", sslmode);
        properties.setProperty("user", ADMIN);
        properties.setProperty("preferQueryMode", "simple");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/pgbouncer",
                properties); Statement s = c.createStatement()) {
            s.execute(command);
        }
    }

    @Test
    void syslogGetsTheLogLinesUnderItsIdentAndFacilityAndReloadChangesThem() throws Exception {
        try (SyslogReceiver daemon = new SyslogReceiver(dir.resolve("log"))) {
            Path ini = ini("syslog = 1", "syslog_ident = pool-a", "syslog_facility = local2");
            try (ProxyJar proxy = ProxyJar.start(syslogAt(daemon.path()), ini.toString())) {
                int port = proxy.awaitPort();
                Matcher listening = daemon.await(Pattern.compile(
                        "<(\\d+)>\\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d pool-a\\[(\\d+)\\]: listening on 127\\.0\\.0\\.1:"
                                + port));
                assertEquals(18 * 8 + 6, Integer.parseInt(listening.group(1)), "local2.info");
                assertEquals(proxy.pid(), Long.parseLong(listening.group(2)));
                Files.writeString(ini, Files.readString(ini).replace("pool-a", "pool-b").replace("local2", "user"));
                proxy.signal("HUP");
                Matcher applied = daemon.await(Pattern.compile("<(\\d+)>.* pool-b\\[\\d+\\]: RELOAD: configuration"
                        + " applied"));
                assertEquals(8 + 6, Integer.parseInt(applied.group(1)), "user.info");
                Files.writeString(ini, Files.readString(ini).replace("syslog = 1", "syslog = 0"));
                console(port, "RELOAD");
                proxy.awaitStderr(Pattern.compile("LOG RELOAD from the admin console: configuration applied$"));
                console(port, "SHOW VERSION");
                proxy.signal("INT");
                assertEquals(0, proxy.awaitExit());
                List<String> received = daemon.received();
                assertTrue(received.stream().noneMatch(line -> line.endsWith("shutdown complete")),
                        "a line after syslog = 0 went to syslog: " + received);
            }
        }
    }

    @Test
    void syslogKeepsDebugLinesOutAsPgBouncersDoes() throws Exception {
        try (SyslogReceiver daemon = new SyslogReceiver(dir.resolve("log"));
                ProxyJar proxy = ProxyJar.start(syslogAt(daemon.path()), "-v", ini("syslog = 1").toString())) {
            int port = proxy.awaitPort();
            console(port, "SHOW VERSION");
            proxy.awaitStderr(Pattern.compile("DEBUG admin console admin: SHOW VERSION$"));
            console(port, "SHOW HELP");
            proxy.awaitStderr(Pattern.compile("DEBUG admin console admin: SHOW HELP$"));
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
            daemon.await(Pattern.compile("<30>.* pgbouncer\\[\\d+\\]: shutdown complete"));
            List<String> received = daemon.received();
            assertTrue(received.stream().noneMatch(line -> line.contains("admin console admin: SHOW")),
                    String.join("\n", received));
        }
    }

    @Test
    void syslogWithoutASocketIsSaidOnceAndTheProxyServes() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(syslogAt(dir.resolve("missing")), ini("syslog = 1").toString())) {
            int port = proxy.awaitPort();
            console(port, "RELOAD");
            proxy.awaitStderr(Pattern.compile("LOG RELOAD from the admin console: configuration applied$"));
            List<String> said = proxy.stderr().stream().filter(line -> line.contains("syslog")).toList();
            assertEquals(1, said.size(), String.join("\n", proxy.stderr()));
            assertTrue(said.get(0).endsWith("WARNING syslog = 1, but there is no syslog to write to ("
                    + dir.resolve("missing") + " does not exist): log lines go to stderr and the logfile only"),
                    said.get(0));
        }
    }

    @Test
    void verboseAddsTheDebugLinesAndAReloadWithoutItTakesThemAway() throws Exception {
        Path ini = ini("verbose = 1");
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            console(port, "SHOW VERSION");
            proxy.awaitStderr(Pattern.compile("DEBUG admin console admin: SHOW VERSION$"));
            Files.writeString(ini, Files.readString(ini).replace("verbose = 1", "verbose = 0"));
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("LOG RELOAD: configuration applied$"));
            // the line is written before the answer is sent: once the answer is in, it would be there
            console(port, "SHOW HELP");
            assertFalse(proxy.stderr().stream().anyMatch(line -> line.contains("admin console admin: SHOW HELP")),
                    String.join("\n", proxy.stderr()));
        }
    }

    @Test
    void dashVOnTheCommandLineAddsTheDebugLines() throws Exception {
        try (ProxyJar quiet = ProxyJar.start(ini().toString())) {
            console(quiet.awaitPort(), "SHOW VERSION");
            assertFalse(quiet.stderr().stream().anyMatch(line -> line.contains("DEBUG")),
                    String.join("\n", quiet.stderr()));
        }
        try (ProxyJar verbose = ProxyJar.start("-v", ini().toString())) {
            console(verbose.awaitPort(), "SHOW VERSION");
            verbose.awaitStderr(Pattern.compile("DEBUG admin console admin: SHOW VERSION$"));
        }
    }

    /** PgBouncer's suite (test_system_error_propagation) and operators' log watchers look for this line. */
    @Test
    void aReloadWithoutTheCertificateFileLogsPgBouncersTlsSetupFailedLineInTheLogfile() throws Exception {
        TestCertificates ca = TestCertificates.authority(Files.createDirectory(dir.resolve("ca")), "logging CA");
        TestCertificates.Issued certificate = ca.issue("proxy", "localhost", "dns:localhost");
        Path missing = dir.resolve("dummy.crt");
        Path ini = ini("logfile = pgmux.log", "client_tls_sslmode = require",
                "client_tls_cert_file = " + certificate.certificate(),
                "client_tls_key_file = " + certificate.privateKey(), "client_tls_ca_file = " + ca.caCertificate());
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            Files.writeString(ini, Files.readString(ini).replace("client_tls_cert_file = "
                    + certificate.certificate(), "client_tls_cert_file = " + missing));
            SQLException refused = assertThrows(SQLException.class, () -> console(port, "RELOAD", "require"));
            assertEquals("F0000", refused.getSQLState(), refused.getMessage());
            String line = "ERROR TLS setup failed: failed to load certificate file \"" + missing
                    + "\": No such file or directory";
            proxy.awaitStderr(Pattern.compile(Pattern.quote(line) + "$"));
            List<String> logged = Files.readAllLines(dir.resolve("pgmux.log")).stream()
                    .filter(l -> l.contains("TLS setup failed")).toList();
            assertEquals(1, logged.size(), String.join("\n", logged));
            assertTrue(logged.get(0).endsWith(line), logged.get(0));
        }
    }

    @Test
    void aSetOfAnUnknownTls13CipherSuiteLogsPgBouncersLineAndKeepsTheRunningTls() throws Exception {
        TestCertificates ca = TestCertificates.authority(Files.createDirectory(dir.resolve("ca")), "cipher CA");
        TestCertificates.Issued certificate = ca.issue("proxy", "localhost", "dns:localhost");
        Path ini = ini("client_tls_sslmode = require", "client_tls_cert_file = " + certificate.certificate(),
                "client_tls_key_file = " + certificate.privateKey());
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            console(port, "SET client_tls13_ciphers = 'unknown'", "require");
            proxy.awaitStderr(Pattern.compile("ERROR TLS setup failed: failed to set the TLSv1.3 cipher suites: "
                    + "client_tls13_ciphers"));
            console(port, "SHOW VERSION", "require");
        }
    }

    /**
     * PgBouncer logs why it closes a client before the error goes out; its suite, like an operator's watcher,
     * reads the log as soon as the client has the error.
     */
    @Test
    void theClosingLineOfAClientRefusedAtLoginIsInTheLogfileOnceTheClientHasTheError() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log").toString())) {
            int port = proxy.awaitPort();
            for (int attempt = 1; attempt <= 20; attempt++) {
                try (RawClient client = new RawClient(port)) {
                    client.startup(Map.of("user", "nosuchuser", "database", "app"));
                    RawClient.Message error = client.read();
                    assertEquals('E', error.type());
                    assertEquals("\"trust\" authentication failed", error.field('M'));
                    List<String> closing = Files.readAllLines(logfile).stream()
                            .filter(line -> line.contains("closing because: \"trust\" authentication failed (age="))
                            .toList();
                    assertEquals(attempt, closing.size(), String.join("\n", Files.readAllLines(logfile)));
                }
            }
        }
    }
}
