package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.InstalledServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's replication tools and a logical-replication subscriber through the proxy (issue 23, point 2): each
 * opens replication connections ({@code replication=true} or {@code database}) whose protocol the proxy passes
 * through to a server connection of the client's own, in transaction pool mode. The tools refuse a server newer
 * than themselves, so the server here is the installed one, not the embedded fixture's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicationToolsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private InstalledServer server;
    private PgMuxProxy proxy;

    @BeforeAll
    void start() throws SQLException {
        server = InstalledServer.start();
        try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE source");
            s.execute("CREATE DATABASE target");
        }
        String url = "postgresql://" + server.superuser() + "@" + server.host() + ":" + server.port() + "/";
        proxy = PgMuxProxy.builder()
                .listen("127.0.0.1", 0)
                .database("source", url + "source")
                .database("target", url + "target")
                // pg_basebackup and pg_receivewal ask for database "replication" whatever dbname says, as with PgBouncer
                .database("replication", url + "postgres")
                .poolMode(PoolMode.TRANSACTION)
                .defaultPoolSize(4)
                .authType(AuthType.MD5)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .threads(2)
                .start();
    }

    @AfterAll
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private String conninfo(String database) {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=" + database + " user=" + ProxyFixture.USER
                + " password=" + ProxyFixture.PASSWORD;
    }

    private Process tool(String program, String... arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(server.binaries().resolve(program).toString());
        command.addAll(List.of(arguments));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private void sql(String database, String... statements) throws SQLException {
        try (Connection c = server.connect(database); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private long count(String database, String query) throws SQLException {
        try (Connection c = server.connect(database); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long awaitCount(String database, String query, long wanted) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long now;
        while ((now = count(database, query)) != wanted && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        return now;
    }

    private static String output(Process process) throws IOException {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void pgBasebackupCopiesTheClusterWithItsWalStreamedAlongside(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("copy");
        Process backup = tool("pg_basebackup", "--dbname", conninfo("source"), "--checkpoint=fast",
                "--wal-method=stream", "--pgdata", copy.toString());
        assertTrue(backup.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "pg_basebackup did not finish");
        String output = output(backup);
        assertEquals(0, backup.exitValue(), output);
        assertTrue(Files.isRegularFile(copy.resolve("PG_VERSION")), output);
        assertTrue(Files.isRegularFile(copy.resolve("backup_label")), output);
        try (Stream<Path> wal = Files.list(copy.resolve("pg_wal"))) {
            assertTrue(wal.anyMatch(f -> f.getFileName().toString().matches("[0-9A-F]{24}")), "no WAL segment");
        }
    }

    @Test
    void pgReceivewalWritesTheWalOfASlotUntilInterrupted(@TempDir Path dir) throws Exception {
        sql("postgres", "SELECT pg_create_physical_replication_slot('receivewal')");
        Process receive = tool("pg_receivewal", "--dbname", conninfo("source"), "--slot=receivewal",
                "--directory", dir.toString());
        try {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!hasFiles(dir) && receive.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(hasFiles(dir), "pg_receivewal wrote nothing");
            new ProcessBuilder("kill", "-INT", Long.toString(receive.pid())).start().waitFor();
            assertTrue(receive.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "pg_receivewal did not stop");
            assertEquals(0, receive.exitValue(), output(receive));
        } finally {
            receive.destroyForcibly().waitFor();
            sql("postgres", "SELECT pg_drop_replication_slot('receivewal')");
        }
    }

    private static boolean hasFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.findAny().isPresent();
        }
    }

    @Test
    void pgRecvlogicalPrintsTheChangesOfATestDecodingSlot() throws Exception {
        sql("source", "CREATE TABLE recvlogical(a int)",
                "SELECT pg_create_logical_replication_slot('recvlogical', 'test_decoding')");
        Process receive = tool("pg_recvlogical", "--dbname", conninfo("source"), "--slot=recvlogical", "--file=-",
                "--no-loop", "--start");
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(receive.getInputStream(),
                StandardCharsets.UTF_8))) {
            sql("source", "INSERT INTO recvlogical VALUES (1)");
            assertTrue(lines.readLine().startsWith("BEGIN "));
            assertEquals("table public.recvlogical: INSERT: a[integer]:1", lines.readLine());
            assertTrue(lines.readLine().startsWith("COMMIT "));
        } finally {
            receive.destroyForcibly().waitFor();
            awaitCount("postgres", "SELECT count(*) FROM pg_replication_slots WHERE active", 0);
            sql("postgres", "SELECT pg_drop_replication_slot('recvlogical')");
        }
    }

    @Test
    void aSubscriberWhoseConnectionStringNamesTheProxyReplicatesRows() throws Exception {
        sql("source", "CREATE TABLE subscribed(a int)", "INSERT INTO subscribed VALUES (1)",
                "CREATE PUBLICATION pub FOR TABLE subscribed",
                "SELECT pg_create_logical_replication_slot('subscriber', 'pgoutput')");
        // the slot made apart: a subscription on the same cluster that creates its own waits for itself forever
        sql("target", "CREATE TABLE subscribed(a int)", "CREATE SUBSCRIPTION sub CONNECTION '" + conninfo("source")
                + "' PUBLICATION pub WITH (slot_name = subscriber, create_slot = false)");
        try {
            assertEquals(1, awaitCount("target", "SELECT count(*) FROM subscribed", 1), "the initial copy");
            sql("source", "INSERT INTO subscribed VALUES (2)");
            assertEquals(2, awaitCount("target", "SELECT count(*) FROM subscribed", 2), "the streamed insert");
        } finally {
            sql("target", "ALTER SUBSCRIPTION sub DISABLE", "ALTER SUBSCRIPTION sub SET (slot_name = NONE)",
                    "DROP SUBSCRIPTION sub");
            awaitCount("postgres", "SELECT count(*) FROM pg_replication_slots WHERE active", 0);
            sql("postgres", "SELECT pg_drop_replication_slot('subscriber')");
        }
    }
}
