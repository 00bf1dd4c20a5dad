package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.EpollSocket;
import io.pgmux.proxy.transport.ReadPauses;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A logged-in server connection over plain TCP on the epoll transport leaves its Netty channel and is served by an
 * {@link EpollSocket}, as a logged-in client is: what the channel did for it (framing across reads, pausing while
 * its client cannot take more, the close, SUSPEND, the console's views) the socket does alike.
 */
@PostgresTest
class ServerSocketWithoutChannelTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** More queries than one writev takes (IOV_MAX, 1,024 buffers), each forwarded as a buffer of its own. */
    private static final int PIPELINED = 1100;

    private final TestDatabase db;
    private PgMuxProxy proxy;

    ServerSocketWithoutChannelTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        // one event loop, which a test may hold while the client and the server both send
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.adminUsers(ProxyFixture.USER).defaultPoolSize(1).threads(1));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    private RawClient client() throws IOException {
        return RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
    }

    /** The pool's one server connection, once it is served without a channel. */
    private ServerConnection servedServer() {
        return Await.value(() -> {
            Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
            List<ServerConnection> servers = pool.view().serverSnapshots().stream()
                    .map(s -> s.connection).filter(c -> c != null && c.isOpen()).toList();
            return servers.size() == 1 ? servers.get(0) : null;
        }, server -> server.socket() instanceof EpollSocket, WAIT);
    }

    private static boolean reading(ConnectionSocket socket) throws Exception {
        return socket.eventLoop().submit(socket::isReading).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aLoggedInServerOverTcpIsServedWithoutAChannelAndRelays() throws Exception {
        assertEquals(TransportKind.EPOLL, proxy.transport());
        try (RawClient client = client()) {
            client.query("SELECT 0");
            client.readUntilReady();
            assertInstanceOf(EpollSocket.class, servedServer().socket());
            for (int i = 1; i < 4; i++) {
                client.query("SELECT " + i);
                assertEquals(String.valueOf(i), RawClient.firstColumn(client.readUntilReady()));
            }
        }
    }

    /**
     * A result far larger than one read of the server, to a client that does not read for a while, arrives whole and
     * in order: the server's messages are framed across reads, and its socket pauses while the client's is full.
     */
    @Test
    void aLargeResultToAClientThatReadsLateArrivesWhole() throws Exception {
        try (RawClient client = client()) {
            client.query("SELECT 1");
            client.readUntilReady();
            ConnectionSocket server = servedServer().socket();
            client.query("SELECT repeat('z', 1000) || g FROM generate_series(1, 20000) g");
            Await.until(() -> !reading(server), WAIT, "the server's reads paused for a client that reads nothing");
            List<RawClient.Message> answer = client.readUntilReady();
            int rows = 0;
            for (RawClient.Message m : answer) {
                if (m.type() == 'D') {
                    rows++;
                    String value = new String(m.body(), 6, m.body().length - 6, StandardCharsets.UTF_8);
                    assertEquals("z".repeat(1000) + rows, value);
                }
            }
            assertEquals(20000, rows);
            assertTrue(reading(server), "reading the server again once the client drained");
            client.query("SELECT 'after'");
            assertEquals("after", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /** A backend terminated while its connection is idle closes that connection; the next request gets another. */
    @Test
    void aServerTerminatedWhileIdleIsClosedAndReplaced() throws Exception {
        try (RawClient client = client()) {
            client.query("SELECT pg_backend_pid()");
            int pid = Integer.parseInt(RawClient.firstColumn(client.readUntilReady()));
            ServerConnection first = servedServer();
            assertEquals(1, db.terminateBackends(), "the pool's one backend terminated");
            Await.until(() -> !first.isOpen(), WAIT, "the terminated server's connection closed");
            client.query("SELECT pg_backend_pid()");
            assertNotEquals(pid, Integer.parseInt(RawClient.firstColumn(client.readUntilReady())));
        }
    }

    /**
     * A server that hangs up while its reads pause, as they do for a client that cannot take more, has what it sent
     * before read to its end: the client gets its whole answer, as over a channel, not the close alone.
     */
    @Test
    void aServerThatHangsUpWhileItsReadsPauseHasItsAnswerRelayed() throws Exception {
        try (RawClient client = client()) {
            client.query("SELECT pg_backend_pid()");
            int pid = Integer.parseInt(RawClient.firstColumn(client.readUntilReady()));
            ServerConnection server = servedServer();
            String sql = "SELECT 'answered', pg_sleep(0.3)";
            client.query(sql);
            assertEquals(pid, db.awaitRunningQuery(sql, WAIT));
            server.socket().pauseReads(ReadPauses.PEER_NOT_WRITABLE, true);
            Await.until(() -> "idle".equals(backendState(pid)), WAIT, "the backend done with the query");
            assertFalse(reading(server.socket()), "the server's reads paused");
            assertEquals(1, db.terminateBackends(), "the pool's one backend terminated");
            Await.until(() -> !server.isOpen(), WAIT, "the server's connection closed");
            assertEquals("answered", RawClient.firstColumn(client.readUntilReady()));
            client.query("SELECT 'next'");
            assertEquals("next", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /**
     * A backend that went away while its idle connection was not read (its FATAL and its close arrived as a client's
     * pipelined queries did) fails the second send of them, the first having drawn a reset: more queries than one
     * writev takes, so the rest go in a send of their own. Its FATAL is read before that failure is heard: it says
     * no query reached a backend, and all go to another server.
     */
    @Test
    void aServerFoundGoneByAFailedSendHasItsFatalReadAndTheRequestGoesToAnother() throws Exception {
        try (RawClient client = client()) {
            client.query("SELECT 1");
            client.readUntilReady();
            ServerConnection server = servedServer();
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            server.socket().eventLoop().execute(() -> {
                held.countDown();
                awaitQuietly(release);
            });
            assertTrue(held.await(10, TimeUnit.SECONDS), "the event loop held");
            try {
                // the client's queries are ready to read before the server's FATAL: the loop reads them first
                byte[][] queries = new byte[PIPELINED][];
                for (int i = 0; i < PIPELINED; i++) {
                    queries[i] = RawClient.queryFrame("SELECT " + i);
                }
                client.sendRaw(RawClient.concat(queries));
                assertEquals(1, db.terminateBackends(), "the pool's one backend terminated");
                Thread.sleep(200); // its socket closes just after it exits
            } finally {
                release.countDown();
            }
            for (int i = 0; i < PIPELINED; i++) {
                assertEquals(String.valueOf(i), RawClient.firstColumn(client.readUntilReady()));
            }
            Await.until(() -> !server.isOpen(), WAIT, "the gone server's connection closed");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String backendState(int pid) throws Exception {
        try (Connection admin = db.connect(); Statement statement = admin.createStatement();
                ResultSet rows = statement.executeQuery("SELECT state FROM pg_stat_activity WHERE pid = " + pid)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** SUSPEND stops reading a server served without a channel, RESUME reads it again. */
    @Test
    void suspendStopsReadingTheServerAndResumeReadsItAgain() throws Exception {
        try (RawClient client = client(); Connection console = console()) {
            client.query("SELECT 1");
            client.readUntilReady();
            ConnectionSocket server = servedServer().socket();
            try (Statement statement = console.createStatement()) {
                statement.execute("SUSPEND");
                assertFalse(reading(server), "the server read while suspended");
                statement.execute("RESUME");
            }
            assertTrue(reading(server), "the server not read after RESUME");
            client.query("SELECT 'resumed'");
            assertEquals("resumed", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /** SHOW SERVERS and SHOW FDS list a server served without a channel with its addresses and descriptor. */
    @Test
    void theConsoleShowsTheServersDescriptorAndAddresses() throws Exception {
        try (RawClient client = client(); Connection console = console()) {
            client.query("SELECT 1");
            client.readUntilReady();
            ConnectionSocket server = servedServer().socket();
            Map<String, String> row = ProxyFixture.rows(console, "SHOW SERVERS").stream()
                    .filter(r -> db.name().equals(r.get("database"))).findFirst().orElseThrow();
            assertEquals(String.valueOf(db.port()), row.get("port"));
            assertEquals("idle", row.get("state"));
            Map<String, String> fds = ProxyFixture.rows(console, "SHOW FDS").stream()
                    .filter(r -> "server".equals(r.get("task")) && db.name().equals(r.get("database")))
                    .findFirst().orElseThrow();
            assertEquals(String.valueOf(server.descriptor()), fds.get("fd"));
        }
    }

    private Connection console() throws Exception {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, "pgbouncer", ProxyFixture.USER, ProxyFixture.PASSWORD, simple);
    }
}
