package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolException;
import io.pgmux.core.pool.ServerGoingAway;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.parameters.PoolerPrelude;
import io.pgmux.proxy.prepared.NamedStatements;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.BindComplete;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.NoData;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.ParameterDescription;
import io.pgmux.proxy.protocol.ParseComplete;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.ReadyForQuery.TransactionStatus;
import io.pgmux.proxy.protocol.SqlState;
import io.pgmux.proxy.server.CancelSender;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerLink;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client's link to the server connections it borrows (PgBouncer's client-server link, objects.c),
 * one path from acquiring a server to giving it back: the client's first message acquires one, the client's
 * settings are replayed on it, it is linked and both directions relay without copying, and at the
 * ReadyForQuery that ends the transaction (transaction mode) or statement (statement mode) it goes back to
 * the pool, after its session settings were read when the client changed some; in session mode at
 * disconnect. A client whose server holds session state that cannot move (pin_session_state) keeps it until the
 * state is gone. A server whose state is unknown is dropped instead. Runs on the client's event loop; what the
 * server sends is handed over from the server's loop when the two differ.
 */
final class Link implements ServerLink {
    private static final Logger log = LoggerFactory.getLogger(Link.class);
    /**
     * What a client may send while it waits for a server before the proxy stops reading from it: enough for
     * any ordinary request (one Query, or a Parse/Bind/Execute/Sync batch), so that waiting costs no
     * epoll_ctl calls to pause and resume reads, yet a client streaming COPY data cannot pile up memory.
     */
    private static final int PENDING_BYTES_LIMIT = 64 * 1024;
    /** The fifth byte of a message: the first of its body. */
    private static final int BODY = 5;

    private enum State {
        /** No server. */
        IDLE,
        /** Waiting for the pool to hand over a server. */
        WAITING,
        /** The server runs the replay of the client's settings; then it is linked. */
        REPLAYING,
        LINKED,
        /** The server runs the read of the settings the client changed; then it goes back to the pool. */
        READING_SETTINGS,
        /** The server runs the check of the session state the transaction may have left; then it stays or goes. */
        CHECKING_SESSION_STATE,
        /** The client sent the Parse of a LISTEN: the rest of its batch (Bind, Execute, Sync) is awaited. */
        LISTEN_BATCH,
        /** The listener hub runs the client's LISTEN; then the proxy answers it. */
        LISTENING
    }

    private final ClientConnection client;
    private final Channel channel;
    private final Pool<ServerConnection> pool;
    private final PoolMode poolMode;
    private final ClientParameters parameters;
    /** Null unless statements are renamed (transaction or statement mode, max_prepared_statements above 0). */
    private final NamedStatements namedStatements;
    private final ClientTraffic traffic;
    private final ResponseFilter filter;
    private final Pinning pinning;
    private final SettingStatementsSeen settingStatements;
    /** Null unless LISTEN is answered through the pool's hub (transaction or statement mode, pinning on). */
    private final ListenerHub hub;
    /** The client listens through the hub, or did: it leaves it when it goes. */
    private boolean hubListener;
    /**
     * The extended-protocol LISTEN being read (Parse, Bind, Describe, Execute, Sync of the unnamed statement), kept
     * for a server if the batch turns out to be anything else; null otherwise.
     */
    private ArrayDeque<FrontendMessage> listenBatch;
    /** The Describe in {@link #listenBatch}: 'S', 'P' or 0 for none. */
    private byte listenBatchDescribe;
    /** Notifications (and warnings that some were lost) waiting for the client to have no server. */
    private ArrayDeque<Object> notifications;
    /** Sized on first use rather than 16 slots up front: most idle clients never wait for a server. */
    private final ArrayDeque<FrontendMessage> pending = new ArrayDeque<>(0);
    private int pendingBytes;
    /**
     * A message of the client's read is acquiring a server: one linked now gets the rest of the read's messages
     * too, and the read's end flushes them all with one write instead of one for the first and one for the rest.
     */
    private boolean acquiringInRead;
    /**
     * What was forwarded to a server linked outside a transaction, kept while the server has not answered any of it
     * ({@link #keeping}): should the server's first answer be a FATAL saying it is going away, none of it can have
     * taken effect, and it goes to another server instead of failing the client.
     */
    private final ArrayDeque<FrontendMessage> unanswered = new ArrayDeque<>(4);
    private int unansweredBytes;
    private boolean keeping;
    /** The server linked now sent such a FATAL: its close sends {@link #unanswered} to another server. */
    private boolean serverGoingAway;
    /** The requests were sent again once already: the next server's failure reaches the client. */
    private boolean sentAgain;

