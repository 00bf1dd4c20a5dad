package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ServerConnection;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What clients see when something goes wrong, and that the pool heals afterwards. */
@PostgresTest
class FailureTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    FailureTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private PgMuxProxy startRaw(java.util.function.Consumer<ProxyBuilder> settings) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> {
            b.authType(AuthType.TRUST).users(Map.of("raw", "", ProxyFixture.USER, ProxyFixture.PASSWORD));
            settings.accept(b);
        });
        return proxy;
    }

    /**
     * A client that waits for a server and keeps sending is read only up to a limit: the proxy does not hold
     * its stream in memory until a server is free, and serves all of it once one is.
     */
    @Test
    void aWaitingClientThatKeepsSendingIsReadOnlyUpToALimit() throws Exception {
        startRaw(b -> b.defaultPoolSize(1));
        RawClient holder = RawClient.login(proxy, db.name(), "raw", "");
        holder.query("BEGIN");
        holder.readUntilReady();
        RawClient flooder = RawClient.login(proxy, db.name(), "raw", "");
        int queries = 64;
        byte[] sql = ("SELECT 1 -- " + "x".repeat(512 * 1024)).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < queries; i++) {
                    flooder.send('Q', RawClient.concat(sql, new byte[] {0}));
                    written.addAndGet(sql.length + 6);
                }
            } catch (IOException e) {
                // the assertions below report what arrived
            }
        });
        writer.start();
        long last = -1;
        while (written.get() != last && writer.isAlive()) {
            last = written.get();
            Thread.sleep(1000);
        }
        assertTrue(writer.isAlive() && written.get() < 16L * 1024 * 1024,
                "the proxy kept reading a waiting client: " + written.get() + " bytes taken");

        holder.query("COMMIT");
        holder.readUntilReady();
        int ready = 0;
        for (int i = 0; i < queries; i++) {
            List<RawClient.Message> replies = flooder.readUntilReady();
            assertEquals('C', replies.get(replies.size() - 2).type());
            ready++;
        }
        writer.join(10_000);
        assertEquals(queries, ready);
        holder.close();
        flooder.close();
    }

    @Test
    void clientKilledMidTransactionLeavesNoOpenTransactionBehind() throws Exception {
        startRaw(b -> b.defaultPoolSize(1));
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS killed (v int)");
            s.execute("GRANT ALL ON killed TO PUBLIC");
        }
        RawClient client = RawClient.login(proxy, db.name(), "raw", "");
        client.query("BEGIN; INSERT INTO killed VALUES (1)");
        client.readUntilReady();
        client.abort();
        Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
        assertEquals(0, ProxyFixture.awaitActive(pool, 0));
        try (RawClient next = RawClient.login(proxy, db.name(), "raw", "")) {
            next.query("SELECT count(*) FROM killed");
            List<RawClient.Message> result = next.readUntilReady();
            assertEquals('I', (char) result.get(result.size() - 1).body()[0]);
            assertEquals("0", RawClient.firstColumn(result));
        }
    }

    @Test
    void serverBackendTerminatedMidQueryFailsTheClientAndThePoolHeals() throws Exception {
        startRaw(b -> b.defaultPoolSize(1));
        try (Connection c = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties())) {
            CompletableFuture<SQLException> sleeping = CompletableFuture.supplyAsync(() -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_sleep(30)");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            db.awaitRunningQuery("SELECT pg_sleep(30)", Duration.ofSeconds(10));
            db.terminateBackends();
            SQLException failure = sleeping.get(10, TimeUnit.SECONDS);
            assertTrue(failure != null, "the query must fail");
        }
        Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
        assertEquals(0, ProxyFixture.awaitActive(pool, 0));
        try (Connection c = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 3")) {
            rs.next();
            assertEquals(3, rs.getInt(1));
        }
    }

    @Test
    void statementCancelStopsTheRunningQuery() throws Exception {
        startRaw(b -> { });
        try (Connection c = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
             Statement s = c.createStatement()) {
            CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> {
                try {
                    db.awaitRunningQuery("SELECT pg_sleep(20)", Duration.ofSeconds(10));
                    s.cancel();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            long start = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT pg_sleep(20)"));
            cancel.get(5, TimeUnit.SECONDS);
            assertEquals("57014", e.getSQLState());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
            try (ResultSet rs = s.executeQuery("SELECT 1")) {
                rs.next();
                assertEquals(1, rs.getInt(1));
            }
        }
    }

    /**
     * A cancel that reaches PostgreSQL only after the cancelled query ended must not hit the next client's query
     * on that server connection: the connection is handed on only once the server has taken the cancel. The
     * cancels race the end of the first query. A proxy that forwarded no cancel at all would pass the rounds, so
     * the same client's cancel must first stop a query that is seen running.
     */
    @Test
    void aLateCancelNeverReachesTheNextClientsQuery() throws Exception {
        startRaw(b -> b.defaultPoolSize(1));
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (Connection a = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
             Connection b = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> sqlState(sa, "SELECT pg_sleep(20)"),
                    threads);
            db.awaitRunningQuery("SELECT pg_sleep(20)", Duration.ofSeconds(10));
            sa.cancel();
            assertEquals("57014", running.get(30, TimeUnit.SECONDS), "the cancel of a running query reached it");

            java.util.Random random = new java.util.Random(7);
            int bCancelled = 0;
            for (int round = 0; round < 30; round++) {
                CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> sqlState(sa,
                        "SELECT pg_sleep(0.02)"), threads);
                Thread.sleep(2);
                // queued behind the first: it gets the server as soon as the first query ends
                CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> sqlState(sb,
                        "SELECT pg_sleep(0.05)"), threads);
                Thread.sleep(10 + random.nextInt(15));
                sa.cancel();
                first.get(10, TimeUnit.SECONDS);
                if ("57014".equals(second.get(10, TimeUnit.SECONDS))) {
                    bCancelled++;
                }
            }
            assertEquals(0, bCancelled, "rounds in which the cancel meant for one client stopped another's query");
        } finally {
            threads.shutdownNow();
        }
    }

    /** The SQLSTATE the statement failed with, or null when it succeeded. */
    private static String sqlState(Statement s, String sql) {
        try {
            s.execute(sql);
            return null;
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    @Test
    void clientWaitingLongerThanQueryWaitTimeoutGetsPgBouncersError() throws Exception {
        startRaw(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofMillis(500)));
        try (Connection holder = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
             Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("SELECT 1");
            // pgjdbc may already fail while it sets up the session, or else at its first query
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Connection waiting = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
                     Statement w = waiting.createStatement()) {
                    w.execute("SELECT 2");
                }
            });
            assertEquals("08P01", e.getSQLState());
            assertTrue(e.getMessage().contains("query_wait_timeout"), e.getMessage());
            holder.rollback();
        }
    }

    @Test
    void clientsBeyondMaxClientConnAreRefused() throws Exception {
        startRaw(b -> b.maxClientConn(2));
        try (Connection a = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties());
             Connection b = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties())) {
            SQLException e = assertThrows(SQLException.class,
                    () -> ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties()));
            assertEquals("08P01", e.getSQLState());
            assertTrue(e.getMessage().contains("no more connections allowed (max_client_conn)"), e.getMessage());
        }
        // the proxy learns of the two closes asynchronously
        Await.until(() -> proxy.clientCount() == 0, Duration.ofSeconds(10), "the clients gone");
        try (Connection again = ProxyFixture.connect(proxy, db.name(), "raw", "", new Properties())) {
            assertTrue(again.isValid(5));
        }
    }

    @Test
    void serverRefusingTheLoginPassesItsOwnErrorToTheClient() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        proxy = PgMuxProxy.builder().listen("127.0.0.1", 0)
                .database("wrongpw", "postgresql://" + user.name() + ":not-" + user.password() + "@" + db.host()
                        + ":" + db.port() + "/" + db.name() + "?sslmode=disable")
                .poolMode(PoolMode.TRANSACTION)
                .authType(AuthType.TRUST).users(Map.of("raw", ""))
                .threads(1)
                .start();
        SQLException e = assertThrows(SQLException.class,
                () -> ProxyFixture.connect(proxy, "wrongpw", "raw", "", new Properties()));
        assertEquals("28P01", e.getSQLState());
        assertTrue(e.getMessage().contains("password authentication failed for user \"" + user.name() + "\""),
                e.getMessage());
    }

    @Test
    void aServerLoginRefusedAgainWithinServerLoginRetryGivesPgBouncersCachedText() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        startRaw(b -> b.database("wrongpw", "postgresql://" + user.name() + ":not-" + user.password() + "@"
                + db.host() + ":" + db.port() + "/" + db.name() + "?sslmode=disable"));
        String serverError = "password authentication failed for user \"" + user.name() + "\"";
        assertEquals(serverError, refusal("wrongpw").field('M'));
        RawClient.Message cached = refusal("wrongpw");
        assertEquals("server login has been failing, cached error: " + serverError + " (server_login_retry)",
                cached.field('M'));
        assertEquals("08P01", cached.field('C'));
    }

    /**
     * A server that refuses connections may be restarting: its clients wait for it up to query_wait_timeout, as
     * PgBouncer's do, then get PgBouncer's text without the socket's error; a client arriving meanwhile waits too.
     */
    @Test
    void clientsOfAServerThatRefusesConnectionsWaitUntilQueryWaitTimeout() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        startRaw(b -> b.queryWaitTimeout(Duration.ofMillis(700))
                .database("down", "postgresql://nobody:x@127.0.0.1:" + closedPort + "/down?sslmode=disable"));
        CompletableFuture<RawClient.Message> first = CompletableFuture.supplyAsync(() -> refusalUnchecked("down"));
        CompletableFuture<RawClient.Message> second = CompletableFuture.supplyAsync(() -> refusalUnchecked("down"));
        assertEquals("query_wait_timeout", first.get(30, TimeUnit.SECONDS).field('M'));
        assertEquals("query_wait_timeout", second.get(30, TimeUnit.SECONDS).field('M'));
    }

    /**
     * server_connect_timeout covers the login, as PgBouncer's does: a server that accepts the connection and never
     * answers the startup packet has its socket closed when the timeout passes, not kept open for ever.
     */
    @Test
    void aServerThatAcceptsButNeverAnswersTheLoginIsClosedAfterServerConnectTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            startRaw(b -> b.set("server_connect_timeout", "1").clientLoginTimeout(Duration.ofSeconds(3))
                    .database("silent", "postgresql://nobody:x@127.0.0.1:" + silent.getLocalPort()
                            + "/silent?sslmode=disable"));
            CompletableFuture<RawClient.Message> client = CompletableFuture.supplyAsync(() -> refusalUnchecked("silent"));
            try (Socket login = silent.accept()) {
                login.setSoTimeout(20_000);
                InputStream in = login.getInputStream();
                byte[] startup = new byte[1024];
                assertTrue(in.read(startup) > 0, "the pool's login sends its startup packet");
                // read() ends with -1 once the proxy closes the socket; a SocketTimeoutException fails the test
                while (in.read(startup) >= 0) {
                    // nothing is answered, so nothing but the startup packet can arrive
                }
            }
            assertEquals("FATAL", client.get(30, TimeUnit.SECONDS).field('S'));
        }
    }

    private RawClient.Message refusalUnchecked(String database) {
        try {
            return refusal(database);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Logs in as "raw" (trust) to {@code database} and returns the FATAL error that ends the connection. */
    private RawClient.Message refusal(String database) throws IOException {
        try (RawClient c = new RawClient(proxy.port())) {
            c.startup(Map.of("user", "raw", "database", database));
            List<RawClient.Message> answer = c.readUntilClosed();
            RawClient.Message error = answer.get(answer.size() - 1);
            assertEquals('E', error.type(), RawClient.types(answer));
            assertEquals("FATAL", error.field('S'));
            return error;
        }
    }

    @Test
    void unknownDatabaseIsRefused() throws Exception {
        startRaw(b -> { });
        SQLException e = assertThrows(SQLException.class,
                () -> ProxyFixture.connect(proxy, "nosuchdb", "raw", "", new Properties()));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("no such database: nosuchdb"), e.getMessage());
    }

    @Test
    void clientThatNeverLogsInIsDisconnectedAfterClientLoginTimeout() throws Exception {
        startRaw(b -> b.clientLoginTimeout(Duration.ofMillis(300)));
        try (RawClient idle = new RawClient(proxy.port())) {
            List<RawClient.Message> messages = idle.readUntilClosed();
            assertEquals(1, messages.size());
            assertEquals("client_login_timeout", messages.get(0).field('M'));
        }
    }

    /** The first client of a pool is welcomed with its first server's parameters: without a server it cannot be. */
    @Test
    void aClientWaitingForItsWelcomeFromADownServerGetsPgBouncersTextAfterClientLoginTimeout() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        startRaw(b -> b.clientLoginTimeout(Duration.ofMillis(500)).queryWaitTimeout(Duration.ofSeconds(60))
                .database("down", "postgresql://nobody:x@127.0.0.1:" + closedPort + "/down?sslmode=disable"));
        assertEquals("client_login_timeout (server down)", refusal("down").field('M'));
    }

    @Test
    void clientIdleLongerThanClientIdleTimeoutIsDisconnected() throws Exception {
        startRaw(b -> b.clientIdleTimeout(Duration.ofMillis(300)));
        try (RawClient c = RawClient.login(proxy, db.name(), "raw", "")) {
            c.query("SELECT 1");
            c.readUntilReady();
            List<RawClient.Message> messages = c.readUntilClosed();
            assertEquals("client_idle_timeout", messages.get(0).field('M'));
        }
    }

    @Test
    void clientIdleInATransactionIsDisconnectedAndItsServerClosed() throws Exception {
        startRaw(b -> b.idleTransactionTimeout(Duration.ofMillis(300)));
        int serverPid;
        try (RawClient c = RawClient.login(proxy, db.name(), "raw", "")) {
            c.query("BEGIN; SELECT pg_backend_pid()");
            serverPid = Integer.parseInt(RawClient.firstColumn(c.readUntilReady()));
            List<RawClient.Message> messages = c.readUntilClosed();
            assertEquals("idle transaction timeout", messages.get(0).field('M'));
        }
        assertTrue(db.awaitBackendExit(serverPid, Duration.ofSeconds(5)), "backend " + serverPid + " still runs");
    }
}
