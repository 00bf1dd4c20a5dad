package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.transport.ReadPauses;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Whom a logged-in server connection's messages go to: the client linked to it, unless a query of the pooler's own
 * runs, and nobody once that client is unlinked; a pause its former client's slow reading set ends with that link.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerConnectionRelayTest {
    private static final String CHANNEL = "pgmux_relay";

    private final TestDatabase db;
    private Transport transport;

    ServerConnectionRelayTest(TestDatabase db) {
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

    /** A client's end of the link that counts the notifications relayed to it. */
    private static final class CountingLink implements ServerLink {
        final AtomicInteger notifications = new AtomicInteger();

        @Override
        public void onServerMessage(BackendMessage message) {
            if (message.type() == BackendMessage.NOTIFICATION_RESPONSE) {
                notifications.incrementAndGet();
            }
            message.release();
        }

        @Override
        public void onServerReadComplete() {
        }

        @Override
        public void onServerClosed(ServerConnection closed, Throwable cause) {
        }

        @Override
        public void onServerWritabilityChanged(boolean writable) {
        }
    }

    private static ErrorResponse await(CompletionStage<ErrorResponse> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private void notifyListeners() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("NOTIFY " + CHANNEL);
        }
    }

    private NettyServerConnector connector() {
        ServerTarget target = new ServerTarget(db.host(), db.port(), db.name(), null, null, TlsMode.DISABLE);
        return new NettyServerConnector(transport, target, db.superuser(),
                new PlaintextSecret(db.superuserPassword()), ServerTls.of(transport.blockingWork(),
                EnumSet.of(TlsMode.DISABLE), null, null, null, null, null), 5_000, 10);
    }

    private static ServerConnection open(NettyServerConnector connector) throws Exception {
        return connector.open(new RecordingHandle()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static <T> T onLoop(ServerConnection server, Callable<T> action) throws Exception {
        return server.eventLoop().submit(action).get(10, TimeUnit.SECONDS);
    }

    /** Pauses {@code server}'s reads as a linked client that cannot take more does. */
    private static void pauseForASlowClient(ServerConnection server) throws Exception {
        onLoop(server, () -> {
            server.socket().pauseReads(ReadPauses.PEER_NOT_WRITABLE, true);
            return null;
        });
        assertFalse(onLoop(server, () -> server.socket().isReading()), "paused");
    }

    @Test
    void aServerPausedForItsFormerClientReadsOnceLinkedToTheNext() throws Exception {
        NettyServerConnector connector = connector();
        ServerConnection server = open(connector);
        try {
            pauseForASlowClient(server);
            // from this thread: the link runs on the server's loop ahead of the check submitted after it
            server.link(new CountingLink());
            assertTrue(onLoop(server, () -> server.socket().isReading()));
        } finally {
            connector.close(server);
        }
    }

    @Test
    void aServerPausedForItsClientReadsOnceThatClientIsUnlinked() throws Exception {
        NettyServerConnector connector = connector();
        ServerConnection server = open(connector);
        try {
            CountingLink client = new CountingLink();
            server.link(client);
            pauseForASlowClient(server);
            server.unlink(client);
            assertTrue(onLoop(server, () -> server.socket().isReading()));
        } finally {
            connector.close(server);
        }
    }

    @Test
    void aClientUnlinkedWhileAQueryOfThePoolersOwnRunsHearsNothingMoreOfTheServer() throws Exception {
        NettyServerConnector connector = connector();
        ServerConnection server = open(connector);
        try {
            assertNull(await(server.query("LISTEN " + CHANNEL)));
            CountingLink former = new CountingLink();
            server.link(former);
            notifyListeners();
            Await.until(() -> former.notifications.get() == 1, Duration.ofSeconds(10),
                    "the linked client's notification");

            CompletionStage<ErrorResponse> running = server.query("SELECT pg_sleep(0.3)");
            server.unlink(former);
            assertNull(await(running));
            notifyListeners();
            // the server sends a notification at the latest before the ReadyForQuery of its next query
            assertNull(await(server.query("SELECT 1")));
            assertEquals(1, former.notifications.get(), "nothing reached the client after it was unlinked");
        } finally {
            connector.close(server);
        }
    }
}
