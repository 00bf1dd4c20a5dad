package io.pgmux.proxy.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.parameters.ServerParameters;
import io.pgmux.proxy.prepared.PreparedStatementCache;
import io.pgmux.proxy.prepared.StatementServer;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.BackendMessageDecoder;
import io.pgmux.proxy.protocol.DataRow;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.EncodedOut;
import io.pgmux.proxy.protocol.MessageCodec;
import io.pgmux.proxy.protocol.MessageReader;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.protocol.Query;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SslResponse;
import io.pgmux.proxy.protocol.Terminate;
import io.pgmux.proxy.transport.ChannelSocket;
import io.pgmux.proxy.transport.ChannelTakeOver;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.EpollSocket;
import io.pgmux.proxy.transport.ReadPauses;
import io.pgmux.proxy.transport.ServedSockets;
import io.pgmux.proxy.transport.SocketEvents;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.IntSupplier;

/**
 * One logged-in connection to PostgreSQL (PgBouncer's server socket), served by its codec (in no pipeline itself). It
 * logs in, then runs a query of the pooler's own (check, reset, parameter replay) when asked, and passes every other
 * message unparsed to the client linked to it, if any. Whether it is idle, lent, tested or closing is its pool's
 * state of it (core's PooledServer, changed through its {@link ServerHandle}), not a second one kept here: the
 * connection keeps only how far its socket got ({@link Phase}), and whom the server's messages go to
 * ({@link #query}, else {@link #link}). All of it is read and written on the socket's event loop. Its socket is
 * its Netty channel through the login and, for a plain socket on epoll, its descriptor served without a channel
 * from then on ({@link EpollSocket}), as a logged-in client's is.
 */
public final class ServerConnection extends MessageReader implements StatementServer, SocketEvents {
    /** How far the socket got: the login's phases ({@link ServerLogin}'s), then READY, then CLOSED. */
    enum Phase {
        /** The TCP (or Unix socket) connect. */
        CONNECTING,
        /** SSLRequest sent, then the TLS handshake. */
        TLS,
        /** StartupMessage sent: authentication, parameters, BackendKeyData, up to ReadyForQuery. */
        STARTUP,
        /** The database's connect_query runs: the login ends at its ReadyForQuery. */
        CONNECT_QUERY,
        /** Logged in. */
        READY,
        /** Closed by the pooler, or failed: what the socket says after is nobody's to hear. */
        CLOSED
    }

    private static final String REPLICATION = "replication";

    private final ServerTarget target;
    private final ServerHandle handle;
    private final ServerLogin login;
    private final CompletableFuture<ServerConnection> opened = new CompletableFuture<>();
    private final ServerParameters parameters = new ServerParameters();
    private final PreparedStatementCache preparedStatements;
    /** The servers' sockets served without a channel, which this one joins when it leaves its channel. */
    private final ServedSockets servedSockets;

    /** A {@link ChannelSocket} through the login; an {@link EpollSocket} after it, for a plain socket on epoll. */
    private ConnectionSocket socket;
    /** Where relayed bytes are written and flushed: past the codec ({@link MessageCodec#encodedOut}). */
    private EncodedOut encodedOut;
    private BackendMessageDecoder decoder;
    private Phase phase = Phase.CONNECTING;
    private BackendKeyData backendKeyData;
    /** The last cancel forwarded to this backend, until the server has closed its cancel connection. */
    private volatile CompletableFuture<Void> cancelInFlight;
    /** The client the server's messages go to while no query of the pooler's own runs; null for none. */
    private ServerLink link;
    /**
     * The FATAL saying the server goes away (pg_terminate_backend, a shutdown) that came while no client was linked:
     * the backend was gone before anything sent later reached it. On the server's loop.
     */
    private ServerErrorException wentAwayIdle;
    /** The request of the pooler's own that runs, whose results the connection reads itself; null for none. */
    private OwnRequest query;
    /** When the login ended ({@link System#nanoTime}), for the log's age of the connection; 0 before. */
    private volatile long loggedInNanos;
    /** Written on the server's loop, read by a disconnecting client on its own. */
    private volatile ReadyForQuery.TransactionStatus transactionStatus = ReadyForQuery.TransactionStatus.IDLE;

    ServerConnection(ServerTarget target, String user, Secret secret, ServerHandle handle, ServerTlsContext tls,
            IntSupplier maxPreparedStatements, ServedSockets servedSockets) {
        this.servedSockets = servedSockets;
        this.preparedStatements = new PreparedStatementCache(maxPreparedStatements);
        this.target = target;
        this.handle = handle;
        this.login = new ServerLogin(this, target, user, secret, tls);
    }

