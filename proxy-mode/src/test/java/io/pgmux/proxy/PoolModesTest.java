package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
            assertEquals("4MB", single(s, "SHOW work_mem"));
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
            assertEquals("0", single(sb, "SHOW statement_timeout"));
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
        }
        assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
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
            s.execute("DROP TABLE copied");
        }
        assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
    }

    /**
     * A client that reads more slowly than the server sends makes the proxy stop reading from the server and start
     * again: a COPY of a few megabytes to a consumer that pauses on every row goes through that many times.
     */
    @Test
    void copyOutToASlowClientCompletes() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.SESSION, b -> b.defaultPoolSize(1));
        Properties properties = new Properties();
        properties.setProperty("socketTimeout", "10");
        try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                properties)) {
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            for (int round = 0; round < 3; round++) {
                long[] bytes = {0};
                int[] writes = {0};
                OutputStream slow = new OutputStream() {
                    @Override
                    public void write(int b) {
                        bytes[0]++;
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        bytes[0] += len;
                        if (++writes[0] % 4 == 0) {
                            try {
                                Thread.sleep(1);
                            } catch (InterruptedException e) {
                                throw new InterruptedIOException();
                            }
                        }
                    }
                };
                long rows = copy.copyOut("COPY (SELECT repeat('x', 8000) FROM generate_series(1, 1000)) TO STDOUT",
                        slow);
                assertEquals(1000, rows);
                assertEquals(1000 * 8001, bytes[0]);
            }
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
        assertThrows(java.io.IOException.class, () -> new java.net.Socket("127.0.0.1", port).close());
        assertEquals(0, db.awaitConnections(io.pgmux.testing.Backends.all(), 0, java.time.Duration.ofSeconds(5)));
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
