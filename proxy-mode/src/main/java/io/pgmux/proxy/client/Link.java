package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolException;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.prepared.NamedStatements;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.ReadyForQuery.TransactionStatus;
import io.pgmux.proxy.server.CancelSender;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerErrorException;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.ReadPauses;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logged-in client's relay to the server connections it borrows (PgBouncer's client-server link, objects.c and
 * sbuf.c): the client's first message starts a loan ({@link ServerLoan}), both directions then relay without
 * copying and are counted, and the ReadyForQuery that ends the transaction (transaction mode) or statement
 * (statement mode) ends the loan; in session mode the client's disconnect does. A LISTEN the pool's hub answers goes
 * through a {@link ListenInterception}, and what a server going away had not answered is sent again from a
 * {@link ResendBuffer}; a client that uses neither has neither. Runs on the client's event loop; what the server
 * sends is handed over from the server's loop when the two differ.
 */
final class Link extends ServerLoan {
    private static final Logger log = LoggerFactory.getLogger(Link.class);

    private final SettingStatementsSeen settingStatements;
    /** Null unless LISTEN is answered through the pool's hub (transaction or statement mode, pinning on). */
    private final ListenerHub hub;
    /** Null until the client's first LISTEN through {@link #hub}. */
    private ListenInterception listening;
    /** Null in session mode, and until the first link. */
    private ResendBuffer resend;
    /**
     * A message of the client's read is acquiring a server: one linked now gets the rest of the read's messages
     * too, and the read's end flushes them all with one write instead of one for the first and one for the rest.
     */
    private boolean acquiringInRead;
    /** ReadyForQuery messages the server still owes: one per Query, Sync and FunctionCall sent. */
    private int readyPending;
    /** Extended-protocol messages were sent since the last Sync: the server is mid-batch. */
    private boolean syncPending;
    /**
     * Bytes of the message forwarded last that are still to come (a large one is streamed in pieces): the server
     * reads them before anything else, so it cannot go to another client meanwhile.
     */
    private int messageRemaining;

    Link(ClientConnection client, ConnectionSocket socket, Pool<ServerConnection> pool, ClientParameters parameters,
            PreparedStatementLimit preparedStatements, Pinning pinning, ListenerHub hub, ClientReads reads) {
        super(client, socket, pool, parameters, preparedStatements, pinning, reads);
        this.hub = pinning.watches() ? hub : null;
        this.settingStatements = new SettingStatementsSeen(parameters, filter, pinning);
    }

    /** The server linked to the client now, or null; read from any thread, so possibly a moment old. */
    ServerConnection server() {
        return server;
    }

    /**
     * Whether the client's messages may come in runs ({@link FrontendMessage#isRun()}): a linked relay forwards them,
     * an idle one, or one whose route waits for the read's end, holds them for the server it acquires.
     */
    boolean relaysRuns() {
        return state == State.LINKED || state == State.IDLE && !held.discarding() || routesAtReadEnd();
    }

    boolean isWaiting() {
        return state == State.WAITING;
    }

    /** query_wait_notify's NOTICE: the client waits on; on the client's loop. */
    void noticeWaiting() {
        waitNoticeSent = true;
        socket.writeAndFlush(PoolerError.clientBeingQueued());
    }

    // ---------------------------------------------------------------- client to server

    /** A message of the client's in the query phase, as read or read again from what was held. */
    void onClientMessage(FrontendMessage message) {
        if (message.isRun() && (!relaysRuns() || state == State.IDLE && hub != null
                && ListenInterception.startsBatch(message))) {
            // what only a linked or idle relay reads in place, and the Parse of a LISTEN batch, go one by one
            ClientConnection.each(message.split(), this::onClientMessage);
            return;
        }
        if (queryStartNanos == 0 && startsRequest(message.type())) {
            long now = now();
            queryStartNanos = now;
            if (transactionStartNanos == 0) {
                transactionStartNanos = now;
            }
        }
        switch (state) {
            case LINKED -> forward(message);
            case LISTEN_BATCH -> listening.continueBatch(message);
            case IDLE -> {
                if (held.discarding()) {
                    held.discard(message);
                    return;
                }
                // no server takes the rest of a message whose start went to the one lost meanwhile
                if (message.type() == FrontendMessage.TERMINATE || message.type() == FrontendMessage.CONTINUATION) {
                    message.release();
                    client.terminate();
                    return;
                }
                if (hub != null && intercepted(message)) {
                    return;
                }
                if (message.type() == FrontendMessage.FLUSH) {
                    // nothing is owed to the client: no server is needed to flush nothing, and it stays idle
                    message.release();
                    client.quiet(TransactionStatus.IDLE, now());
                    return;
                }
                held.addLent(message);
                acquiringInRead = true;
                try {
                    acquireInRead();
                } finally {
                    acquiringInRead = false;
                    held.keepLent();
                }
            }
            default -> hold(message);
        }
    }