    Phase phase() {
        return phase;
    }

    /** The one transition of the connection's phase, on its event loop only. */
    void to(Phase next) {
        assert socket.eventLoop().inEventLoop() : "a server connection changes phase off its event loop";
        phase = next;
    }

    /** Whether the server's messages go to a linked client now. */
    private boolean relaying() {
        return phase == Phase.READY && query == null && link != null;
    }

    /** {@code channel}'s pipeline holds {@code decoder}, which serves this connection from now on. */
    void attach(Channel channel, BackendMessageDecoder decoder) {
        this.socket = new ChannelSocket(channel, decoder);
        this.decoder = decoder;
        this.encodedOut = MessageCodec.encodedOut(channel);
        // only a linked client walks runs; the pooler's own login and queries read one message at a time
        decoder.relayRuns(this::relaying);
        decoder.serve(this);
    }

    CompletionStage<ServerConnection> opened() {
        return opened;
    }

    public ServerHandle handle() {
        return handle;
    }

    /** The connection's socket: its channel's through the login, perhaps served without a channel after it. */
    public ConnectionSocket socket() {
        return socket;
    }

    public EventLoop eventLoop() {
        return socket.eventLoop();
    }

    public SocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    /** When the login ended ({@link System#nanoTime}); 0 before. */
    public long loggedInNanos() {
        return loggedInNanos;
    }

    /** Records a cancel forwarded to this backend; see {@link #cancelInFlight()}. */
    public void cancelSent(CompletableFuture<Void> delivered) {
        CompletableFuture<Void> earlier = cancelInFlight;
        cancelInFlight = earlier == null || earlier.isDone() ? delivered : CompletableFuture.allOf(earlier, delivered);
    }

    /**
     * A cancel forwarded to this backend that the server has not yet acknowledged by closing its connection,
     * or null: the connection must not serve another client before it completes.
     */
    public CompletableFuture<Void> cancelInFlight() {
        CompletableFuture<Void> pending = cancelInFlight;
        return pending == null || pending.isDone() ? null : pending;
    }

    /** The key to quote in a CancelRequest to the server. */
    public BackendKeyData backendKeyData() {
        return backendKeyData;
    }

    void backendKeyData(BackendKeyData key) {
        backendKeyData = key;
    }

    /** The session parameters the server reported and those the pooler set here. */
    public ServerParameters parameters() {
        return parameters;
    }

    /** The statements the pooler prepared here for clients in transaction and statement mode. */
    @Override
    public PreparedStatementCache preparedStatements() {
        return preparedStatements;
    }

    /** After server_reset_query: the session has neither the settings nor the statements the pooler gave it. */
    public void resetSession() {
        parameters.reset();
        preparedStatements.clear();
    }

    /** The status of the last ReadyForQuery: a connection is clean for another client only when IDLE. */
    public ReadyForQuery.TransactionStatus transactionStatus() {
        return transactionStatus;
    }

    /** Opened for a replication client, with its {@code replication} startup parameter. */
    public boolean isReplication() {
        return target.setup().startupParameters().containsKey(REPLICATION);
    }

    /** SHOW SERVERS' replication column: none, logical or physical. */
    public String replication() {
        String mode = target.setup().startupParameters().get(REPLICATION);
        return mode == null ? "none" : mode.equals("database") ? "logical" : "physical";
    }

    public boolean isOpen() {
        return socket != null && socket.isOpen() && phase != Phase.CLOSED;
    }

    /** Sends everything the server says to {@code link} until {@link #unlink(ServerLink)}. Call on any thread. */
    public void link(ServerLink link) {
        EventLoop loop = socket.eventLoop();
        if (loop.inEventLoop()) {
            linkNow(link);
        } else {
            loop.execute(() -> linkNow(link));
        }
    }

    private void linkNow(ServerLink link) {
        if (phase == Phase.CLOSED) {
            link.onServerClosed(this, new ClosedChannelException());
            return;
        }
        this.link = link;
        // the former client's writability no longer matters
        socket.resumeReads(ReadPauses.PEER_NOT_WRITABLE);
    }

