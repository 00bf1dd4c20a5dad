package io.pgmux.proxy.server;

import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A [databases] host list in front of one server: hosts that cannot be reached are passed over, in order. */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostListTest {
    private static final String UNRESOLVABLE = "no-such-host.invalid";

    private final TestDatabase db;
    private Transport transport;

    HostListTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        transport = Transport.create(1);
    }

    @AfterAll
    void stop() {
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private NettyServerConnector connector(List<ServerHost> hosts) {
        ServerTarget target = new ServerTarget(hosts, db.name(), null, null, TlsMode.DISABLE,
                LoadBalanceHosts.DISABLE, TargetSessionAttrs.ANY);
        return new NettyServerConnector(transport, target, db.superuser(), new PlaintextSecret(db.superuserPassword()),
                ServerTls.of(transport.blockingWork(), EnumSet.of(TlsMode.DISABLE), null, null, null, null, null),
                5_000, 10);
    }

    private static ServerConnection await(CompletionStage<ServerConnection> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aLoginPassesOverAHostThatRefusesConnectionsToTheNext() throws Exception {
        NettyServerConnector connector = connector(List.of(new ServerHost("127.0.0.1", closedPort()),
                new ServerHost(db.host(), db.port())));
        ServerConnection server = await(connector.open(new RecordingHandle()));
        try {
            assertEquals(db.port(), ((InetSocketAddress) server.remoteAddress()).getPort());
        } finally {
            connector.close(server);
        }
    }

    @Test
    void aLoginPassesOverAHostNameThatDoesNotResolve() throws Exception {
        NettyServerConnector connector = connector(List.of(new ServerHost(UNRESOLVABLE, db.port()),
                new ServerHost(db.host(), db.port())));
        ServerConnection server = await(connector.open(new RecordingHandle()));
        connector.close(server);
    }

    @Test
    void whenNoHostCanBeReachedTheFailureNamesEachHostAndWhy() throws Exception {
        int closed = closedPort();
        NettyServerConnector connector = connector(List.of(new ServerHost("127.0.0.1", closed),
                new ServerHost(UNRESOLVABLE, 5432)));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(connector.open(new RecordingHandle())));
        ConnectException failure = assertInstanceOf(ConnectException.class, e.getCause());
        String message = failure.getMessage();
        assertTrue(message.startsWith("could not connect to any host of " + db.name() + ": 127.0.0.1:" + closed
                + " ("), message);
        assertTrue(message.contains(UNRESOLVABLE + ":5432 (could not resolve host name \"" + UNRESOLVABLE + "\")"),
                message);
        assertFalse(message.contains("finishConnect"), message);
    }
}