    private State state = State.IDLE;
    /** A request cancelled while waiting ended before its Sync: the client's messages until that Sync are dropped. */
    private boolean discardingUntilSync;
    /** The client is gone or being closed: nothing more reaches it, and a server acquired now goes back. */
    private boolean closed;
    private Lease<ServerConnection> lease;
    private ServerConnection server;
    /** ReadyForQuery messages the server still owes: one per Query, Sync and FunctionCall sent. */
    private int readyPending;
    /** Extended-protocol messages were sent since the last Sync: the server is mid-batch. */
    private boolean syncPending;
    /**
     * Bytes of the message forwarded last that are still to come (a large one is streamed in pieces): the server
     * reads them before anything else, so it cannot go to another client meanwhile.
     */
    private int messageRemaining;
    /**
     * When the request not yet answered in full started (PgBouncer's query_start), waiting for a server included;
     * 0 when none runs. Written on the client's loop, read by the janitor for query_timeout.
     */
    private volatile long queryStartNanos;
    /** When the client started waiting for a server, 0 while it does not; read by the janitor for query_wait_notify. */
    private volatile long waitStartNanos;
    /** {@link #waitOver}, made at the first wait and passed to every later one, so that a wait allocates no stage. */
    private BiConsumer<Lease<ServerConnection>, Throwable> whenServed;
    /** The client was told it waits (query_wait_notify), once per wait. */
    private volatile boolean waitNoticeSent;
    /** When the open transaction's first request started (xact_start), 0 when none is open; transaction_timeout. */
    private volatile long transactionStartNanos;

    Link(ClientConnection client, Channel channel, Pool<ServerConnection> pool, ClientParameters parameters,
            PreparedStatementLimit preparedStatements, Pinning pinning, ListenerHub hub) {
        this.client = client;
        this.hub = pinning.watches() ? hub : null;
        this.channel = channel;
        this.pool = pool;
        this.poolMode = pool.config().poolMode();
        this.parameters = parameters;
        this.namedStatements = poolMode != PoolMode.SESSION && preparedStatements.value() > 0
                ? new NamedStatements(preparedStatements, pool.traffic()) : null;
        this.traffic = new ClientTraffic(pool.traffic());
        this.pinning = pinning;
        this.filter = new ResponseFilter(channel, traffic, parameters, namedStatements,
                poolMode != PoolMode.SESSION, pinning);
        this.settingStatements = new SettingStatementsSeen(parameters, filter, pinning);
    }

    /** The server linked to the client now, or null; read from any thread, so possibly a moment old. */
    ServerConnection server() {
        return server;
    }

    boolean isWaiting() {
        return state == State.WAITING;
    }

    /**
     * Whether the client has waited for a server longer than {@code notifySeconds} in whole seconds (PgBouncer's
     * test) without being told; from any thread.
     */
    boolean waitNoticeDue(long now, int notifySeconds) {
        long since = waitStartNanos;
        return since != 0 && !waitNoticeSent && (now - since) / 1_000_000_000L > notifySeconds;
    }

    /** query_wait_notify's NOTICE: the client waits on; on the client's loop. */
    void noticeWaiting() {
        waitNoticeSent = true;
        channel.writeAndFlush(PoolerError.clientBeingQueued(), channel.voidPromise());
    }

    // ---------------------------------------------------------------- client to server

    /** A message of the client's in the query phase. */
    void onClientMessage(FrontendMessage message) {
        if (queryStartNanos == 0 && startsRequest(message.type())) {
            long now = System.nanoTime();
            queryStartNanos = now;
            if (transactionStartNanos == 0) {
                transactionStartNanos = now;
            }
        }
        switch (state) {
            case LINKED -> forward(message);
            case LISTEN_BATCH -> continueListenBatch(message);
            case IDLE -> {
                if (discardingUntilSync) {
                    discardUntilSync(message);
                    return;
                }
                // no server takes the rest of a message whose start went to the one lost meanwhile
                if (message.type() == FrontendMessage.TERMINATE || message.type() == FrontendMessage.CONTINUATION) {
                    message.release();
                    client.terminate();
                    return;
                }
                ListenRequest request = listenRequest(message);
                if (request != null) {
                    message.release();
                    listen(request);
                    return;
                }
                if (startsListenBatch(message)) {
                    state = State.LISTEN_BATCH;
                    listenBatch = new ArrayDeque<>(5);
                    listenBatch.add(message);
                    listenBatchDescribe = 0;
                    return;
                }
                if (message.type() == FrontendMessage.FLUSH) {
                    // nothing is owed to the client: no server is needed to flush nothing, and it stays idle
                    message.release();
                    client.quiet(TransactionStatus.IDLE, System.nanoTime());
                    return;
                }
                hold(message);
                acquiringInRead = true;
                try {
                    acquire();
                } finally {
                    acquiringInRead = false;
                }
            }
            default -> hold(message);
        }
    }

    /** The rest of a batch whose request was cancelled while waiting: dropped, as a server drops it after an error. */
    private void discardUntilSync(FrontendMessage message) {
        byte type = message.type();
        message.release();
        if (type == FrontendMessage.TERMINATE) {
            client.terminate();
        } else if (type == FrontendMessage.SYNC) {
            discardingUntilSync = false;
            queryStartNanos = 0;
            transactionStartNanos = 0;
            filter.relayOwn(ReadyForQuery.IDLE);
            channel.flush();
            client.quiet(TransactionStatus.IDLE, System.nanoTime());
        }
    }

