package io.pgmux.proxy.server;

import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NettyServerConnectorTest {
    private final TestDatabase db;
    private Transport transport;
    private TestUser scramUser;

    NettyServerConnectorTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        transport = Transport.create(1);
        scramUser = db.createUser(PasswordMethod.SCRAM_SHA_256);
    }

    @AfterAll
    void stop() {
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private NettyServerConnector connector(String user, String password, TlsMode tls) {
        ServerTarget target = new ServerTarget(db.host(), db.port(), db.name(), null, null, tls);
        return new NettyServerConnector(transport, target, user, new PlaintextSecret(password),
                ServerTls.of(transport.blockingWork(), EnumSet.of(tls), null, null, null, null, null), 5_000, 10);
    }

    private static ServerConnection await(java.util.concurrent.CompletionStage<ServerConnection> stage)
            throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void logsInBySCRAMAndCollectsParametersAndCancelKey() throws Exception {
        NettyServerConnector connector = connector(scramUser.name(), scramUser.password(), TlsMode.PREFER);
        ServerConnection server = await(connector.open(new RecordingHandle()));
        try {
            assertNotNull(server.parameters().get("server_version"));
            assertEquals("on", server.parameters().get("integer_datetimes"));
            assertNotNull(server.backendKeyData());
            assertTrue(server.isOpen());
        } finally {
            connector.close(server);
        }
    }

    @Test
    void wrongPasswordFailsWithTheServersOwnError() {
        NettyServerConnector connector = connector(scramUser.name(), "wrong", TlsMode.DISABLE);
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(connector.open(new RecordingHandle())));
        ServerErrorException error = ServerErrorException.find(e);
        assertNotNull(error, e.toString());
        assertEquals("28P01", error.error().sqlState());
        assertEquals("password authentication failed for user \"" + scramUser.name() + "\"", error.error().message());
        assertFalse(connector.isTransientLoginFailure(error));
    }

    /** As in PgBouncer, a server that refuses TLS under sslmode require is waited for as one that is down. */
    @Test
    void requireAgainstAServerWithoutTlsIsATransientLoginFailure() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW ssl")) {
            rs.next();
            Assumptions.assumeTrue("off".equals(rs.getString(1)), "the test server has ssl on");
        }
        NettyServerConnector connector = connector(scramUser.name(), scramUser.password(), TlsMode.REQUIRE);
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(connector.open(new RecordingHandle())));
        assertNull(ServerErrorException.find(e), e.toString());
        assertEquals("server refused SSL (sslmode require)", e.getCause().getMessage());
        assertTrue(connector.isTransientLoginFailure(e.getCause()));
    }

    /** A server that refuses connections may be restarting: the pool waits for it rather than failing clients. */
    @Test
    void aRefusedConnectionIsATransientLoginFailure() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        NettyServerConnector connector = new NettyServerConnector(transport,
                new ServerTarget("127.0.0.1", closedPort, db.name(), null, null, TlsMode.DISABLE), scramUser.name(),
                new PlaintextSecret(scramUser.password()), ServerTls.of(transport.blockingWork(),
                EnumSet.of(TlsMode.DISABLE), null, null, null, null, null), 5_000, 10);
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(connector.open(new RecordingHandle())));
        assertNull(ServerErrorException.find(e), e.toString());
        assertTrue(connector.isTransientLoginFailure(e.getCause()));
    }

    @Test
    void startingUpIsATransientLoginFailure() {
        NettyServerConnector connector = connector(scramUser.name(), "x", TlsMode.DISABLE);
        assertTrue(connector.isTransientLoginFailure(new ServerErrorException(
                ErrorResponse.fatal("57P03", "the database system is starting up"))));
    }

    @Test
    void checkQueryTellsAWorkingConnectionFromADeadOne() throws Exception {
        NettyServerConnector connector = connector(scramUser.name(), scramUser.password(), TlsMode.DISABLE);
        RecordingHandle handle = new RecordingHandle();
        ServerConnection server = await(connector.open(handle));
        assertTrue(connector.test(server, "SELECT 1").toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(connector.test(server, "<empty>").toCompletableFuture().get(10, TimeUnit.SECONDS));
        db.terminateBackends(Backends.ofUser(scramUser.name()));
        assertNotNull(handle.broken.get(10, TimeUnit.SECONDS), "an idle connection that dies reports it");
        assertFalse(connector.test(server, "SELECT 1").toCompletableFuture().get(10, TimeUnit.SECONDS));
    }

    /** PgBouncer's server_check_query: empty disables the check, {@code <empty>} sends an empty query. */
    @Test
    void anEmptyCheckQuerySendsNothingAndTheEmptyMarkerAnEmptyQuery() throws Exception {
        NettyServerConnector connector = connector(scramUser.name(), scramUser.password(), TlsMode.DISABLE);
        ServerConnection server = await(connector.open(new RecordingHandle()));
        try {
            int pid = server.backendKeyData().processId();
            assertNull(server.query("SELECT 'before'").toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertTrue(connector.test(server, "").toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals("SELECT 'before'", lastQuery(pid));
            assertTrue(connector.test(server, "<empty>").toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals("", lastQuery(pid));
        } finally {
            connector.close(server);
        }
    }

    private String lastQuery(int pid) throws Exception {
        try (Connection admin = db.connect(); Statement s = admin.createStatement();
             ResultSet row = s.executeQuery("SELECT query FROM pg_stat_activity WHERE pid = " + pid)) {
            assertTrue(row.next(), "backend " + pid);
            return row.getString(1);
        }
    }

    @Test
    void resetQueryClearsSessionState() throws Exception {
        NettyServerConnector connector = connector(scramUser.name(), scramUser.password(), TlsMode.DISABLE);
        ServerConnection server = await(connector.open(new RecordingHandle()));
        try {
            assertNull(server.query("SET TimeZone = 'Asia/Tokyo'").toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals("Asia/Tokyo", server.parameters().get("TimeZone"));
            server.parameters().unreported().put("search_path", "x");
            connector.reset(server, "DISCARD ALL").toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertFalse("Asia/Tokyo".equals(server.parameters().get("TimeZone")));
            assertTrue(server.parameters().unreported().isEmpty());
            ErrorResponse error = server.query("SELECT * FROM no_such_table").toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            assertEquals("42P01", error.sqlState());
        } finally {
            connector.close(server);
        }
        assertEquals(0, db.awaitConnections(Backends.ofUser(scramUser.name()), 0, Duration.ofSeconds(5)));
    }
}
