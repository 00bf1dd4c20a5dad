package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the runnable jar logs the end of a client that pgjdbc closes or uses to cancel: PgBouncer 1.25's words, which
 * an operator's log watcher reads (an unexpected EOF is a client that crashed or lost its network).
 */
@PostgresTest
class ClientEndLoggingIT {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String CLIENT = "C-0x[0-9a-f]{8}: ";

    private final TestDatabase db;
    @TempDir
    Path dir;

    ClientEndLoggingIT(TestDatabase db) {
        this.db = db;
    }

    private ProxyJar start(String... extra) throws Exception {
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\npool_mode = transaction\n"
                + "auth_type = scram-sha-256\nauth_file = userlist.txt\nunix_socket_dir =\n"
                + String.join("\n", extra) + "\n");
        return ProxyJar.start(ini.toString());
    }

    private static Connection connect(int port) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", USER);
        properties.setProperty("password", PASSWORD);
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/app", properties);
    }

    private static List<String> matching(ProxyJar proxy, String regex) {
        Pattern pattern = Pattern.compile(regex);
        return proxy.stderr().stream().filter(line -> pattern.matcher(line).find()).toList();
    }

    /**
     * pgjdbc's close sends Terminate at once after a SET, while the proxy still reads the session's settings back
     * from the server before it goes back to the pool: the Terminate was sent, so PgBouncer's close request.
     */
    @Test
    void aClientClosingRightAfterASetIsLoggedAsAClientCloseRequest() throws Exception {
        int clients = 20;
        try (ProxyJar proxy = start()) {
            int port = proxy.awaitPort();
            for (int i = 0; i < clients; i++) {
                try (Connection c = connect(port); Statement s = c.createStatement()) {
                    s.execute("SET application_name = 'closing-" + i + "'");
                }
            }
            String closing = CLIENT + "app/app@127\\.0\\.0\\.1:\\d+ closing because: ";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (matching(proxy, closing).size() < clients && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            List<String> lines = matching(proxy, closing);
            assertEquals(clients, lines.size(), String.join("\n", proxy.stderr()));
            assertEquals(lines, matching(proxy, closing + "client close request \\(age=\\d+s\\)$"));
        }
    }

    /** A console session's handler replaces the client's: its end is logged all the same, once. */
    @Test
    void anAdminConsoleSessionsEndIsLoggedOnceAsAClientCloseRequest() throws Exception {
        try (ProxyJar proxy = start("admin_users = " + USER)) {
            int port = proxy.awaitPort();
            Properties properties = new Properties();
            properties.setProperty("user", USER);
            properties.setProperty("password", PASSWORD);
            properties.setProperty("preferQueryMode", "simple");
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/pgbouncer",
                    properties); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW VERSION")) {
                assertTrue(rs.next());
            }
            String closing = CLIENT + "pgbouncer/app@127\\.0\\.0\\.1:\\d+ closing because: ";
            proxy.awaitStderr(Pattern.compile(closing + "client close request \\(age=\\d+s\\)$"));
            Thread.sleep(500);
            assertEquals(1, matching(proxy, closing).size(), String.join("\n", proxy.stderr()));
        }
    }

    /**
     * A cancel request's connection is PgBouncer's: the server connection opened to send it and its end, and the
     * request's own end under the cancelled client's database, never an unexpected EOF of (nodb)/(nouser).
     */
    @Test
    void aCancelRequestIsLoggedAsSentWithTheConnectionThatCarriedIt() throws Exception {
        try (ProxyJar proxy = start()) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port); Statement s = c.createStatement()) {
                CompletableFuture<Void> sleeping = CompletableFuture.runAsync(() -> {
                    try {
                        s.execute("SELECT pg_sleep(60)");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                awaitSleeping();
                s.cancel();
                Exception cancelled = assertThrows(Exception.class, () -> sleeping.get(60, TimeUnit.SECONDS));
                assertEquals("57014", ((SQLException) cancelled.getCause().getCause()).getSQLState());
            }
            proxy.awaitStderr(Pattern.compile("LOG " + CLIENT + "app/\\(nouser\\)@127\\.0\\.0\\.1:\\d+ closing because:"
                    + " successfully sent cancel request \\(age=\\d+s\\)$"));
            String server = "LOG S-0x[0-9a-f]{8}: app/" + Pattern.quote(db.superuser()) + "@\\S+:" + db.port() + " ";
            proxy.awaitStderr(Pattern.compile(server + "closing because: successfully sent cancel request"
                    + " \\(age=\\d+s\\)$"));
            assertEquals(2, matching(proxy, server + "new connection to server").size(),
                    "the pool's connection and the cancel's: " + String.join("\n", proxy.stderr()));
            assertTrue(matching(proxy, "unexpected eof").isEmpty(), String.join("\n", proxy.stderr()));
        }
    }

    private void awaitSleeping() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection admin = db.connect(); Statement s = admin.createStatement()) {
            while (true) {
                try (ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT"
                        + " pg_sleep(60)' AND state = 'active'")) {
                    rows.next();
                    if (rows.getInt(1) > 0) {
                        return;
                    }
                }
                assertTrue(System.nanoTime() < deadline, "the query never started");
                Thread.sleep(50);
            }
        }
    }
}