    /** Whether a message asks the server for something: a Flush, COPY data or a message's continuation does not. */
    private static boolean startsRequest(byte type) {
        return switch (type) {
            case FrontendMessage.QUERY, FrontendMessage.PARSE, FrontendMessage.BIND, FrontendMessage.DESCRIBE,
                    FrontendMessage.EXECUTE, FrontendMessage.CLOSE, FrontendMessage.SYNC,
                    FrontendMessage.FUNCTION_CALL -> true;
            default -> false;
        };
    }

    /**
     * The error of the timeout this client has run out of, or null: query_timeout (the global one, PgBouncer's
     * {@code query_timeout} text, while it waits for a server; the user's, {@code query timeout}, once it has one)
     * or transaction_timeout. Read from any thread: what the janitor reads may be a moment old, so the client's
     * loop asks again before acting on it.
     */
    ErrorResponse expired(long now, ClientTimeouts.Limits limits, long waitingQueryNanos) {
        long query = queryStartNanos;
        if (query != 0) {
            boolean linked = server != null;
            long limit = linked ? limits.queryNanos() : waitingQueryNanos;
            if (limit > 0 && now - query >= limit) {
                return linked ? PoolerError.queryTimeout() : PoolerError.waitingQueryTimeout();
            }
        }
        long transaction = transactionStartNanos;
        if (transaction != 0 && server != null && limits.transactionNanos() > 0
                && now - transaction >= limits.transactionNanos()) {
            return PoolerError.transactionTimeout();
        }
        return null;
    }

    /**
     * server_fast_close: the linked server is marked close_needed and is ready (PgBouncer's word: no request
     * outstanding, no transaction open); from any thread, so possibly a moment old.
     */
    boolean fastCloseDue() {
        Lease<ServerConnection> held = lease;
        return held != null && state == State.LINKED && queryStartNanos == 0 && transactionStartNanos == 0
                && readyPending == 0 && !syncPending && messageRemaining == 0 && held.server().closeNeeded();
    }

    /**
     * A timeout ends the client: its server is closed whatever runs there (it may never answer: a hung backend),
     * as PgBouncer's janitor disconnects the server, and nothing more is relayed. A query still running there is
     * cancelled first: a backend notices a closed socket only when it next writes, so it would otherwise run on.
     */
    void abort(String reason, CancelSender cancelSender) {
        closed = true;
        ServerConnection current = server;
        if (current != null && (readyPending > 0 || syncPending) && current.backendKeyData() != null) {
            cancelSender.send(current.remoteAddress(), current.backendKeyData());
        }
        drop(new PoolException(reason));
    }

    /** Keeps a message until a server is linked; stops reading once too much waits. */
    void hold(FrontendMessage message) {
        pending.add(message);
        pendingBytes += message.content().readableBytes();
        if (pendingBytes > PENDING_BYTES_LIMIT && channel.config().isAutoRead()) {
            channel.config().setAutoRead(false);
        }
    }

    private void forward(FrontendMessage message) {
        countMessageBytes(message);
        if (message.type() == FrontendMessage.QUERY || message.type() == FrontendMessage.PARSE) {
            if (pinning.watches() && pinning.mentionsSessionState(message.content())) {
                pinning.touched();
            }
            if (poolMode != PoolMode.SESSION) {
                settingStatements.read(message);
            }
        } else if (message.type() == FrontendMessage.BIND && poolMode != PoolMode.SESSION) {
            settingStatements.bound(message);
        }
        switch (message.type()) {
            case FrontendMessage.QUERY, FrontendMessage.FUNCTION_CALL -> expectReady();
            case FrontendMessage.SYNC -> {
                expectReady();
                syncPending = false;
            }
            // a Flush asks for no answer and opens no batch: the ReadyForQuery of a Query after it ends the transaction
            case FrontendMessage.PARSE, FrontendMessage.BIND, FrontendMessage.DESCRIBE, FrontendMessage.EXECUTE,
                    FrontendMessage.CLOSE -> {
                if (!syncPending && readyPending == 0) {
                    traffic.queryStarted(System.nanoTime());
                }
                syncPending = true;
            }
            case FrontendMessage.TERMINATE -> {
                message.release();
                client.terminate();
                return;
            }
            default -> {
                // COPY data and the rest of a streamed message flow through; their ReadyForQuery is counted
            }
        }
        if (keeping) {
            keep(message);
        }
        traffic.received(message.content().readableBytes());
        if (namedStatements != null) {
            namedStatements.forward(message, server, channel);
        } else {
            server.write(message.content());
        }
    }

    private void countMessageBytes(FrontendMessage message) {
        ByteBuf content = message.content();
        if (message.type() == FrontendMessage.CONTINUATION) {
            messageRemaining -= content.readableBytes();
        } else {
            messageRemaining = content.getInt(content.readerIndex() + 1) + 1 - content.readableBytes();
        }
    }

