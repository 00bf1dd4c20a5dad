package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.ReadPauses;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/** Session and statement mode, and COPY through the proxy. */
@PostgresTest
class PoolModesTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    PoolModesTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void sessionModeKeepsSessionStateUntilDisconnect() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.SESSION, b -> b.defaultPoolSize(1));
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE scratch (v int)");
            s.execute("SET work_mem = '7MB'");
            s.execute("INSERT INTO scratch VALUES (1)");
            assertEquals("7MB", single(s, "SHOW work_mem"));
            assertEquals("1", single(s, "SELECT count(*) FROM scratch"));
        }
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            assertEquals(serverDefault("work_mem"), single(s, "SHOW work_mem"));
            assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM scratch"));
        }
    }

    /** A setting the first client asked for at startup is put back to the server's default for the next one. */
    @Test
    void startupSettingsOfOneClientDoNotReachTheNextClientOfItsServer() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
        Properties timeout = new Properties();
        timeout.setProperty("options", "-c statement_timeout=1234 -c pgmux.custom=set");
        try (Connection a = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, timeout);
             Connection b = ProxyFixture.connect(proxy, db); Statement sa = a.createStatement();
             Statement sb = b.createStatement()) {
            assertEquals("1234ms", single(sa, "SHOW statement_timeout"));
            assertEquals(serverDefault("statement_timeout"), single(sb, "SHOW statement_timeout"));
            assertEquals("", single(sb, "SELECT current_setting('pgmux.custom', true)"));
            assertEquals("set", single(sa, "SHOW pgmux.custom"));
        }
    }

    @Test
    void statementModeRunsSingleStatements() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.STATEMENT, b -> b.defaultPoolSize(1));
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            assertEquals("2", single(s, "SELECT 1 + 1"));
            assertEquals("3", single(s, "SELECT 1 + 2"));
        }
    }

    @Test
    void statementModeRefusesTransactionBlocks() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.STATEMENT, b -> b.defaultPoolSize(1));
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT 1"));
            assertTrue(e.getMessage().contains("transaction blocks not allowed in statement pooling mode"),
                    e.getMessage());
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0),
                    "the refused client, still connected, holds no server");
        }
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            assertEquals("t", single(s, "SELECT txid_current_if_assigned() IS NULL"));
        }
    }

    @Test
    void copyInAndOutThroughTheProxy() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(2));
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE copied (id int, name text)");
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            StringBuilder rows = new StringBuilder();
            for (int i = 0; i < 5000; i++) {
                rows.append(i).append('\t').append("row ").append(i).append('\n');
            }
            long in = copy.copyIn("COPY copied FROM STDIN", new StringReader(rows.toString()));
            assertEquals(5000, in);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long copiedOut = copy.copyOut("COPY (SELECT * FROM copied ORDER BY id) TO STDOUT", out);
            assertEquals(5000, copiedOut);
            assertEquals(rows.toString(), out.toString(StandardCharsets.UTF_8));
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0),
                    "the server goes back to the pool when a COPY ends, the client still connected");
            s.execute("DROP TABLE copied");
        }
    }

    /**
     * A client that reads nothing of a COPY's output makes the proxy stop reading from the server: the server
     * connection's channel stops reading and the backend blocks writing, instead of the proxy taking the whole
     * output into memory. Once the client reads, the proxy reads again and all of it arrives.
     */
    @Test
    void copyOutToAClientThatDoesNotReadPausesReadingFromTheServerUntilItDoes() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.SESSION, b -> b.defaultPoolSize(1).authType(AuthType.TRUST));
        int rows = 8000;
        int rowBytes = 8001;
        String sql = "COPY (SELECT repeat('x', 8000) FROM generate_series(1, " + rows + ")) TO STDOUT";
        try (RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            client.query(sql);
            int backend = db.awaitRunningQuery(sql, Duration.ofSeconds(10));
            ConnectionSocket server = ProxyFixture.pool(proxy, db).view().serverSnapshots().get(0).connection.socket();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (reading(server) || !"ClientWrite".equals(waitEvent(backend))) {
                assertTrue(System.nanoTime() < deadline, "the proxy kept reading the " + rows * rowBytes
                        + "-byte COPY for a client that read none of it (backend wait event: " + waitEvent(backend)
                        + ", server channel reads: " + reading(server) + ")");
                Thread.sleep(10);
            }

            long copied = 0;
            RawClient.Message m;
            while ((m = client.read()).type() == 'H' || m.type() == 'd') {
                if (m.type() == 'd') {
                    copied += m.body().length;
                }
            }
            assertEquals((long) rows * rowBytes, copied);
            assertEquals('c', m.type(), "CopyDone");
            m = client.read();
            assertEquals("COPY " + rows, new String(m.body(), 0, m.body().length - 1, StandardCharsets.UTF_8));
            assertEquals('Z', client.read().type());
            assertTrue(reading(server), "reading from the server again once the client drained");
        }
    }

    /** Whether no reason to pause the socket's reads is set, asked on its event loop. */
    private static boolean reading(ConnectionSocket socket) throws Exception {
        return socket.eventLoop().submit(socket::isReading).get();
    }

    /** The setting as a new session of the fixture's superuser gets it from the server, not through the proxy. */
    private String serverDefault(String setting) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            return single(s, "SHOW " + setting);
        }
    }

    /** pg_stat_activity's wait_event of that backend now, or null. */
    private String waitEvent(int backend) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT wait_event FROM pg_stat_activity WHERE pid = " + backend)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void closeDisconnectsClientsThatOutlastTheDrainAndStopsListening() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.SESSION, b -> b.drainTimeout(java.time.Duration.ofMillis(300)));
        int port = proxy.port();
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            assertEquals("1", single(s, "SELECT 1"));
            long start = System.nanoTime();
            proxy.close();
            assertTrue(System.nanoTime() - start < java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
            assertThrows(SQLException.class, () -> single(s, "SELECT 2"));
        } finally {
            proxy = null;
        }
        assertPortReleased(port);
        assertEquals(0, db.awaitConnections(io.pgmux.testing.Backends.all(), 0, java.time.Duration.ofSeconds(5)));
    }

    /**
     * Listens on the port itself: with SO_REUSEADDR Linux refuses that only while another socket listens there,
     * so it succeeds exactly when the proxy stopped listening. (A refused connect would prove nothing once
     * anyone else may have started listening on the freed port.)
     */
    private static void assertPortReleased(int port) throws IOException {
        try (ServerSocket held = new ServerSocket()) {
            held.setReuseAddress(true);
            held.bind(new InetSocketAddress("127.0.0.1", port));
        }
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