    /**
     * Stops relaying to {@code former}, even while a query of the pooler's own runs: nothing the server says
     * reaches it after. Call on the server's loop or any other.
     * From another loop this runs later, possibly after the pool has handed the connection to the next client
     * on the server's own loop and that client has linked at once: then it does nothing.
     */
    public void unlink(ServerLink former) {
        EventLoop loop = socket.eventLoop();
        if (loop.inEventLoop()) {
            unlinkNow(former);
        } else {
            loop.execute(() -> unlinkNow(former));
        }
    }

    private void unlinkNow(ServerLink former) {
        if (link == former) {
            link = null;
            socket.resumeReads(ReadPauses.PEER_NOT_WRITABLE);
        }
    }

    /**
     * Runs a simple query of the pooler's own and swallows its results; completes with the first
     * ErrorResponse, or null when it succeeded. Call only while the connection is logged in, runs no other query
     * of the pooler's own, and a client linked to it is quiet.
     */
    public CompletionStage<ErrorResponse> query(String sql) {
        return query(sql, null);
    }

    /**
     * Like {@link #query(String)}, and the rows the query returns, each column as text (null for NULL), are
     * added to {@code rows} before the stage completes.
     */
    public CompletionStage<ErrorResponse> query(String sql, List<String[]> rows) {
        return request(new Query(sql), rows);
    }

    /**
     * Like {@link #query(String, List)} for a request of the pooler's own that ends with exactly one ReadyForQuery:
     * a Query, or an extended-protocol batch ending with one Sync.
     */
    public CompletionStage<ErrorResponse> request(EncodableMessage request, List<String[]> rows) {
        CompletableFuture<ErrorResponse> done = new CompletableFuture<>();
        runOnLoop(() -> {
            if (phase != Phase.READY || query != null) {
                done.completeExceptionally(new IllegalStateException("server connection is "
                        + (phase != Phase.READY ? phase : "running a query of the pooler's own")));
                return;
            }
            query = new OwnRequest(done, request, rows, cancelInFlight);
            send(request);
        });
        return done;
    }

    /** A write that fails fails the socket, whose close fails the request ({@link #closed(Throwable)}). */
    private void send(EncodableMessage request) {
        socket.writeAndFlush(request);
    }

    /** Terminate, then close; never throws. */
    public void close() {
        if (socket == null) {
            return;
        }
        runOnLoop(() -> {
            if (phase != Phase.CLOSED && socket.isOpen() && phase != Phase.CONNECTING && phase != Phase.TLS) {
                socket.writeAndFlush(Terminate.INSTANCE);
            }
            to(Phase.CLOSED);
            socket.close();
        });
    }

    /** Writes a message of the client's (a relayed buffer or an encodable message); flushed by {@link #flush()}. */
    @Override
    public void write(Object message) {
        if (message instanceof ByteBuf bytes) {
            encodedOut.writeEncoded(bytes);
        } else {
            socket.write(message);
        }
    }

    public void flush() {
        encodedOut.flushEncoded();
    }

    void runOnLoop(Runnable task) {
        EventLoop loop = socket.eventLoop();
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    // ---------------------------------------------------------------- socket events

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        login.start(decoder);
    }

    @Override
    public void messageRead(Object msg) {
        if (msg instanceof SslResponse response) {
            login.onSslResponse(response);
            return;
        }
        BackendMessage message = (BackendMessage) msg;
        if (phase == Phase.READY) {
            if (query != null) {
                onQueryMessage(message);
            } else if (link != null) {
                onLinkedMessage(message);
            } else {
                onIdleMessage(message);
            }
        } else if (phase == Phase.STARTUP || phase == Phase.CONNECT_QUERY) {
            login.onMessage(message);
        } else {
            onIdleMessage(message);
        }
    }

    private void onLinkedMessage(BackendMessage message) {
        byte type = message.type();
        if (type == BackendMessage.READY_FOR_QUERY) {
            transactionStatus = ReadyForQuery.statusOf(message);
        } else if (type == BackendMessage.PARAMETER_STATUS) {
            onParameterStatus(message);
        }
        ServerLink current = link;
        current.onServerMessage(message);
    }