    /**
     * Keeps a copy of a message forwarded before the server answered anything: not for a named Parse or Close, which
     * change the client's statements as they pass (sent twice, the Parse would find its name taken), nor beyond
     * what a client may have waiting for a server.
     */
    private void keep(FrontendMessage message) {
        ByteBuf content = message.content();
        int bytes = content.readableBytes();
        boolean named = namedStatements != null && bytes > BODY + 1 && switch (message.type()) {
            case FrontendMessage.PARSE -> content.getByte(content.readerIndex() + BODY) != 0;
            case FrontendMessage.CLOSE -> content.getByte(content.readerIndex() + BODY) == 'S'
                    && content.getByte(content.readerIndex() + BODY + 1) != 0;
            default -> false;
        };
        if (named || unansweredBytes + bytes > PENDING_BYTES_LIMIT) {
            forgetUnanswered();
            return;
        }
        unanswered.add(message.retainedDuplicate());
        unansweredBytes += bytes;
    }

    private void forgetUnanswered() {
        keeping = false;
        serverGoingAway = false;
        unansweredBytes = 0;
        FrontendMessage kept;
        while ((kept = unanswered.poll()) != null) {
            kept.release();
        }
    }

    private void expectReady() {
        if (readyPending == 0 && !syncPending) {
            traffic.queryStarted(System.nanoTime());
        }
        readyPending++;
    }

    /** The client's receive buffer is drained: what was forwarded goes out. */
    void flushToServer() {
        if (state == State.LINKED && server != null) {
            server.flush();
        }
    }

    void onClientWritabilityChanged() {
        ServerConnection current = server;
        if (state == State.LINKED && current != null) {
            if (!channel.isWritable()) {
                channel.flush();
            }
            // asked again: the flush may have drained the buffer and run this handler for the writable event inside
            current.channel().config().setAutoRead(channel.isWritable());
        }
    }

    /**
     * A CancelRequest for this client: forwarded to the server while the client's query runs there; a request
     * still waiting for a server is ended here instead (see {@link #cancelledWhileWaiting}), never to run.
     */
    void cancelQuery(CancelSender cancelSender) {
        if (state == State.WAITING && pool.cancelWait(whenServed)) {
            return;
        }
        ServerConnection current = server;
        if (state == State.LINKED && readyPending > 0 && current != null && current.backendKeyData() != null) {
            current.cancelSent(cancelSender.send(current.remoteAddress(), current.backendKeyData()));
        }
    }

    // ---------------------------------------------------------------- LISTEN through the hub

    /** Whether the hub may answer the batch that {@code message} begins: the Parse of a LISTEN or UNLISTEN. */
    private boolean startsListenBatch(FrontendMessage message) {
        return hub != null && message.type() == FrontendMessage.PARSE
                && ListenRequest.parseUnnamed(message) != null;
    }

    /** What the hub can answer instead of a server: a Query that is one LISTEN or UNLISTEN; else null. */
    private ListenRequest listenRequest(FrontendMessage message) {
        return hub != null && message.type() == FrontendMessage.QUERY ? ListenRequest.parse(message) : null;
    }

    /** Answers a LISTEN or UNLISTEN outside a transaction through the hub; what the client sends meanwhile waits. */
    private void listen(ListenRequest request) {
        hubListener = true;
        traffic.queryStarted(System.nanoTime());
        if (!request.listen()) {
            hub.unlisten(this, request.channel());
            listened(request, null, null);
            return;
        }
        state = State.LISTENING;
        EventLoop loop = channel.eventLoop();
        hub.listen(this, request.channel(), (error, failure) -> loop.execute(() -> listened(request, error, failure)));
    }

    private void listened(ListenRequest request, ErrorResponse error, Throwable failure) {
        state = State.IDLE;
        ArrayDeque<FrontendMessage> batch = listenBatch;
        listenBatch = null;
        if (batch != null) {
            batch.forEach(FrontendMessage::release);
        }
        if (closed) {
            return;
        }
        if (failure != null) {
            client.failAcquire(failure);
            return;
        }
        if (batch != null) {
            // what the server answers to Parse, Bind, Describe and Execute of a statement without rows
            filter.relayOwn(ParseComplete.INSTANCE, BindComplete.INSTANCE);
            if (listenBatchDescribe == 'S') {
                filter.relayOwn(ParameterDescription.NONE);
            }
            if (listenBatchDescribe != 0) {
                filter.relayOwn(NoData.INSTANCE);
            }
        }
        filter.relayOwn(error != null ? ErrorResponse.error(error.sqlState(), error.message())
                : new CommandComplete(request.tag()), ReadyForQuery.IDLE);
        traffic.readyForQuery(System.nanoTime(), true, true, false);
        channel.flush();
        resumeUnlinked();
    }

