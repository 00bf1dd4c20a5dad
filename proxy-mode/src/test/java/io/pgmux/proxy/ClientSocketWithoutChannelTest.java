package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.EpollSocket;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A logged-in client over plain TCP on the epoll transport leaves its Netty channel and is served by an
 * {@link EpollSocket}: what a channel did for it (framing across reads, writes the socket does not take at once,
 * the close, the console's views and commands) the socket does alike.
 */
@PostgresTest
class ClientSocketWithoutChannelTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestDatabase db;
    private PgMuxProxy proxy;

    ClientSocketWithoutChannelTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.adminUsers(ProxyFixture.USER));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    /** The socket the proxy serves its one database client on, once it is served without a channel. */
    private ConnectionSocket servedSocket() {
        return Await.value(() -> {
            List<ClientConnection> clients = List.copyOf(proxy.clients());
            return clients.size() == 1 ? clients.get(0).info().socket() : null;
        }, socket -> socket instanceof EpollSocket, WAIT);
    }

    private RawClient client() throws IOException {
        return RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
    }

    @Test
    void aLoggedInClientOverTcpIsServedWithoutAChannelAndAnswered() throws Exception {
        assertEquals(TransportKind.EPOLL, proxy.transport());
        try (RawClient client = client()) {
            assertInstanceOf(EpollSocket.class, servedSocket());
            for (int i = 0; i < 3; i++) {
                client.query("SELECT " + i);
                assertEquals(String.valueOf(i), RawClient.firstColumn(client.readUntilReady()));
            }
        }
    }

    /** A Query whose bytes come in two reads is framed whole from both. */
    @Test
    void aRequestSplitAcrossReadsIsFramedWhole() throws Exception {
        try (RawClient client = client()) {
            servedSocket();
            byte[] query = RawClient.frame('Q', RawClient.cstring("SELECT '" + "x".repeat(3000) + "'"));
            client.sendRaw(Arrays.copyOfRange(query, 0, 3));
            Thread.sleep(50);
            client.sendRaw(Arrays.copyOfRange(query, 3, 1500));
            Thread.sleep(50);
            client.sendRaw(Arrays.copyOfRange(query, 1500, query.length));
            assertEquals("x".repeat(3000), RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /** Two requests in one read are answered, in order. */
    @Test
    void requestsSentInOneWriteAreAnsweredInOrder() throws Exception {
        try (RawClient client = client()) {
            servedSocket();
            byte[] first = RawClient.frame('Q', RawClient.cstring("SELECT 'first'"));
            byte[] second = RawClient.frame('Q', RawClient.cstring("SELECT 'second'"));
            byte[] both = Arrays.copyOf(first, first.length + second.length);
            System.arraycopy(second, 0, both, first.length, second.length);
            client.sendRaw(both);
            assertEquals("first", RawClient.firstColumn(client.readUntilReady()));
            assertEquals("second", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /**
     * A result far larger than the socket takes at once, to a client that does not read for a while, arrives whole
     * and in order once it reads: the socket keeps what it could not send and sends it as the client reads.
     */
    @Test
    void aResultLargerThanTheSocketTakesReachesAClientThatReadsLateWhole() throws Exception {
        try (RawClient client = client()) {
            servedSocket();
            client.query("SELECT repeat('y', 1000) || g FROM generate_series(1, 20000) g");
            Thread.sleep(1000);
            List<RawClient.Message> answer = client.readUntilReady();
            int rows = 0;
            for (RawClient.Message m : answer) {
                if (m.type() == 'D') {
                    rows++;
                    String value = new String(m.body(), 6, m.body().length - 6, StandardCharsets.UTF_8);
                    assertEquals("y".repeat(1000) + rows, value);
                }
            }
            assertEquals(20000, rows);
            client.query("SELECT 'after'");
            assertEquals("after", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /** A client that leaves halfway through a request leaves no client behind, and its server goes back. */
    @Test
    void aClientThatLeavesHalfwayThroughARequestIsGoneAndItsServerBack() throws Exception {
        RawClient client = client();
        servedSocket();
        client.query("SELECT 1");
        client.readUntilReady();
        byte[] query = RawClient.frame('Q', RawClient.cstring("SELECT 2"));
        client.sendRaw(Arrays.copyOfRange(query, 0, 4));
        client.close();
        Await.until(() -> proxy.clients().isEmpty(), WAIT, "the client gone");
        assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
    }

    /** A JDBC client that closes (a Terminate, then the end of its stream) is gone. */
    @Test
    void aJdbcClientThatClosesIsGone() throws Exception {
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            servedSocket();
            try (Statement statement = client.createStatement()) {
                statement.execute("SELECT 1");
            }
        }
        Await.until(() -> proxy.clients().isEmpty(), WAIT, "the client gone");
    }

    /** A shutdown that waits for the clients ends once a client served without a channel closes. */
    @Test
    void aShutdownThatWaitsForClientsEndsWhenTheClientCloses() throws Exception {
        java.util.concurrent.CompletableFuture<Void> closed;
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            servedSocket();
            closed = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    proxy.closeWaitForClients();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200);
        }
        closed.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** The console's KILL_CLIENT reaches a client served without a channel: its FATAL, then the close. */
    @Test
    void killClientSendsTheFatalAndCloses() throws Exception {
        try (RawClient client = client(); Connection console = console()) {
            servedSocket();
            String id = ProxyFixture.rows(console, "SHOW CLIENTS").stream()
                    .filter(row -> db.name().equals(row.get("database"))).findFirst().orElseThrow().get("id");
            try (Statement statement = console.createStatement()) {
                statement.execute("KILL_CLIENT " + id);
            }
            RawClient.Message fatal = client.read();
            assertEquals('E', fatal.type());
            assertEquals("admin forced disconnect", fatal.field('M'));
            assertEquals(-1, client.readByteOrEnd());
        }
    }

    /** SHOW FDS and SHOW SOCKETS list a client served without a channel with its descriptor and its addresses. */
    @Test
    void theConsoleShowsTheSocketsDescriptorAndAddresses() throws Exception {
        try (RawClient client = client(); Connection console = console()) {
            ConnectionSocket socket = servedSocket();
            Map<String, String> fds = ProxyFixture.rows(console, "SHOW FDS").stream()
                    .filter(row -> "client".equals(row.get("task")) && db.name().equals(row.get("database")))
                    .findFirst().orElseThrow();
            assertEquals(String.valueOf(socket.descriptor()), fds.get("fd"));
            Map<String, String> row = ProxyFixture.rows(console, "SHOW SOCKETS").stream()
                    .filter(r -> db.name().equals(r.get("database"))).findFirst().orElseThrow();
            assertEquals("127.0.0.1", row.get("addr"));
            assertEquals(String.valueOf(proxy.port()), row.get("local_port"));
            assertNotNull(row.get("ptr"));
        }
    }

    /** SUSPEND stops a client served without a channel from being read; RESUME answers what it sent meanwhile. */
    @Test
    void suspendHoldsARequestUntilResume() throws Exception {
        try (RawClient client = client(); Connection console = console()) {
            servedSocket();
            try (Statement statement = console.createStatement()) {
                statement.execute("SUSPEND");
                client.query("SELECT 'held'");
                Thread.sleep(300);
                assertTrue(client.available() == 0, "answered while suspended");
                statement.execute("RESUME");
            }
            assertEquals("held", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    /** A client that leaves while SUSPEND holds it is gone at once, as over a channel: its slots are free. */
    @Test
    void aClientThatLeavesDuringSuspendIsGoneAtOnce() throws Exception {
        try (Connection console = console()) {
            RawClient client = client();
            servedSocket();
            try (Statement statement = console.createStatement()) {
                statement.execute("SUSPEND");
                client.close();
                Await.until(() -> proxy.clients().isEmpty(), WAIT, "the client gone while suspended");
                statement.execute("RESUME");
            }
        }
    }

    private Connection console() throws Exception {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, "pgbouncer", ProxyFixture.USER, ProxyFixture.PASSWORD, simple);
    }

    /** SHOW CLIENTS shows a client served without a channel as any other. */
    @Test
    void aClientServedWithoutAChannelShowsAsIdleWithItsUser() throws Exception {
        try (RawClient client = client(); Connection console = console()) {
            servedSocket();
            Map<String, String> row = ProxyFixture.rows(console, "SHOW CLIENTS").stream()
                    .filter(r -> db.name().equals(r.get("database"))).findFirst().orElseThrow();
            assertEquals(ProxyFixture.USER, row.get("user"));
            assertEquals("idle", row.get("state"));
        }
    }
}
