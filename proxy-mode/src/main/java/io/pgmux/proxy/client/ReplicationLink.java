package io.pgmux.proxy.client;

import io.netty.channel.EventLoop;
import io.pgmux.core.pool.Lease;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.server.CancelSender;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerErrorException;
import io.pgmux.proxy.server.ServerLink;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.ReadPauses;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replication client (startup parameter {@code replication=database} or a true boolean, as PgBouncer 1.23+
 * serves them) and its server connection of its own, in every pool mode: the pool opens one with the client's
 * startup parameters ({@code Pool.acquireDedicated}), and from then on every message goes through unparsed both
 * ways (walsender commands, CopyBoth and CopyData both ways, a base backup's CopyOut streams, SQL on a logical one)
 * until either side closes, which closes the other. Nothing is replayed or reset: the session is the client's
 * alone, and its end closes the server connection. It is made once the client is authenticated: the client waits
 * for its server, and is welcomed with that server's parameters. Runs on the client's event loop; the server's
 * messages arrive on the server's.
 */
final class ReplicationLink implements ServerLink {
    private static final Logger log = LoggerFactory.getLogger(ReplicationLink.class);

    private final ClientConnection client;
    private final ConnectionSocket socket;
    private final StartupReplication mode;
    /** What the client sent before it was welcomed: a client normally waits, but nothing it sends is lost. */
    private final ArrayDeque<FrontendMessage> early = new ArrayDeque<>();
    /** The pool's answer while the client waits for its server; cancelled if the client leaves first. */
    private CompletableFuture<Lease<ServerConnection>> acquiring;
    private Lease<ServerConnection> lease;
    private ServerConnection server;
    private boolean closed;

    ReplicationLink(ClientConnection client, ConnectionSocket socket, StartupReplication mode) {
        this.client = client;
        this.socket = socket;
        this.mode = mode;
    }

    StartupReplication mode() {
        return mode;
    }

    /**
     * The client waits for its own server connection, then is welcomed with that server's parameters, which
     * {@code welcome} sends: the session is the server's, not the pool's.
     */
    void open(Map<String, String> startupParameters, Consumer<Map<String, String>> welcome) {
        socket.pauseReads(ReadPauses.LOGIN, true);
        client.to(ClientConnection.State.WELCOME);
        client.startTimeout(ClientTimeouts.Timeout.WELCOME, client.connectedAtNanos);
        client.context.clientTimeouts().loginStarted(client);
        client.replication = this;
        acquire(startupParameters).whenComplete((linked, failure) -> {
            if (client.isOver()) {
                return;
            }
            if (failure != null) {
                fail(failure);
                return;
            }
            socket.pauseReads(ReadPauses.LOGIN, false);
            welcome.accept(linked.parameters().reported());
            welcomed();
        });
    }

    /**
     * Asks the client's pool for its own server connection; completes on the client's loop with the server, linked,
     * or fails with why none could be had (a refused login, query_wait_timeout, the pool closing).
     */
    private CompletionStage<ServerConnection> acquire(Map<String, String> startupParameters) {
        CompletableFuture<ServerConnection> linked = new CompletableFuture<>();
        acquiring = client.pool.acquireDedicated(startupParameters).toCompletableFuture();
        acquiring.whenComplete((acquired, failure) ->
                socket.eventLoop().execute(() -> {
                    if (failure != null) {
                        linked.completeExceptionally(failure);
                    } else if (closed) {
                        acquired.release();
                        linked.cancel(false);
                    } else {
                        lease = acquired;
                        server = acquired.connection();
                        server.link(this);
                        linked.complete(server);
                    }
                }));
        return linked;
    }

    /**
     * As PgBouncer: a server refusing a replication login (no REPLICATION role, no pg_hba.conf line for it) is
     * logged with its error, and the client gets {@code login failed}, the server's error as its detail.
     */
    private void fail(Throwable failure) {
        ServerErrorException refused = ServerErrorException.find(failure);
        if (refused == null) {
            client.failAcquire(failure);
            return;
        }
        log.warn("pool {}: replication server login failed: {}", client.pool.name(), refused.getMessage());
        client.fatal(PoolerError.loginFailed().withDetail(refused.error().message()));
    }

    /** The client was welcomed: what it sent meanwhile goes to its server. */
    private void welcomed() {
        FrontendMessage message;
        while ((message = early.poll()) != null) {
            server.write(message.content());
        }
        server.flush();
    }

    ServerConnection server() {
        return server;
    }

    void onClientMessage(FrontendMessage message) {
        if (closed) {
            message.release();
        } else if (message.type() == FrontendMessage.TERMINATE) {
            message.release();
            client.terminate();
        } else if (server == null || !early.isEmpty()) {
            early.add(message.keep());
        } else {
            server.write(message.content());
        }
    }

    /** The client's receive buffer is drained: what was forwarded goes out. */
    void flushToServer() {
        if (server != null && early.isEmpty()) {
            server.flush();
        }
    }

    void onClientWritabilityChanged() {
        ServerConnection current = server;
        if (current != null) {
            RelayFlow.clientWritabilityChanged(socket, current);
        }
    }

    /**
     * A CancelRequest for this client goes to its server, whatever it runs: the server is the client's alone.
     *
     * @return whether a cancel went to the server
     */
    boolean cancel(CancelSender cancelSender) {
        ServerConnection current = server;
        if (!closed && current != null && current.backendKeyData() != null) {
            current.cancelSent(cancelSender.send(current.remoteAddress(), current.backendKeyData(),
                    client.pool.key().database(), client.pool.key().user()));
            return true;
        }
        return false;
    }

    @Override
    public void onServerMessage(BackendMessage message) {
        EventLoop loop = socket.eventLoop();
        if (loop.inEventLoop()) {
            relay(message);
        } else {
            BackendMessage kept = message.keep(); // the decoder reuses the holder it passed
            loop.execute(() -> relay(kept));
        }
    }

    private void relay(BackendMessage message) {
        if (closed) {
            message.release();
            return;
        }
        socket.write(message.content());
    }

    @Override
    public void onServerReadComplete() {
        RelayFlow.flushToClient(socket);
    }

    @Override
    public void onServerWritabilityChanged(boolean writable) {
        socket.eventLoop().execute(() -> {
            ServerConnection current = server;
            if (!closed && current != null) {
                RelayFlow.serverWritabilityChanged(socket, current);
            }
        });
    }

    /** The server's close closes the client, after whatever the server said last (its FATAL, if any). */
    @Override
    public void onServerClosed(ServerConnection gone, Throwable cause) {
        socket.eventLoop().execute(() -> {
            if (!closed) {
                client.fatal(PoolerError.serverConnCrashed());
            }
        });
    }

    /** The client is closing: its server connection is closed with it, never given back. Once only. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (acquiring != null) {
            acquiring.cancel(false);
        }
        RelayFlow.releaseAll(early);
        Lease<ServerConnection> held = lease;
        lease = null;
        if (held != null) {
            held.release();
        }
    }
}