    /**
     * The next message of a batch that began with the Parse of a LISTEN: the batch is answered by the hub when it
     * is exactly Parse, Bind, an optional Describe, Execute and Sync of the unnamed statement and portal (as pgjdbc
     * and libpq send a statement without parameters); anything else sends it all to a server.
     */
    private void continueListenBatch(FrontendMessage message) {
        byte last = listenBatch.peekLast().type();
        ByteBuf body = message.body();
        int at = body.readerIndex();
        boolean fits = switch (message.type()) {
            case FrontendMessage.BIND -> last == FrontendMessage.PARSE && body.readableBytes() >= 2
                    && body.getByte(at) == 0 && body.getByte(at + 1) == 0;
            case FrontendMessage.DESCRIBE -> last == FrontendMessage.BIND && body.readableBytes() == 2
                    && (body.getByte(at) == 'P' || body.getByte(at) == 'S') && body.getByte(at + 1) == 0;
            case FrontendMessage.EXECUTE -> (last == FrontendMessage.BIND || last == FrontendMessage.DESCRIBE)
                    && body.readableBytes() == 5 && body.getByte(at) == 0;
            case FrontendMessage.SYNC -> last == FrontendMessage.EXECUTE;
            default -> false;
        };
        if (!fits) {
            state = State.IDLE;
            ArrayDeque<FrontendMessage> batch = listenBatch;
            listenBatch = null;
            batch.forEach(this::hold);
            if (message.type() == FrontendMessage.TERMINATE) {
                message.release();
                channel.close();
                return;
            }
            hold(message);
            acquire();
            return;
        }
        if (message.type() == FrontendMessage.DESCRIBE) {
            listenBatchDescribe = body.getByte(at);
        }
        listenBatch.add(message);
        if (message.type() == FrontendMessage.SYNC) {
            listen(ListenRequest.parseUnnamed(listenBatch.peekFirst()));
        }
    }

    /** A notification for the client, from the hub's loop; ownership moves here. */
    void notification(ByteBuf frame) {
        channel.eventLoop().execute(() -> deliverOrKeep(frame));
    }

    /** The hub's server connection was lost: notifications sent meanwhile were not received. */
    void notificationsLost() {
        channel.eventLoop().execute(() -> deliverOrKeep(NoticeResponse.warning(SqlState.CONNECTION_FAILURE,
                "the pooler lost the server connection that listens for this client; notifications sent until it"
                        + " listened again on a new one were lost")));
    }

    /** Writes now if the client is between transactions, else keeps it until it is. */
    private void deliverOrKeep(Object notification) {
        if (closed) {
            ReferenceCountUtil.release(notification);
        } else if (betweenTransactions() && (notifications == null || notifications.isEmpty())) {
            write(notification);
        } else {
            if (notifications == null) {
                notifications = new ArrayDeque<>();
            }
            notifications.add(notification);
        }
    }

    private void deliverKept() {
        Object notification;
        while (betweenTransactions() && (notification = notifications.poll()) != null) {
            write(notification);
        }
    }

    /**
     * No server, or a pinned one that owes nothing and has no transaction open: a notification written now falls
     * between two messages of the server's and outside a transaction, where a direct connection delivers it.
     */
    private boolean betweenTransactions() {
        return !closed && (state == State.IDLE || state == State.LINKED && readyPending == 0 && !syncPending
                && server.transactionStatus() == TransactionStatus.IDLE);
    }

    private void write(Object notification) {
        if (notification instanceof ByteBuf frame) {
            traffic.sent(frame.readableBytes());
        }
        channel.writeAndFlush(notification, channel.voidPromise());
    }

    // ---------------------------------------------------------------- acquire, replay, link

    private void acquire() {
        EventLoop loop = channel.eventLoop();
        // A server on this client's own loop relays without handing every message to another thread.
        Lease<ServerConnection> ready = pool.tryAcquire(loop);
        if (ready != null) {
            onAcquired(ready);
            return;
        }
        state = State.WAITING;
        waitNoticeSent = false;
        waitStartNanos = System.nanoTime();
        if (whenServed == null) {
            whenServed = this::waitOver;
        }
        pool.acquireAsync(loop, whenServed);
    }

    /** Called by the pool on the thread that ended the wait. */
    private void waitOver(Lease<ServerConnection> acquired, Throwable failure) {
        EventLoop loop = channel.eventLoop();
        // Handed over on this client's own loop (a server of its loop released): link at once. Queued
        // behind the rest of the loop's ready sockets instead, the server would sit idle meanwhile.
        if (loop.inEventLoop()) {
            onWaitOver(acquired, failure);
        } else {
            loop.execute(() -> onWaitOver(acquired, failure));
        }
    }

    private void onWaitOver(Lease<ServerConnection> acquired, Throwable failure) {
        waitStartNanos = 0;
        if (failure instanceof CancellationException) {
            cancelledWhileWaiting();
        } else if (failure != null) {
            state = State.IDLE;
            sentAgain = false;
            client.failAcquire(failure);
        } else {
            onAcquired(acquired);
        }
    }

