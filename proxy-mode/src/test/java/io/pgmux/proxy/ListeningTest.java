package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the proxy listens, as PgBouncer does: every listen_addr entry (IPv4 and IPv6, loopback only here), the Unix
 * socket {@code .s.PGSQL.<port>} in unix_socket_dir with its lock, mode and clean-up, the admin console for the OS
 * user on that socket, and the TCP socket settings.
 */
@PostgresTest
class ListeningTest {
    private final TestDatabase db;
    @TempDir
    Path dir;

    ListeningTest(TestDatabase db) {
        this.db = db;
    }

    private static String currentDatabase(String jdbcUrl) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", ProxyFixture.USER);
        properties.setProperty("password", ProxyFixture.PASSWORD);
        try (Connection c = DriverManager.getConnection(jdbcUrl, properties); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_database()")) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    private String unixConnection(Path socketDir, int port, String user, String database) {
        return "host=" + socketDir + " port=" + port + " user=" + user + " dbname=" + database;
    }

    @Test
    void everyAddressOfTheListenAddrListServesClientsOnOnePort() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.listen("127.0.0.1, ::1", 0))) {
            int port = proxy.port();
            assertEquals(List.of("127.0.0.1:" + port, "[::1]:" + port), proxy.listening());
            assertEquals(db.name(), currentDatabase("jdbc:postgresql://127.0.0.1:" + port + "/" + db.name()));
            assertEquals(db.name(), currentDatabase("jdbc:postgresql://[::1]:" + port + "/" + db.name()));
        }
    }

    @Test
    void psqlConnectsThroughTheUnixSocketNamedAfterThePort() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir))) {
            Path socket = dir.resolve(".s.PGSQL." + proxy.port());
            assertEquals(socket, proxy.unixSocket());
            assertTrue(proxy.listening().contains("unix:" + socket), proxy.listening().toString());
            Psql.Result result = Psql.run(unixConnection(dir, proxy.port(), ProxyFixture.USER, db.name())
                    + " password=" + ProxyFixture.PASSWORD, "SELECT 6 * 7");
            assertTrue(result.succeeded(), result.output());
            assertEquals("42", result.output().strip());
        }
    }

    @Test
    void aUnixSocketDirStartingWithAtListensInTheAbstractNamespace() throws Exception {
        String name = "@pgmux-listening-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("unix_socket_dir", name))) {
            assertTrue(proxy.listening().contains("unix:" + name + "/.s.PGSQL." + proxy.port()),
                    proxy.listening().toString());
            Psql.Result result = Psql.run("host=" + name + " port=" + proxy.port() + " user=" + ProxyFixture.USER
                    + " dbname=" + db.name() + " password=" + ProxyFixture.PASSWORD, "SELECT 6 * 7");
            assertTrue(result.succeeded(), result.output());
            assertEquals("42", result.output().strip());
            // peer credentials exist on abstract sockets too: the OS user running the proxy is its admin there
            Psql.Result console = Psql.run("host=" + name + " port=" + proxy.port()
                    + " user=pgbouncer dbname=pgbouncer", "SHOW VERSION");
            assertTrue(console.succeeded(), console.output());
        }
    }

    @Test
    void anAbstractSocketNameInUseRefusesTheStart() throws Exception {
        String name = "@pgmux-taken-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        int port;
        try (PgMuxProxy first = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("unix_socket_dir", name))) {
            port = first.port();
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> ProxyFixture.start(db,
                    PoolMode.TRANSACTION, b -> b.listen("", port).set("unix_socket_dir", name)).close());
            assertTrue(e.getMessage().startsWith("cannot listen on unix:" + name + "/.s.PGSQL." + port),
                    e.getMessage());
        }
    }

    @Test
    void theSocketAndItsLockAreRemovedAtShutdown() throws Exception {
        Path socket;
        Path lock;
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir))) {
            socket = proxy.unixSocket();
            lock = Path.of(socket + ".lock");
            assertTrue(Files.exists(socket), "no socket file");
            assertEquals(String.valueOf(ProcessHandle.current().pid()), Files.readString(lock).strip());
        }
        assertFalse(Files.exists(socket), "the socket file is left behind");
        assertFalse(Files.exists(lock), "the lock file is left behind");
    }

    @Test
    void theOsUserRunningTheProxyUsesTheAdminConsoleOnTheUnixSocketWithoutAPassword() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir))) {
            Psql.Result result = Psql.run(unixConnection(dir, proxy.port(), "pgbouncer", "pgbouncer"), "SHOW VERSION");
            assertTrue(result.succeeded(), result.output());
            assertTrue(result.output().contains("PgBouncer"), result.output());
            // an admin command: the OS user has admin_users' rights, though admin_users is empty
            Psql.Result paused = Psql.run(unixConnection(dir, proxy.port(), "pgbouncer", "pgbouncer"), "PAUSE");
            assertTrue(paused.succeeded(), paused.output());
            Psql.Result resumed = Psql.run(unixConnection(dir, proxy.port(), "pgbouncer", "pgbouncer"), "RESUME");
            assertTrue(resumed.succeeded(), resumed.output());
        }
    }

    @Test
    void userPgbouncerOverTcpNeedsAPassword() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir))) {
            Psql.Result result = Psql.run("host=127.0.0.1 port=" + proxy.port()
                    + " user=pgbouncer dbname=pgbouncer password=wrong sslmode=disable", "SHOW VERSION");
            assertFalse(result.succeeded(), result.output());
            assertTrue(result.output().contains("password authentication failed"), result.output());
        }
    }

    @Test
    void aStaleSocketFileIsReplaced() throws Exception {
        int port;
        try (PgMuxProxy probe = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            port = probe.port();
        }
        Path socket = dir.resolve(".s.PGSQL." + port);
        // a socket file nobody listens on any more, as a killed pooler leaves it
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket));
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.listen("127.0.0.1", port).unixSocketDir(dir))) {
            Psql.Result result = Psql.run(unixConnection(dir, port, ProxyFixture.USER, db.name()) + " password="
                    + ProxyFixture.PASSWORD, "SELECT 1");
            assertTrue(result.succeeded(), result.output());
        }
    }

    @Test
    void aLockHeldByARunningProcessRefusesTheStart() throws Exception {
        int port;
        try (PgMuxProxy probe = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            port = probe.port();
        }
        Path lock = dir.resolve(".s.PGSQL." + port + ".lock");
        // PostgreSQL's lock file layout: the pid of a running process first
        Files.writeString(lock, ProcessHandle.current().pid() + "\n" + dir + "\n");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> ProxyFixture.start(db,
                PoolMode.TRANSACTION, b -> b.listen("127.0.0.1", port).unixSocketDir(dir)).close());
        assertEquals("unix port " + port + " is in use: lock file " + lock + " exists and process "
                + ProcessHandle.current().pid() + " is running", refused.getMessage());
        assertTrue(Files.exists(lock), "another process's lock was removed");
    }

    @Test
    void aStaleLockOfAProcessThatIsGoneIsTakenOver() throws Exception {
        int port;
        try (PgMuxProxy probe = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            port = probe.port();
        }
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path lock = dir.resolve(".s.PGSQL." + port + ".lock");
        Files.writeString(lock, gone.pid() + "\n");
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.listen("127.0.0.1", port).unixSocketDir(dir))) {
            assertEquals(String.valueOf(ProcessHandle.current().pid()), Files.readString(lock).strip());
        }
    }

    /** A pid is given again once its process is gone: a process that started after the lock was written is not its. */
    @Test
    void aLockWhosePidNowNamesALaterProcessIsTakenOver() throws Exception {
        int port;
        try (PgMuxProxy probe = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            port = probe.port();
        }
        Process later = new ProcessBuilder("sleep", "60").start();
        try {
            Path lock = dir.resolve(".s.PGSQL." + port + ".lock");
            Files.writeString(lock, later.pid() + "\n");
            Files.setLastModifiedTime(lock, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
            try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                    b -> b.listen("127.0.0.1", port).unixSocketDir(dir))) {
                assertEquals(String.valueOf(ProcessHandle.current().pid()), Files.readString(lock).strip());
            }
        } finally {
            later.destroy();
        }
    }

    @Test
    void unixSocketModeIsTheSocketFilesMode() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.unixSocketDir(dir).set("unix_socket_mode", "0700"))) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(proxy.unixSocket())));
        }
    }

    @Test
    void anUnknownUnixSocketGroupRefusesTheStartAndLeavesNoFiles() throws Exception {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> ProxyFixture.start(db,
                PoolMode.TRANSACTION, b -> b.unixSocketDir(dir).set("unix_socket_group", "no-such-group-x")).close());
        assertEquals("unix_socket_group no-such-group-x: no such group", refused.getMessage());
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.toList());
        }
    }

    @Test
    void soReuseportLetsTwoProxiesListenOnOnePort() throws Exception {
        try (PgMuxProxy first = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("so_reuseport", "1"))) {
            int port = first.port();
            try (PgMuxProxy second = ProxyFixture.start(db, PoolMode.TRANSACTION,
                    b -> b.listen("127.0.0.1", port).set("so_reuseport", "1"))) {
                assertEquals(port, second.port());
                assertEquals(db.name(), currentDatabase("jdbc:postgresql://127.0.0.1:" + port + "/" + db.name()));
            }
        }
    }

    @Test
    void withoutSoReuseportASecondProxyCannotTakeThePort() throws Exception {
        try (PgMuxProxy first = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            int port = first.port();
            var refused = assertThrows(java.io.UncheckedIOException.class, () -> ProxyFixture.start(db,
                    PoolMode.TRANSACTION, b -> b.listen("127.0.0.1", port)).close());
            assertTrue(refused.getMessage().startsWith("cannot listen on 127.0.0.1:" + port), refused.getMessage());
        }
    }

    @Test
    void clientsAndServersAreServedWithEveryTcpSettingSet() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("listen_backlog", "16")
                .set("tcp_defer_accept", "1").set("tcp_socket_buffer", "65536").set("tcp_keepalive", "1")
                .set("tcp_keepcnt", "3").set("tcp_keepidle", "30").set("tcp_keepintvl", "10")
                .set("tcp_user_timeout", "20000"))) {
            assertEquals(db.name(), currentDatabase(ProxyFixture.jdbcUrl(proxy, db.name())));
        }
    }
}
