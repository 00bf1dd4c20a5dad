package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientSlot;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolClosedException;
import io.pgmux.core.pool.PoolException;
import io.pgmux.core.pool.PoolTimeoutException;
import io.pgmux.core.pool.TooManyClientsException;
import io.pgmux.proxy.auth.AuthStep;
import io.pgmux.proxy.auth.ClientAuthenticator;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.prepared.NamedStatements;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.CancelRequest;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.GssEncRequest;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SslRequest;
import io.pgmux.proxy.protocol.SslResponse;
import io.pgmux.proxy.protocol.StartupMessage;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerErrorException;
import io.pgmux.proxy.server.ServerLink;
import io.pgmux.proxy.server.ServerTarget;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client (PgBouncer's client socket), the last handler of its channel: login, then the query phase in which
 * it borrows a server connection at the first message of a transaction, relays both ways without copying and
 * gives the server back at the ReadyForQuery that ends the transaction (transaction mode), the statement
 * (statement mode) or at disconnect (session mode). Everything runs on the client's event loop; what the server
 * sends is handed over from the server's loop when the two differ.
 */
public final class ClientConnection extends ChannelInboundHandlerAdapter implements ServerLink {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum State { STARTUP, LOGIN, IDLE, WAITING, LINKING, LINKED, CLOSED }

    private final ProxyContext context;
    private final FrontendMessageDecoder decoder;
    /**
     * What a client may send while it waits for a server before the proxy stops reading from it: enough for
     * any ordinary request (one Query, or a Parse/Bind/Execute/Sync batch), so that waiting costs no
     * epoll_ctl calls to pause and resume reads, yet a client streaming COPY data cannot pile up memory.
     */
    private static final int PENDING_BYTES_LIMIT = 64 * 1024;

    private static final byte[] SET_TAG = CommandComplete.tag("SET");
    private static final byte[] RESET_TAG = CommandComplete.tag("RESET");
    private static final byte[] DISCARD_ALL_TAG = CommandComplete.tag("DISCARD ALL");

    private final ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
    /** This client ran SET, RESET or DISCARD ALL on its server since the settings were last read. */
    private boolean settingsChanged;
    private int pendingBytes;
    private final NamedStatements namedStatements = new NamedStatements();

    private Channel channel;
    private State state = State.STARTUP;
    private ScheduledFuture<?> loginTimeout;
    private String user;
    private Pool<ServerConnection> pool;
    private ClientSlot slot;
    private ClientAuthenticator authenticator;
    private ClientParameters parameters;
    private BackendKeyData key;
    private PoolMode poolMode;
    /** Transaction or statement mode with max_prepared_statements above 0: named statements are renamed. */
    private boolean renaming;

    private Lease<ServerConnection> lease;
    private ServerConnection server;
    /** ReadyForQuery messages the server still owes: one per Query, Sync and FunctionCall sent. */
    private int readyPending;
    /** Extended-protocol messages were sent since the last Sync: the server is mid-batch. */
    private boolean syncPending;
    private long queryStartNanos;
    private long xactStartNanos;
    private long bytesReceived;
    private long bytesSent;
    /** Since when the client has sent nothing while outside a transaction; 0 while it is busy. */
    private volatile long idleSinceNanos;
    /** Since when the client has sent nothing inside an open transaction; 0 otherwise. */
    private volatile long idleInTransactionSinceNanos;
    private long connectedAtMillis;
    private String applicationName = "";
    /** The startup named the admin console's database: no pool, no max_client_conn slot, as in PgBouncer. */
    private boolean console;
    private Map<String, String> startupParameters;

    public ClientConnection(ProxyContext context, FrontendMessageDecoder decoder) {
        this.context = context;
        this.decoder = decoder;
    }

    // ---------------------------------------------------------------- login

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        connectedAtMillis = System.currentTimeMillis();
        long timeout = context.clientLoginTimeoutMillis();
        if (timeout > 0) {
            loginTimeout = channel.eventLoop().schedule(() -> {
                if (state == State.STARTUP || state == State.LOGIN) {
                    fatal(PoolerError.clientLoginTimeout());
                }
            }, timeout, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.CLOSED) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof FrontendMessage message) {
            if (state == State.LOGIN) {
                onPasswordMessage(message);
            } else {
                onQueryMessage(message);
            }
        } else if (msg instanceof StartupMessage startup) {
            onStartup(startup);
        } else if (msg == SslRequest.INSTANCE) {
            onSslRequest(ctx);
        } else if (msg == GssEncRequest.INSTANCE) {
            channel.writeAndFlush(SslResponse.REJECTED);
        } else if (msg instanceof CancelRequest cancel) {
            onCancelRequest(cancel);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onSslRequest(ChannelHandlerContext ctx) {
        if (context.clientTls() == null) {
            channel.writeAndFlush(SslResponse.REJECTED);
            return;
        }
        // The 'S' goes out in clear before the handler that encrypts everything after it is in place.
        channel.writeAndFlush(SslResponse.ACCEPTED);
        SslHandler ssl = context.clientTls().newHandler(channel.alloc());
        ctx.pipeline().addFirst(ssl);
    }

    private void onCancelRequest(CancelRequest cancel) {
        ClientConnection target = context.clientsByKey().get(cancel.key());
        if (target != null && cancel.matches(target.key)) {
            target.channel.eventLoop().execute(target::cancelRunningQuery);
        }
        channel.close();
    }

    /** Forwards a cancel to the server only while this client's query runs there. */
    private void cancelRunningQuery() {
        ServerConnection current = server;
        if (state == State.LINKED && readyPending > 0 && current != null && current.backendKeyData() != null) {
            current.cancelSent(context.cancelSender().send(current.remoteAddress(), current.backendKeyData()));
        }
    }

    private void onStartup(StartupMessage startup) {
        user = startup.user();
        if (user == null || user.isEmpty()) {
            fatal(PoolerError.noUsernameSupplied());
            return;
        }
        String database = startup.database();
        applicationName = startup.parameters().getOrDefault("application_name", "");
        if (context.adminRoute().isConsole(database)) {
            console = true;
            startupParameters = startup.parameters();
            authenticator = new ClientAuthenticator(context.authType(), user, context.users().find(user).orElse(null));
            state = State.LOGIN;
            onAuthStep(authenticator.start());
            return;
        }
        if (context.adminRoute().isDisabled(database)) {
            fatal(PoolerError.databaseDisabled(database));
            return;
        }
        ServerTarget target = context.database(database);
        if (target == null) {
            fatal(PoolerError.noSuchDatabase(database));
            return;
        }
        try {
            parameters = ClientParameters.fromStartup(startup.parameters());
        } catch (IllegalArgumentException e) {
            fatal(PoolerError.fatal(e.getMessage()));
            return;
        }
        Secret secret = context.users().find(user).orElse(null);
        // An unknown user fails authentication whatever it answers: no pool is made for a name nobody configured.
        if (secret != null) {
            try {
                pool = context.registry().pool(database, user);
                slot = context.registry().admitClient(pool);
            } catch (TooManyClientsException e) {
                fatal(PoolerError.maxClientConn());
                return;
            } catch (PoolClosedException e) {
                fatal(PoolerError.poolerShuttingDown());
                return;
            }
            poolMode = pool.config().poolMode();
            renaming = poolMode != PoolMode.SESSION && context.maxPreparedStatements() > 0;
        }
        authenticator = new ClientAuthenticator(context.authType(), user, secret);
        state = State.LOGIN;
        onAuthStep(authenticator.start());
    }

    private void onPasswordMessage(FrontendMessage message) {
        try {
            if (message.type() == FrontendMessage.TERMINATE) {
                channel.close();
                return;
            }
            onAuthStep(authenticator.onPasswordMessage(message.body()));
        } finally {
            message.release();
        }
    }

    private void onAuthStep(AuthStep step) {
        for (EncodableMessage m : step.messages()) {
            channel.write(m, channel.voidPromise());
        }
        switch (step.outcome()) {
            case CONTINUE -> channel.flush();
            case FAILED -> {
                log.info("client {} login failed for user {}: {}", channel.remoteAddress(), user, step.failureReason());
                state = State.CLOSED;
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
            case AUTHENTICATED -> {
                // its SCRAM state (nonces, messages, keys) is of no use once logged in: idle clients must not keep it
                authenticator = null;
                if (console) {
                    openConsole();
                    return;
                }
                if (pool == null) {
                    fatal(PoolerError.noSuchUser());
                    return;
                }
                decoder.loginComplete();
                welcome();
            }
        }
    }

    private void openConsole() {
        ErrorResponse refused = context.users().find(user).isEmpty() ? PoolerError.noSuchUser()
                : context.adminRoute().admit(user);
        if (refused != null) {
            fatal(refused);
            return;
        }
        if (loginTimeout != null) {
            loginTimeout.cancel(false);
            loginTimeout = null;
        }
        state = State.CLOSED;
        decoder.loginComplete();
        context.adminRoute().open(channel, this, user, startupParameters);
    }

    /** Reports the server's parameters; the first client of a pool fetches them from a server connection. */
    private void welcome() {
        Map<String, String> known = context.welcomeCache().get(pool.key());
        if (known != null) {
            sendWelcome(known);
            return;
        }
        channel.config().setAutoRead(false);
        state = State.WAITING;
        pool.acquireAsync().whenComplete((acquired, failure) -> channel.eventLoop().execute(() -> {
            if (failure != null) {
                failAcquire(failure);
                return;
            }
            Map<String, String> fetched =
                    context.welcomeCache().remember(pool.key(), acquired.connection().parameters());
            acquired.release();
            if (state == State.CLOSED) {
                return;
            }
            channel.config().setAutoRead(true);
            sendWelcome(fetched);
        }));
    }

    private void sendWelcome(Map<String, String> serverParameters) {
        parameters.welcome(serverParameters).forEach((name, value) ->
                channel.write(new ParameterStatus(name, value), channel.voidPromise()));
        BackendKeyData ours;
        do {
            byte[] secret = new byte[BackendKeyData.KEY_LENGTH_3_0];
            RANDOM.nextBytes(secret);
            ours = new BackendKeyData(RANDOM.nextInt() & Integer.MAX_VALUE, secret);
        } while (context.clientsByKey().putIfAbsent(ours, this) != null);
        key = ours;
        channel.write(ours, channel.voidPromise());
        channel.writeAndFlush(ReadyForQuery.IDLE, channel.voidPromise());
        if (loginTimeout != null) {
            loginTimeout.cancel(false);
            loginTimeout = null;
        }
        state = State.IDLE;
        idleSinceNanos = System.nanoTime();
    }

    // ---------------------------------------------------------------- query phase: client to server

    private void onQueryMessage(FrontendMessage message) {
        if (idleSinceNanos != 0) {
            idleSinceNanos = 0;
        }
        if (idleInTransactionSinceNanos != 0) {
            idleInTransactionSinceNanos = 0;
        }
        switch (state) {
            case LINKED -> forward(message);
            case WAITING, LINKING -> hold(message);
            case IDLE -> {
                if (message.type() == FrontendMessage.TERMINATE) {
                    message.release();
                    channel.close();
                    return;
                }
                hold(message);
                acquire();
            }
            default -> message.release();
        }
    }

    /** Keeps a message until a server is linked; stops reading once too much waits. */
    private void hold(FrontendMessage message) {
        pending.add(message);
        pendingBytes += message.content().readableBytes();
        if (pendingBytes > PENDING_BYTES_LIMIT && channel.config().isAutoRead()) {
            channel.config().setAutoRead(false);
        }
    }

    private void acquire() {
        EventLoop loop = channel.eventLoop();
        // A server on this client's own loop relays without handing every message to another thread.
        Lease<ServerConnection> ready = pool.tryAcquire(loop);
        if (ready != null) {
            onAcquired(ready);
            return;
        }
        state = State.WAITING;
        pool.acquireAsync(loop).whenComplete((acquired, failure) -> {
            // Handed over on this client's own loop (a server of its loop released): link at once. Queued
            // behind the rest of the loop's ready sockets instead, the server would sit idle meanwhile.
            if (loop.inEventLoop()) {
                onWaitOver(acquired, failure);
            } else {
                loop.execute(() -> onWaitOver(acquired, failure));
            }
        });
    }

    private void onWaitOver(Lease<ServerConnection> acquired, Throwable failure) {
        if (failure != null) {
            failAcquire(failure);
        } else {
            onAcquired(acquired);
        }
    }

    private void onAcquired(Lease<ServerConnection> acquired) {
        if (state == State.CLOSED) {
            acquired.release();
            return;
        }
        lease = acquired;
        server = acquired.connection();
        state = State.LINKING;
        String replay = parameters.replayFor(server.parameters());
        if (replay == null) {
            link();
            return;
        }
        EventLoop loop = channel.eventLoop();
        server.query(replay).whenComplete((error, failure) -> loop.execute(() -> onReplayed(error, failure)));
    }

    private void onReplayed(ErrorResponse error, Throwable failure) {
        if (failure != null) {
            dropServer(failure);
            if (state != State.CLOSED) {
                fatal(PoolerError.serverConnCrashed());
            }
            return;
        }
        if (state == State.CLOSED) {
            releaseServer();
            return;
        }
        if (error != null) {
            releaseServer();
            fatal(ErrorResponse.fatal(error.sqlState(), error.message()));
            return;
        }
        parameters.replayed(server.parameters());
        link();
    }

    /**
     * Before a server connection on which this client ran SET goes back to the pool: reads its session
     * settings, which the client keeps on every later server connection and the next client of this one has
     * reset. What the client sends meanwhile waits, as for a server.
     */
    private void readSessionSettings() {
        settingsChanged = false;
        state = State.LINKING;
        List<String[]> rows = new ArrayList<>();
        EventLoop loop = channel.eventLoop();
        server.query(parameters.sessionSettingsQuery(), rows).whenComplete(
                (error, failure) -> loop.execute(() -> onSessionSettings(rows, error, failure)));
    }

    private void onSessionSettings(List<String[]> rows, ErrorResponse error, Throwable failure) {
        if (lease != null) {
            if (failure == null && error == null && parameters.captured(rows, server.parameters())) {
                releaseServer();
            } else {
                // its settings are unknown: the connection must not serve anyone else
                dropServer(failure != null ? failure : new PoolException("session settings unreadable"
                        + (error != null ? ": " + error.message() : "")));
            }
        }
        if (state == State.CLOSED) {
            return;
        }
        state = State.IDLE;
        idleSinceNanos = System.nanoTime();
        channel.config().setAutoRead(true);
        FrontendMessage next = pending.peek();
        if (next != null && next.type() == FrontendMessage.TERMINATE) {
            channel.close();
        } else if (next != null) {
            acquire();
        }
    }

    private void link() {
        state = State.LINKED;
        server.link(this);
        FrontendMessage message;
        pendingBytes = 0;
        while ((message = pending.poll()) != null) {
            if (state != State.LINKED) {
                message.release();
                continue;
            }
            try {
                forward(message);
            } catch (ProtocolViolationException violation) {
                // outside channelRead nothing routes this to exceptionCaught
                fatal(violation.toErrorResponse());
            }
        }
        if (server != null) {
            server.flush();
        }
        channel.config().setAutoRead(true);
    }

    private void forward(FrontendMessage message) {
        byte type = message.type();
        switch (type) {
            case FrontendMessage.QUERY, FrontendMessage.FUNCTION_CALL -> expectReady();
            case FrontendMessage.SYNC -> {
                expectReady();
                syncPending = false;
            }
            case FrontendMessage.PARSE, FrontendMessage.BIND, FrontendMessage.DESCRIBE, FrontendMessage.EXECUTE,
                    FrontendMessage.CLOSE, FrontendMessage.FLUSH -> {
                if (!syncPending && readyPending == 0) {
                    startQuery();
                }
                syncPending = true;
            }
            case FrontendMessage.TERMINATE -> {
                message.release();
                channel.close();
                return;
            }
            default -> {
                // COPY data flows through; the ReadyForQuery after it is already counted
            }
        }
        bytesReceived += message.content().readableBytes();
        if (renaming) {
            namedStatements.forward(message, server, channel);
        } else {
            server.write(message.content());
        }
    }

    private void expectReady() {
        if (readyPending == 0 && !syncPending) {
            startQuery();
        }
        readyPending++;
    }

    private void startQuery() {
        long now = System.nanoTime();
        queryStartNanos = now;
        if (xactStartNanos == 0) {
            xactStartNanos = now;
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state == State.LINKED && server != null) {
            server.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ServerConnection current = server;
        if (state == State.LINKED && current != null) {
            if (!channel.isWritable()) {
                channel.flush();
            }
            // asked again: the flush may have drained the buffer and run this handler for the writable event inside
            current.channel().config().setAutoRead(channel.isWritable());
        }
    }

    // ---------------------------------------------------------------- query phase: server to client

    @Override
    public void onServerMessage(BackendMessage message) {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            relay(message);
        } else {
            loop.execute(() -> relay(message));
        }
    }

    private void relay(BackendMessage message) {
        if (state != State.LINKED) {
            message.release();
            return;
        }
        if (poolMode != PoolMode.SESSION) {
            message = inspectResponses(message);
            if (message == null) {
                return;
            }
        }
        byte type = message.type();
        if (type == BackendMessage.READY_FOR_QUERY) {
            onReadyForQuery(message);
            return;
        }
        if (type == BackendMessage.PARAMETER_STATUS) {
            ParameterStatus status = ParameterStatus.decode(message.body());
            parameters.onParameterStatus(status.name(), status.value());
        }
        bytesSent += message.content().readableBytes();
        channel.write(message.content(), channel.voidPromise());
        if (renaming) {
            namedStatements.answerDue(channel);
        }
    }

    /**
     * Notes a SET among the server's messages (one, or a run) and, when statements are renamed, accounts for
     * each with the named statements' pending requests.
     * Writes at once what precedes a message to drop or an answer of the pooler's own that is due, so the
     * client sees everything in the server's order; returns the rest, ending with the last message, or null
     * when nothing is left.
     */
    private BackendMessage inspectResponses(BackendMessage message) {
        ByteBuf frames = message.content();
        int start = frames.readerIndex();
        int end = frames.writerIndex();
        int from = start;
        int at = start;
        int last = start;
        while (at < end) {
            int next = at + 1 + frames.getInt(at + 1);
            last = at;
            if (frames.getByte(at) == BackendMessage.COMMAND_COMPLETE && changesSettings(frames, at, next)) {
                settingsChanged = true;
            }
            if (!renaming) {
                at = next;
                continue;
            }
            if (!namedStatements.onResponse(frames, at, next - at, server)) {
                writeRelayed(frames, from, at);
                from = next;
                namedStatements.answerDue(channel);
            } else if (next < end && namedStatements.answerIsDue()) {
                writeRelayed(frames, from, next);
                from = next;
                namedStatements.answerDue(channel);
            }
            at = next;
        }
        if (from == start) {
            return message;
        }
        BackendMessage rest = from == end ? null
                : new BackendMessage(message.type(), frames.retainedSlice(from, end - from), last - from);
        message.release();
        return rest;
    }

    /** SET, RESET and DISCARD ALL change session settings that the server does not report. */
    private static boolean changesSettings(ByteBuf frames, int at, int next) {
        int tagStart = at + 5;
        int tagLength = next - tagStart;
        return CommandComplete.hasTag(frames, tagStart, tagLength, SET_TAG)
                || CommandComplete.hasTag(frames, tagStart, tagLength, RESET_TAG)
                || CommandComplete.hasTag(frames, tagStart, tagLength, DISCARD_ALL_TAG);
    }

    private void writeRelayed(ByteBuf frames, int from, int to) {
        if (to > from) {
            bytesSent += to - from;
            channel.write(frames.retainedSlice(from, to - from), channel.voidPromise());
        }
    }

    private void onReadyForQuery(BackendMessage message) {
        ReadyForQuery.TransactionStatus status = ReadyForQuery.decode(message.body()).status();
        if (readyPending > 0) {
            readyPending--;
        }
        long now = System.nanoTime();
        pool.traffic().recordQuery(now - queryStartNanos);
        boolean quiet = readyPending == 0 && !syncPending;
        if (poolMode == PoolMode.STATEMENT && status != ReadyForQuery.TransactionStatus.IDLE) {
            ByteBuf frames = message.content();
            writeRelayed(frames, frames.readerIndex(), frames.readerIndex() + message.lastOffset());
            message.release();
            dropServer(new PoolException("transaction block in statement pooling mode"));
            fatal(PoolerError.transactionBlocksNotAllowed());
            return;
        }
        bytesSent += message.content().readableBytes();
        channel.write(message.content(), channel.voidPromise());
        if (status == ReadyForQuery.TransactionStatus.IDLE && quiet) {
            pool.traffic().recordTransaction(now - xactStartNanos);
            xactStartNanos = 0;
        }
        if (quiet) {
            if (status == ReadyForQuery.TransactionStatus.IDLE) {
                idleSinceNanos = now;
            } else {
                idleInTransactionSinceNanos = now;
            }
            pool.traffic().recordBytes(bytesReceived, bytesSent);
            bytesReceived = 0;
            bytesSent = 0;
            if (status == ReadyForQuery.TransactionStatus.IDLE && poolMode != PoolMode.SESSION) {
                channel.flush();
                if (settingsChanged) {
                    readSessionSettings();
                    return;
                }
                releaseServer();
                state = State.IDLE;
                channel.config().setAutoRead(true);
            }
        } else if (readyPending > 0) {
            queryStartNanos = now;
        }
    }

    @Override
    public void onServerReadComplete() {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            channel.flush();
        } else {
            loop.execute(channel::flush);
        }
    }

    @Override
    public void onServerWritabilityChanged(boolean writable) {
        EventLoop loop = channel.eventLoop();
        loop.execute(() -> {
            ServerConnection current = server;
            if (state == State.LINKED && current != null) {
                // the event may be stale by now: act on the server's writability as it is
                boolean now = current.channel().isWritable();
                if (!now) {
                    // what was relayed since the last read completed must go out, or the server never drains
                    current.flush();
                }
                channel.config().setAutoRead(now);
            }
        });
    }

    @Override
    public void onServerClosed(Throwable cause) {
        channel.eventLoop().execute(() -> {
            if (state == State.CLOSED) {
                dropServer(cause);
                return;
            }
            dropServer(cause);
            fatal(PoolerError.serverConnCrashed());
        });
    }

    /** Called from the timeout sweep on any thread: hops to this client's loop only when a timeout passed. */
    void checkTimeouts(long now, long clientIdleTimeoutNanos, long idleTransactionTimeoutNanos) {
        long idle = idleSinceNanos;
        long inTransaction = idleInTransactionSinceNanos;
        if (clientIdleTimeoutNanos > 0 && idle != 0 && now - idle >= clientIdleTimeoutNanos) {
            channel.eventLoop().execute(() -> {
                if (idleSinceNanos == idle && state != State.CLOSED) {
                    fatal(PoolerError.clientIdleTimeout());
                }
            });
        } else if (idleTransactionTimeoutNanos > 0 && inTransaction != 0
                && now - inTransaction >= idleTransactionTimeoutNanos) {
            channel.eventLoop().execute(() -> {
                if (idleInTransactionSinceNanos == inTransaction && state != State.CLOSED) {
                    fatal(PoolerError.idleTransactionTimeout());
                }
            });
        }
    }

    // ---------------------------------------------------------------- ending

    private void releaseServer() {
        Lease<ServerConnection> held = lease;
        if (held != null) {
            ServerConnection released = server;
            released.unlink(this);
            lease = null;
            server = null;
            readyPending = 0;
            syncPending = false;
            namedStatements.serverGone();
            CompletableFuture<Void> cancel = released.cancelInFlight();
            if (cancel == null) {
                held.release();
            } else {
                // the backend may not have seen the cancel yet: it must not reach the next client's query
                cancel.whenComplete((v, e) -> held.release());
            }
        }
    }

    private void dropServer(Throwable cause) {
        Lease<ServerConnection> held = lease;
        if (held != null) {
            server.unlink(this);
            lease = null;
            server = null;
            readyPending = 0;
            syncPending = false;
            namedStatements.serverGone();
            held.discard(cause);
        }
    }

    private void failAcquire(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (state == State.CLOSED) {
            return;
        }
        ServerErrorException serverError = ServerErrorException.find(cause);
        ErrorResponse error;
        if (serverError != null) {
            ErrorResponse e = serverError.error();
            error = e.isFatal() ? e : ErrorResponse.fatal(e.sqlState(), e.message());
        } else if (cause instanceof PoolTimeoutException) {
            error = PoolerError.queryWaitTimeout();
        } else if (cause instanceof PoolClosedException) {
            error = PoolerError.poolerShuttingDown();
        } else {
            error = PoolerError.serverLoginFailed(String.valueOf(cause.getMessage()));
        }
        log.info("client {} user {} got no server connection: {}", channel.remoteAddress(), user, cause.toString());
        fatal(error);
    }

    /** Sends a FATAL error and closes, as PgBouncer's send_pooler_error does. */
    private void fatal(ErrorResponse error) {
        state = State.CLOSED;
        channel.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ProtocolViolationException violation && state != State.CLOSED) {
            log.info("client {} protocol violation: {}", channel.remoteAddress(), violation.getMessage());
            fatal(violation.toErrorResponse());
        } else {
            log.debug("client {} failed", channel == null ? null : channel.remoteAddress(), cause);
            ctx.close();
        }
    }

    /** What SHOW CLIENTS shows of this client. */
    public ClientInfo info() {
        State now = state;
        String shown = now == State.WAITING ? "waiting" : "active";
        BackendKeyData ours = key;
        ClientParameters current = parameters;
        String reported = current == null ? null : current.applicationName();
        return new ClientInfo(channel, user, pool == null ? null : pool.key().database(), shown, connectedAtMillis,
                reported != null ? reported : applicationName, server, ours == null ? 0 : ours.processId());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // while linking, the pooler's own query runs on the server: its completion releases the server
        boolean querying = state == State.LINKING;
        state = State.CLOSED;
        if (loginTimeout != null) {
            loginTimeout.cancel(false);
        }
        if (key != null) {
            context.clientsByKey().remove(key, this);
        }
        FrontendMessage message;
        while ((message = pending.poll()) != null) {
            message.release();
        }
        if (lease != null && !querying) {
            boolean clean = readyPending == 0 && !syncPending
                    && server.transactionStatus() == ReadyForQuery.TransactionStatus.IDLE;
            if (clean) {
                releaseServer();
            } else {
                dropServer(new PoolException("client disconnected with a query or transaction open"));
            }
        }
        if (slot != null) {
            slot.close();
        }
    }
}