    /**
     * The client cancelled the request that waited for a server: it is answered as PostgreSQL answers a cancelled
     * statement (57014, then ReadyForQuery at the request's end: its Query or FunctionCall, or the Sync of its
     * batch, read now or later), without having reached a server. What the client sent after it is served as usual.
     */
    private void cancelledWhileWaiting() {
        state = State.IDLE;
        if (closed) {
            return;
        }
        FrontendMessage message;
        boolean ended = false;
        while (!ended && (message = pending.poll()) != null) {
            pendingBytes -= message.content().readableBytes();
            ended = message.type() == FrontendMessage.QUERY || message.type() == FrontendMessage.SYNC
                    || message.type() == FrontendMessage.FUNCTION_CALL;
            message.release();
        }
        filter.relayOwn(PoolerError.queryCanceled());
        discardingUntilSync = !ended;
        queryStartNanos = pending.isEmpty() ? 0 : System.nanoTime();
        transactionStartNanos = queryStartNanos;
        if (ended) {
            filter.relayOwn(ReadyForQuery.IDLE);
        }
        channel.flush();
        resumeUnlinked();
    }

    private void onAcquired(Lease<ServerConnection> acquired) {
        if (closed) {
            state = State.IDLE;
            acquired.release();
            return;
        }
        lease = acquired;
        server = acquired.connection();
        if (!server.isOpen()) {
            // closed by its server (a restart, a terminated backend) since it went idle: take another
            drop(new ClosedChannelException());
            acquire();
            return;
        }
        EncodableMessage replay = parameters.replayFor(server.parameters());
        if (replay == null) {
            link();
            return;
        }
        state = State.REPLAYING;
        EventLoop loop = channel.eventLoop();
        server.request(replay, null).whenComplete((error, failure) -> loop.execute(() -> onReplayed(error, failure)));
    }

    private void onReplayed(ErrorResponse error, Throwable failure) {
        if (lease == null) {
            // a timeout closed the server meanwhile
            return;
        }
        if (failure != null) {
            // The server died under the pooler's own query (a restart, a terminated backend): nothing the client
            // sent has reached it, so the client waits for another server instead of losing its connection.
            drop(failure);
            if (!closed) {
                acquire();
            }
            return;
        }
        if (closed) {
            release();
            return;
        }
        if (error != null) {
            release();
            client.fatal(ErrorResponse.fatal(error.sqlState(), error.message()));
            return;
        }
        parameters.replayed(server.parameters());
        link();
    }

    private void link() {
        state = State.LINKED;
        // a session keeps what it set on its server: only a new transaction can move to another one
        keeping = poolMode != PoolMode.SESSION && !sentAgain && server.transactionStatus() == TransactionStatus.IDLE;
        sentAgain = false;
        server.link(this);
        forwardPending();
    }

    /** Sends what the client sent while the server was not linked to it. */
    private void forwardPending() {
        pendingBytes = 0;
        FrontendMessage message;
        while ((message = pending.poll()) != null) {
            if (state != State.LINKED || closed) {
                message.release();
                continue;
            }
            try {
                forward(message);
            } catch (ProtocolViolationException violation) {
                // outside channelRead nothing routes this to exceptionCaught
                client.fatal(violation.toErrorResponse());
            }
        }
        if (server != null && !acquiringInRead) {
            server.flush();
        }
        channel.config().setAutoRead(true);
    }