    private void onQueryMessage(BackendMessage message) {
        ServerLink current = link;
        if (message.type() == BackendMessage.NOTIFICATION_RESPONSE && current != null) {
            // for the linked client's LISTEN, sent while a query of the pooler's own runs between its transactions
            current.onServerMessage(message);
            return;
        }
        try {
            switch (message.type()) {
                case BackendMessage.ERROR_RESPONSE -> query.onError(ErrorResponse.decode(message.body()));
                case BackendMessage.PARAMETER_STATUS -> onParameterStatus(message);
                case BackendMessage.READY_FOR_QUERY -> {
                    transactionStatus = ReadyForQuery.decode(message.body()).status();
                    OwnRequest finished = query;
                    if (finished.sendAgain(transactionStatus, cancelInFlight)) {
                        send(finished.request);
                        return;
                    }
                    query = null;
                    finished.done.complete(finished.error());
                }
                case BackendMessage.DATA_ROW -> query.onRow(DataRow.textColumns(message.body()));
                default -> {
                    // other results of the pooler's own query: nobody reads them
                }
            }
        } finally {
            message.release();
        }
    }

    /**
     * Logged in: a plain epoll socket leaves its Netty channel, and is served without one from now on
     * ({@link ChannelTakeOver#takeOver}), before the pool has the connection; a TLS socket, one on another transport,
     * or one SUSPEND gates keeps its channel. Either way the login ends once the socket is settled.
     */
    void loginEnded() {
        to(Phase.READY);
        if (!(socket instanceof ChannelSocket own) || !ChannelTakeOver.takeOver(own, decoder, this, servedSockets,
                () -> phase == Phase.READY && query == null && link == null, served -> {
                    socket = served;
                    encodedOut = served.encodedOut();
                    loggedIn();
                }, this::keptChannel)) {
            loggedIn();
        }
    }

    /** The socket stays its channel's: the login ends, unless the connection was closed meanwhile. */
    private void keptChannel() {
        if (phase == Phase.READY) {
            loggedIn();
        } else {
            failLogin(new ClosedChannelException());
        }
    }

    private void loggedIn() {
        loggedInNanos = System.nanoTime();
        opened.complete(this);
    }

    void onParameterStatus(BackendMessage message) {
        ParameterStatus status = ParameterStatus.decode(message.body());
        parameters.onParameterStatus(status.name(), status.value());
    }

    /** Between clients the server may still speak: notices, parameter changes, or a FATAL before it closes. */
    private void onIdleMessage(BackendMessage message) {
        try {
            if (message.type() == BackendMessage.PARAMETER_STATUS) {
                onParameterStatus(message);
            } else if (message.type() == BackendMessage.ERROR_RESPONSE) {
                ErrorResponse error = ErrorResponse.decode(message.body());
                ServerErrorException failure = new ServerErrorException(error);
                if (error.saysServerGoesAway()) {
                    wentAwayIdle = failure;
                }
                handle.markBroken(failure);
            }
        } finally {
            message.release();
        }
    }

    @Override
    public void readEnded() {
        if (relaying()) {
            link.onServerReadComplete();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        writabilityChanged();
    }

    @Override
    public void writabilityChanged() {
        if (relaying()) {
            link.onServerWritabilityChanged(socket.isWritable());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed();
    }

    @Override
    public void closed() {
        closed(new ClosedChannelException());
    }

    /** From the channel, or from framing outside it ({@code ctx} null). */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        closed(cause);
        socket.close();
    }

    /** The socket served without a channel failed, and closes. */
    @Override
    public void failed(Throwable cause) {
        closed(cause);
    }

    private void closed(Throwable cause) {
        Phase was = phase;
        to(Phase.CLOSED);
        if (was == Phase.CLOSED) {
            return; // closed on purpose
        }
        if (was != Phase.READY) {
            failLogin(ServerTlsHandshakeException.of(cause, target.tlsMode()));
        } else if (!opened.isDone()) {
            // closed while it left its channel, before the pool had it
            failLogin(cause);
        } else if (query != null) {
            failQuery(cause);
        } else if (link != null) {
            ServerLink current = link;
            link = null;
            handle.markBroken(cause);
            // lent while its going-away FATAL was on the way: what the client sent reached no backend
            current.onServerClosed(this, wentAwayIdle != null ? wentAwayIdle : cause);
        } else {
            handle.markBroken(cause);
        }
    }

    private void failQuery(Throwable cause) {
        OwnRequest failed = query;
        query = null;
        if (failed != null) {
            handle.markBroken(cause);
            failed.done.completeExceptionally(cause);
        }
        if (socket.isOpen()) {
            to(Phase.CLOSED);
            socket.close();
        }
    }

    void failLogin(Throwable cause) {
        if (!opened.completeExceptionally(cause)) {
            return;
        }
        to(Phase.CLOSED);
        socket.close();
    }

    @Override
    public String toString() {
        return "server " + handle.id() + " " + target;
    }
}