    /** A LISTEN or UNLISTEN the hub answers, or the Parse that may begin one; false for anything else. */
    private boolean intercepted(FrontendMessage message) {
        ListenRequest request = ListenInterception.request(message);
        if (request != null) {
            message.release();
            listening().listen(request);
            return true;
        }
        if (ListenInterception.startsBatch(message)) {
            listening().startBatch(message);
            return true;
        }
        return false;
    }

    private ListenInterception listening() {
        if (listening == null) {
            listening = new ListenInterception(this, hub);
        }
        return listening;
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
     * A timeout ends the client: its server is closed whatever runs there (it may never answer: a hung backend),
     * as PgBouncer's janitor disconnects the server, and nothing more is relayed. A query still running there is
     * cancelled first: a backend notices a closed socket only when it next writes, so it would otherwise run on.
     */
    void abort(String reason, CancelSender cancelSender) {
        ServerConnection current = server;
        if (current != null && (readyPending > 0 || syncPending) && current.backendKeyData() != null) {
            cancelSender.send(current.remoteAddress(), current.backendKeyData(), pool.key().database(),
                    pool.key().user());
        }
        drop(new PoolException(reason));
        close();
    }

    private void forward(FrontendMessage message) {
        if (message.isRun()) {
            forwardRun(message);
            return;
        }
        if (message.type() == FrontendMessage.TERMINATE) {
            message.release();
            client.terminate();
            return;
        }
        countMessageBytes(message);
        ByteBuf content = message.content();
        see(message.type(), content, content.readerIndex(), content.writerIndex());
        ResendBuffer kept = resend;
        if (kept != null && kept.keeping()) {
            kept.keep(message, namedStatements != null);
        }
        traffic.received(content.readableBytes());
        if (namedStatements != null) {
            namedStatements.forward(message, server, socket);
        } else {
            server.write(content);
        }
    }

    /**
     * The complete Parse, Bind, Describe, Execute and Sync messages of one read, each seen where it lies and all
     * written as one, as PgBouncer's sbuf sends the packets of a read with one send; statement tracking renames the
     * Binds of a run where they lie. A message it may otherwise change or answer goes alone, the others still together.
     */
    private void forwardRun(FrontendMessage run) {
        if (namedStatements != null && !NamedStatements.relaysInPlace(run)) {
            ClientConnection.each(run.split(NamedStatements::isTracked), this::forward);
            return;
        }
        messageRemaining = 0;
        ByteBuf frames = run.content();
        for (int at = frames.readerIndex(), end = frames.writerIndex(); at < end; ) {
            int next = at + 1 + frames.getInt(at + 1);
            see(frames.getByte(at), frames, at, next);
            at = next;
        }
        ResendBuffer kept = resend;
        if (kept != null && kept.keeping()) {
            kept.keep(run, namedStatements != null);
        }
        traffic.received(frames.readableBytes());
        if (namedStatements != null) {
            namedStatements.forwardRun(run, server, socket);
        } else {
            server.write(frames);
        }
    }

    /** What the relay reads of a message of {@code type} from {@code start} to {@code end} on its way to the server. */
    private void see(byte type, ByteBuf frames, int start, int end) {
        if ((type == FrontendMessage.QUERY || type == FrontendMessage.PARSE)
                && (pinning.watches() || poolMode != PoolMode.SESSION)) {
            byte[] text = MessageText.copy(frames, start, end);
            if (pinning.watches() && pinning.mentionsSessionState(frames, start, end - start, text)) {
                pinning.touched();
            }
            if (poolMode != PoolMode.SESSION) {
                settingStatements.read(type, frames, start, end, text);
            }
        } else if (type == FrontendMessage.BIND && poolMode != PoolMode.SESSION) {
            settingStatements.bound(frames, start, end);
        }
        switch (type) {
            case FrontendMessage.QUERY, FrontendMessage.FUNCTION_CALL -> expectReady();
            case FrontendMessage.SYNC -> {
                expectReady();
                syncPending = false;
            }
            // a Flush asks for no answer and opens no batch: the ReadyForQuery of a Query after it ends the transaction
            case FrontendMessage.PARSE, FrontendMessage.BIND, FrontendMessage.DESCRIBE, FrontendMessage.EXECUTE,
                    FrontendMessage.CLOSE -> {
                if (!syncPending && readyPending == 0) {
                    traffic.queryStarted(now());
                }
                syncPending = true;
            }
            default -> {
                // COPY data and the rest of a streamed message flow through; their ReadyForQuery is counted
            }
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

    private void expectReady() {
        if (readyPending == 0 && !syncPending) {
            traffic.queryStarted(now());
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
            RelayFlow.clientWritabilityChanged(socket, current);
        }
    }

    /**
     * A CancelRequest for this client: forwarded to the server while the client's query runs there; a request
     * still waiting for a server is ended by the loan instead, never to run.
     *
     * @return whether a cancel went to a server
     */
    boolean cancelQuery(CancelSender cancelSender) {
        if (cancelWait()) {
            return false;
        }
        ServerConnection current = server;
        if (state == State.LINKED && readyPending > 0 && current != null && current.backendKeyData() != null) {
            current.cancelSent(cancelSender.send(current.remoteAddress(), current.backendKeyData(),
                    pool.key().database(), pool.key().user()));
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- where notifications may go

    /**
     * No server, or a pinned one that owes nothing and has no transaction open: a notification written now falls
     * between two messages of the server's and outside a transaction, where a direct connection delivers it.
     */
    boolean betweenTransactions() {
        return state == State.IDLE || state == State.LINKED && readyPending == 0 && !syncPending
                && server.transactionStatus() == TransactionStatus.IDLE;
    }

    // ---------------------------------------------------------------- the loan's steps, seen from the relay

    @Override
    void linked() {
        if (poolMode != PoolMode.SESSION) {
            if (resend == null) {
                resend = new ResendBuffer(HeldRequest.BYTES_LIMIT);
            }
            resend.linked(server.transactionStatus() == TransactionStatus.IDLE, server.handle().connectedAtNanos());
        }
    }

    @Override
    void acquireFailed() {
        if (resend != null) {
            resend.acquireFailed();
        }
    }

    @Override
    void unlinked() {
        readyPending = 0;
        syncPending = false;
        messageRemaining = 0;
        if (resend != null) {
            resend.forget();
        }
    }

    @Override
    boolean serverIdle() {
        return readyPending == 0 && !syncPending && messageRemaining == 0;
    }

    /** Sends what the client sent while the server was not linked to it. */
    @Override
    void forwardPending() {
        FrontendMessage message;
        while ((message = held.poll()) != null) {
            if (state != State.LINKED) {
                message.release();
                held.passedOn(message);
                continue;
            }
            try {
                forward(message);
            } catch (ProtocolViolationException violation) {
                // outside channelRead nothing routes this to exceptionCaught
                client.fatal(violation.toErrorResponse());
            }
            held.passedOn(message);
        }
        if (server != null && !acquiringInRead) {
            server.flush();
        }
        // a change of the server's writability while a query of the pooler's own ran there went unheard
        socket.resumeReads(server == null || server.socket().isWritable()
                ? SERVER_REASONS : ReadPauses.WAITING_FOR_SERVER);
    }

    /** The server went back or was closed: what the client sent meanwhile gets the next one. */
    @Override
    void resumeUnlinked() {
        if (state == State.CLOSED) {
            return;
        }
        if (listening != null) {
            listening.serverGone();
            listening.deliverKept();
        }
        socket.resumeReads(SERVER_REASONS);
        FrontendMessage next = held.peek();
        if (next == null) {
            client.quiet(TransactionStatus.IDLE, now());
        } else if (next.type() == FrontendMessage.TERMINATE) {
            client.terminate();
        } else {
            ListenRequest request = hub != null ? ListenInterception.request(next) : null;
            if (request != null) {
                held.poll();
                next.release();
                held.passedOn(next);
                listening().listen(request);
            } else if (hub != null && ListenInterception.startsBatch(next)) {
                // what the client sent meanwhile is read again as it arrived, from an idle link
                held.readAgain(this::onClientMessage);
                // outside a read of the client's, nothing else flushes what went to a server meanwhile
                flushToServer();
            } else {
                acquire();
            }
        }
    }

    // ---------------------------------------------------------------- server to client

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
        if (state != State.LINKED) {
            if (state == State.CHECKING_SESSION_STATE && message.type() == BackendMessage.NOTIFICATION_RESPONSE) {
                filter.relayNotification(message);
            } else {
                message.release();
            }
            return;
        }
        ResendBuffer kept = resend;
        if (kept != null && kept.keeping() && goingAway(message, kept)) {
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
    private boolean goingAway(BackendMessage message, ResendBuffer kept) {
        if (!message.isRun() && message.type() == BackendMessage.ERROR_RESPONSE) {
            ErrorResponse error = ErrorResponse.decode(message.body());
            if (error.saysServerGoesAway()) {
                log.debug("client {}: server going away before it answered ({} {}); sending the request to another",
                        socket.remoteAddress(), error.sqlState(), error.message());
                message.release();
                kept.goingAway();
                return true;
            }
        }
        kept.answered();
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
        long now = now();
        traffic.readyForQuery(now, status == TransactionStatus.IDLE, quiet);
        if (quiet) {
            queryStartNanos = 0;
            if (status == TransactionStatus.IDLE) {
                transactionStartNanos = 0;
            }
            client.quiet(status, now);
            if (ends) {
                endTransaction(readyHeld);
            }
            if (listening != null) {
                listening.deliverKept();
            }
        }
    }

    /** Statement mode: PgBouncer closes a client that opened a transaction block, after PostgreSQL's answer. */
    private void refuseTransactionBlock(BackendMessage readyForQuery) {
        filter.relayAllButLast(readyForQuery);
        drop(new PoolException("transaction block in statement pooling mode"));
        client.fatal(PoolerError.transactionBlocksNotAllowed());
    }

    @Override
    public void onServerReadComplete() {
        filter.flush();
    }

    @Override
    public void onServerWritabilityChanged(boolean writable) {
        socket.eventLoop().execute(() -> {
            ServerConnection current = server;
            if (state == State.LINKED && current != null) {
                RelayFlow.serverWritabilityChanged(socket, current);
            }
        });
    }

    /** What the server did not answer goes to another one if none of it ran (a going-away FATAL) or it is a BEGIN. */
    @Override
    public void onServerClosed(ServerConnection closed, Throwable cause) {
        socket.eventLoop().execute(() -> {
            if (server != closed) {
                // given back first (its answer ended the transaction), as when a server that answered hangs up at
                // once: the client is done with it
                return;
            }
            ResendBuffer kept = resend;
            if (kept != null && lent != null && state != State.CLOSED && (kept.serverGoingAway()
                    || kept.keeping() && (wentAwayBeforeTheLink(cause) || kept.onlyOpensATransaction()))) {
                sendAgain(kept, cause);
                return;
            }
            drop(cause);
            if (state != State.CLOSED) {
                client.fatal(PoolerError.serverConnCrashed());
            }
        });
    }

    /**
     * The server's going-away FATAL came while it was idle, before it was linked to this client (it was lent as it
     * went): nothing the client sent reached a backend, as surely as when that FATAL answers it.
     */
    private static boolean wentAwayBeforeTheLink(Throwable cause) {
        return cause instanceof ServerErrorException failure && failure.error().saysServerGoesAway();
    }

    /** The server went away before answering: what it was sent waits for another server, ahead of anything newer. */
    private void sendAgain(ResendBuffer kept, Throwable cause) {
        held.sendAgain(kept, pool.clock().nanoTime());
        drop(cause);
        acquire();
    }

    // ---------------------------------------------------------------- the client's end

    /**
     * The client is closing (an error sent to it, or its disconnect): nothing more is relayed or sent to the server,
     * what waited for a server is dropped, and the loan ends ({@link #closeLoan}). Once only.
     */
    void close() {
        if (state == State.CLOSED) {
            return;
        }
        pinning.clientGone();
        if (listening != null) {
            listening.clientClosed(state == State.LISTEN_BATCH);
        }
        held.releaseAll();
        if (resend != null) {
            resend.forget();
        }
        closeLoan();
    }
}