    // ---------------------------------------------------------------- server to client

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
        if (state != State.LINKED || closed) {
            if (state == State.CHECKING_SESSION_STATE && !closed
                    && message.type() == BackendMessage.NOTIFICATION_RESPONSE) {
                filter.relayNotification(message);
            } else {
                message.release();
            }
            return;
        }
        if (keeping && goingAway(message)) {
            return;
        }
        BackendMessage rest = filter.inspect(message, server);
        if (rest == null) {
            return;
        }
        if (rest.type() == BackendMessage.READY_FOR_QUERY) {
            onReadyForQuery(rest);
        } else {
            filter.relay(rest);
        }
    }

    /**
     * The server's first answer to what was kept: when it is a FATAL saying the server is going away, it is kept from
     * the client, and the close that follows sends the requests to another server; anything else ends the keeping.
     */
    private boolean goingAway(BackendMessage message) {
        if (!message.isRun() && message.type() == BackendMessage.ERROR_RESPONSE) {
            ErrorResponse error = ErrorResponse.decode(message.body());
            if (error.isFatal() && ServerGoingAway.means(error.sqlState())) {
                log.debug("client {}: server going away before it answered ({} {}); sending the request to another",
                        channel.remoteAddress(), error.sqlState(), error.message());
                message.release();
                serverGoingAway = true;
                return true;
            }
        }
        forgetUnanswered();
        return false;
    }

    private void onReadyForQuery(BackendMessage message) {
        TransactionStatus status = ReadyForQuery.statusOf(message);
        if (poolMode == PoolMode.STATEMENT && status != TransactionStatus.IDLE) {
            refuseTransactionBlock(message);
            return;
        }
        if (readyPending > 0) {
            readyPending--;
        }
        boolean quiet = readyPending == 0 && !syncPending;
        boolean ends = quiet && status == TransactionStatus.IDLE && poolMode != PoolMode.SESSION
                && messageRemaining == 0;
        // pin_session_state = error may have to fail the transaction's last statement: its ReadyForQuery waits
        boolean readyHeld = ends && pinning.refusesPending();
        if (readyHeld) {
            filter.relayAllButLast(message);
        } else {
            filter.relay(message);
        }
        long now = System.nanoTime();
        traffic.readyForQuery(now, status == TransactionStatus.IDLE, quiet, readyPending > 0);
        if (quiet) {
            queryStartNanos = 0;
            if (status == TransactionStatus.IDLE) {
                transactionStartNanos = 0;
            }
            client.quiet(status, now);
            if (ends) {
                endTransaction(readyHeld);
            }
            if (notifications != null) {
                deliverKept();
            }
        }
    }

    /** Statement mode: PgBouncer closes a client that opened a transaction block, after PostgreSQL's answer. */
    private void refuseTransactionBlock(BackendMessage readyForQuery) {
        filter.relayAllButLast(readyForQuery);
        drop(new PoolException("transaction block in statement pooling mode"));
        client.fatal(PoolerError.transactionBlocksNotAllowed());
    }

    /**
     * The transaction (or statement) ended: the server goes back, once its settings are known, unless it holds
     * session state the client keeps it for.
     */
    private void endTransaction(boolean readyHeld) {
        channel.flush();
        if (pinning.takeTouched()) {
            checkSessionState(readyHeld);
            return;
        }
        if (pinning.isPinned()) {
            return;
        }
        if (filter.takeSettingsChanged()) {
            readSessionSettings();
            return;
        }
        release();
        channel.config().setAutoRead(true);
    }

    /**
     * Before a server connection on which this client ran SET goes back to the pool: reads its session
     * settings, which the client keeps on every later server connection and the next client of this one has
     * reset. What the client sends meanwhile waits, as for a server.
     */
    private void readSessionSettings() {
        state = State.READING_SETTINGS;
        List<String[]> rows = new ArrayList<>();
        EventLoop loop = channel.eventLoop();
        server.request(parameters.sessionSettingsQuery(server.parameters().majorVersion()), rows).whenComplete(
                (error, failure) -> loop.execute(() -> onSessionSettings(rows, error, failure)));
    }

    private void onSessionSettings(List<String[]> rows, ErrorResponse error, Throwable failure) {
        if (lease == null) {
            return;
        }
        if (failure == null && error == null && parameters.captured(rows, server.parameters())) {
            release();
        } else {
            // its settings are unknown: the connection must not serve anyone else
            drop(failure != null ? failure : new PoolException("session settings unreadable"
                    + (error != null ? ": " + error.message() : "")));
        }
        resumeUnlinked();
    }

    /**
     * After a transaction that may have left session state: one query of the pooler's own tells what the session
     * holds. What the client sends meanwhile waits, as for a server.
     */
    private void checkSessionState(boolean readyHeld) {
        state = State.CHECKING_SESSION_STATE;
        List<String[]> rows = new ArrayList<>();
        EventLoop loop = channel.eventLoop();
        server.request(PoolerPrelude.before(Pinning.CHECK_QUERY, server.parameters().majorVersion()), rows)
                .whenComplete((error, failure) -> loop.execute(() -> onSessionState(rows, error, failure, readyHeld)));
    }

    private void onSessionState(List<String[]> rows, ErrorResponse error, Throwable failure, boolean readyHeld) {
        if (lease == null) {
            return;
        }
        if (failure != null) {
            drop(failure);
            if (!closed) {
                client.fatal(PoolerError.serverConnCrashed());
            }
            return;
        }
        if (error != null) {
            // what the session holds is unknown: the connection must not serve anyone else
            log.warn("client {} session state unreadable, server connection closed: {}", channel.remoteAddress(),
                    error.message());
            pinning.hold(0);
            drop(new PoolException("session state unreadable: " + error.message()));
            if (readyHeld && !closed) {
                filter.relayOwn(ReadyForQuery.IDLE);
                channel.flush();
            }
            resumeUnlinked();
            return;
        }
        int found = pinning.found(rows);
        if (closed) {
            pinning.hold(found);
            endClosed();
            return;
        }
        if (found != 0 && pinning.refuses()) {
            String refusal = Pinning.refusal(found, poolMode == PoolMode.STATEMENT ? "statement" : "transaction");
            filter.relayOwn(ErrorResponse.error(SqlState.FEATURE_NOT_SUPPORTED, refusal), ReadyForQuery.IDLE);
            channel.flush();
            // closing the server connection ends the state with the session
            drop(new PoolException(refusal));
            resumeUnlinked();
            return;
        }
        if (readyHeld) {
            filter.relayOwn(ReadyForQuery.IDLE);
            channel.flush();
        }
        pinning.hold(found);
        if (pinning.isPinned()) {
            state = State.LINKED;
            forwardPending();
            return;
        }
        if (filter.takeSettingsChanged()) {
            readSessionSettings();
            return;
        }
        release();
        resumeUnlinked();
    }

    /** The server went back or was closed: what the client sent meanwhile gets the next one. */
    private void resumeUnlinked() {
        if (closed) {
            return;
        }
        if (hubListener && filter.takeDiscardedAll()) {
            hub.unlisten(this, null);
        }
        if (notifications != null) {
            deliverKept();
        }
        channel.config().setAutoRead(true);
        FrontendMessage next = pending.peek();
        if (next == null) {
            client.quiet(TransactionStatus.IDLE, System.nanoTime());
        } else if (next.type() == FrontendMessage.TERMINATE) {
            client.terminate();
        } else {
            ListenRequest request = listenRequest(next);
            if (request != null) {
                pending.poll();
                pendingBytes -= next.content().readableBytes();
                next.release();
                listen(request);
            } else if (startsListenBatch(next)) {
                // what the client sent meanwhile is read again as it arrived, from an idle link
                List<FrontendMessage> queued = new ArrayList<>(pending);
                pending.clear();
                pendingBytes = 0;
                queued.forEach(this::onClientMessage);
                // outside a read of the client's, nothing else flushes what went to a server meanwhile
                flushToServer();
            } else {
                acquire();
            }
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
        channel.eventLoop().execute(() -> {
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
            if (serverGoingAway && lease != null && !closed) {
                sendAgain(cause);
                return;
            }
            drop(cause);
            if (!closed) {
                client.fatal(PoolerError.serverConnCrashed());
            }
        });
    }

    /** The server went away before answering: what it was sent waits for another server, ahead of anything newer. */
    private void sendAgain(Throwable cause) {
        FrontendMessage kept;
        while ((kept = unanswered.pollLast()) != null) {
            pending.addFirst(kept);
            pendingBytes += kept.content().readableBytes();
        }
        drop(cause);
        sentAgain = true;
        acquire();
    }

    // ---------------------------------------------------------------- release, drop

    /** The client is closing with an error: nothing more is relayed or sent to the server. */
    void close() {
        closed = true;
    }

    /**
     * The client disconnected: a clean server goes back, one with a query or transaction open is dropped. While
     * a query of the pooler's own runs on it, that query's completion gives it back.
     */
    void clientClosed() {
        closed = true;
        pinning.clientGone();
        if (hubListener) {
            hub.unlisten(this, null);
        }
        Object notification;
        while (notifications != null && (notification = notifications.poll()) != null) {
            ReferenceCountUtil.release(notification);
        }
        if (listenBatch != null && state == State.LISTEN_BATCH) {
            listenBatch.forEach(FrontendMessage::release);
            listenBatch = null;
        }
        FrontendMessage message;
        while ((message = pending.poll()) != null) {
            message.release();
        }
        forgetUnanswered();
        if (lease == null || state == State.REPLAYING || state == State.READING_SETTINGS
                || state == State.CHECKING_SESSION_STATE) {
            return;
        }
        if (readyPending == 0 && !syncPending && messageRemaining == 0
                && server.transactionStatus() == TransactionStatus.IDLE) {
            endClosed();
        } else {
            drop(new PoolException("client disconnected with a query or transaction open"));
        }
    }

    /** The client is gone and its server idle: back to the pool, once cleared of the state it was pinned for. */
    private void endClosed() {
        if (!pinning.isPinned()) {
            if (filter.takeSettingsChanged()) {
                readSessionSettings();
            } else {
                release();
            }
            return;
        }
        if (pinning.isLoaded()) {
            drop(new PoolException("client disconnected after LOAD, which cannot be undone"));
            return;
        }
        // DISCARD ALL ends every kind of state a client is pinned for, whatever server_reset_query says
        ServerConnection pinned = server;
        Lease<ServerConnection> held = unlink();
        pinned.query("DISCARD ALL").whenComplete((error, failure) -> {
            if (failure == null && error == null) {
                pinned.resetSession();
                giveBack(pinned, held);
            } else {
                held.discard(failure != null ? failure : new PoolException("DISCARD ALL failed: " + error.message()));
            }
        });
    }

    /** Gives the server back to the pool, once a cancel forwarded to it cannot reach the next client's query. */
    private void release() {
        ServerConnection released = server;
        Lease<ServerConnection> held = unlink();
        if (held != null) {
            giveBack(released, held);
        }
    }

    private static void giveBack(ServerConnection released, Lease<ServerConnection> held) {
        CompletableFuture<Void> cancel = released.cancelInFlight();
        if (cancel == null) {
            held.release();
        } else {
            // the backend may not have seen the cancel yet: it must not reach the next client's query
            cancel.whenComplete((v, e) -> held.release());
        }
    }

    /** Closes the server instead of giving it back: its state is unknown or broken. */
    private void drop(Throwable cause) {
        Lease<ServerConnection> held = unlink();
        if (held != null) {
            held.discard(cause);
        }
    }

    /** Ends the link and what was pending on the server; returns the lease to end, or null when none was held. */
    private Lease<ServerConnection> unlink() {
        Lease<ServerConnection> held = lease;
        if (held == null) {
            return null;
        }
        state = State.IDLE;
        server.unlink(this);
        lease = null;
        server = null;
        readyPending = 0;
        syncPending = false;
        messageRemaining = 0;
        forgetUnanswered();
        if (namedStatements != null) {
            namedStatements.serverGone();
        }
        return held;
    }
}
