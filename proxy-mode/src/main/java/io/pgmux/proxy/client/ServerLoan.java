package io.pgmux.proxy.client;

import io.netty.channel.EventLoop;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.LentServer;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolException;
import io.pgmux.core.pool.Waiter;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.prepared.NamedStatements;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.ReadyForQuery.TransactionStatus;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerLink;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.LoopClock;
import io.pgmux.proxy.transport.ReadPauses;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A client's loan of server connections, as one state machine (PgBouncer's client-server link of objects.c): a
 * server is acquired, the client's settings are replayed on it, it is linked, and it goes back to the pool (at a
 * transaction's end, after the reads and checks of {@link TransactionEnd}) or is dropped when its state is unknown.
 * {@link #to} is the one place the state changes; {@link State#CLOSED} is final. Each step that runs a query of the
 * pooler's own on the server is an {@link OwnQuery}; what the client sends while no server is linked is its
 * {@link HeldRequest}. The relay ({@link Link}) extends it, so that the hot path reads the loan's fields without
 * another object between. Runs on the client's event loop.
 */
abstract class ServerLoan implements ServerLink {

    enum State {
        /** No server. */
        IDLE,
        /** Waiting for the pool to hand over a server. */
        WAITING,
        /** The server runs the replay of the client's settings; then it is linked. */
        REPLAYING,
        LINKED,
        /** The server runs the read of the settings the client changed; then it goes back to the pool. */
        READING_SETTINGS,
        /** The server runs the read of the WAL position after the client's commit (read_your_writes); then it goes on. */
        READING_POSITION,
        /** The server runs the check of the session state the transaction may have left; then it stays or goes. */
        CHECKING_SESSION_STATE,
        /** The client sent the Parse of a LISTEN: the rest of its batch (Bind, Execute, Sync) is awaited. */
        LISTEN_BATCH,
        /** The listener hub runs the client's LISTEN; then the proxy answers it. */
        LISTENING,
        /**
         * The client is gone or being closed: nothing more reaches it, and a server acquired now goes back. A server
         * still held in this state runs a query of the pooler's own, whose completion ends the loan.
         */
        CLOSED;

        /** The server runs an {@link OwnQuery}, whose answer moves the loan on. */
        boolean ownQuery() {
            return this == REPLAYING || this == READING_SETTINGS || this == READING_POSITION
                    || this == CHECKING_SESSION_STATE;
        }
    }

    /** Why a client's reads pause for its loan: too much waits for a server, or its server cannot take more. */
    static final int SERVER_REASONS = ReadPauses.WAITING_FOR_SERVER | ReadPauses.PEER_NOT_WRITABLE;

    final ClientConnection client;
    final ConnectionSocket socket;
    final Pool<ServerConnection> pool;
    final PoolMode poolMode;
    final ClientParameters parameters;
    /** Null unless statements are renamed (transaction or statement mode, max_prepared_statements above 0). */
    final NamedStatements namedStatements;
    final ClientTraffic traffic;
    final ResponseFilter filter;
    final Pinning pinning;
    /** Null unless the pool routes reads to standbys (read_routing = replicas, transaction mode). */
    final ClientReads reads;
    /** The pool the client waits on or borrowed from: {@link #pool}, or a standby's under read routing. */
    private Pool<ServerConnection> lender;
    /** A wait on a standby's pool is being ended to borrow from the primary instead, not cancelled by the client. */
    private boolean rerouting;
    /** A route waits for the end of the client's read, to see the whole of what it sent in it. */
    private boolean routeAtReadEnd;

    State state = State.IDLE;
    /** What the client sent while no server is linked to it. */
    final HeldRequest held = new HeldRequest(this);
    /**
     * When the request not yet answered in full started (PgBouncer's query_start), waiting for a server included;
     * 0 when none runs; query_timeout.
     */
    long queryStartNanos;
    /** When the open transaction's first request started (xact_start), 0 when none is open; transaction_timeout. */
    long transactionStartNanos;
    /** The server lent to this client itself (no Lease per loan): only this client can end the loan. */
    LentServer<ServerConnection> lent;
    ServerConnection server;
    /** When the client started waiting for a server, 0 while it does not; query_wait_notify. */
    long waitStartNanos;
    /** The client was told it waits (query_wait_notify), once per wait. */
    boolean waitNoticeSent;
    /** {@link #waitOver}, made at the first wait and passed to every later one, so that a wait allocates no stage. */
    private BiConsumer<LentServer<ServerConnection>, Throwable> whenServed;
    /** The pool's record of this client's waits, made at the first and reused by every later one, in any pool. */
    private Waiter<ServerConnection> waiter;

    ServerLoan(ClientConnection client, ConnectionSocket socket, Pool<ServerConnection> pool,
            ClientParameters parameters, PreparedStatementLimit preparedStatements, Pinning pinning, ClientReads reads) {
        this.client = client;
        this.socket = socket;
        this.pool = pool;
        this.lender = pool;
        this.reads = reads;
        this.poolMode = pool.config().poolMode();
        this.parameters = parameters;
        this.namedStatements = poolMode != PoolMode.SESSION && preparedStatements.value() > 0
                ? new NamedStatements(preparedStatements, pool.traffic()) : null;
        this.traffic = new ClientTraffic(pool.traffic(), socket.eventLoop());
        this.pinning = pinning;
        this.filter = new ResponseFilter(socket, traffic, parameters, namedStatements,
                poolMode != PoolMode.SESSION, pinning, reads != null && reads.watchesWrites());
    }

    /**
     * The time now, the same for all that the client's loop handles in one pass (the request's start, the acquire, the
     * query's start, the ReadyForQuery): {@link LoopClock}. Every time the relay keeps comes from here, so that no
     * two of them, read in one pass, are out of order.
     */
    final long now() {
        return LoopClock.nanoTime(socket.eventLoop());
    }

    /** The one transition: every state change goes through here, and none leaves {@link State#CLOSED}. */
    final void to(State next) {
        assert socket.eventLoop().inEventLoop() : "a client's loan changes state off its event loop";
        if (state != State.CLOSED) {
            state = next;
        }
    }

    // ---------------------------------------------------------------- what the relay does around the loan

    /** The server is linked; what the client sent meanwhile goes to it next. */
    abstract void linked();

    /** The server went back or was closed: what the client sent meanwhile gets the next one. */
    abstract void resumeUnlinked();

    /** The link's relay state ends with the server's. */
    abstract void unlinked();

    /** The server is pinned and stays linked: what the client sent meanwhile goes to it. */
    abstract void forwardPending();

    /** The pool handed over no server. */
    abstract void acquireFailed();

    /** The server owes nothing and has nothing more to read of a message: it may serve another client. */
    abstract boolean serverIdle();

    // ---------------------------------------------------------------- waiting for a server

    /** Keeps a message until a server is linked. */
    final void hold(FrontendMessage message) {
        held.add(message);
    }

    /** The client cancelled the request that waited for a server: answered without it, and the rest goes on. */
    private void cancelledWhileWaiting() {
        if (state != State.CLOSED) {
            held.cancelled();
            resumeUnlinked();
        }
    }

    // ---------------------------------------------------------------- acquire, replay, link

    /**
     * Acquires a server for a message of the client's read. Under read routing, while more of the same read is still
     * to be framed, the route is taken at the read's end instead, from all of it: pgjdbc sends a transaction's
     * {@code BEGIN} as a Query and its first statement ({@code SET TRANSACTION READ ONLY}) as a Parse behind it in
     * one write, and the Query is handed over first, alone.
     */
    final void acquireInRead() {
        if (reads != null && client.decoder.readGoesOn()) {
            to(State.WAITING);
            lender = null;
            routeAtReadEnd = true;
            return;
        }
        acquire();
    }

    /** Whether the route waits for the end of the client's read: the read's messages are held for it meanwhile. */
    final boolean routesAtReadEnd() {
        return routeAtReadEnd;
    }

    /** The client's read was all handed over: a route that waited for it is taken now. */
    final void readEnded() {
        if (routeAtReadEnd) {
            routeAtReadEnd = false;
            if (state == State.WAITING && lender == null) {
                acquire();
            }
        }
    }

    final void acquire() {
        if (reads == null) {
            acquireFrom(pool);
            return;
        }
        Pool<ServerConnection> from = reads.route(held, now());
        if (from != null) {
            acquireFrom(from);
            return;
        }
        // a read waits for a standby to replay the client's last commit: what the client sends meanwhile is held
        to(State.WAITING);
        lender = null;
        socket.eventLoop().schedule(this::routeAgain, ClientReads.REPLAY_POLL_NANOS, TimeUnit.NANOSECONDS);
    }

    private void routeAgain() {
        if (state != State.WAITING || lender != null) {
            return;
        }
        long now = now();
        if (reads.replayWaitOutlasts(pool.config().queryWaitTimeoutNanos(), now)) {
            // query_wait_timeout bounds every wait for a server, this one too, when replica_wait_timeout is longer
            reads.replayWaitEnds(now);
            to(State.IDLE);
            acquireFailed();
            client.failAcquire(new ReplayWaitTimeoutException(pool.config().queryWaitTimeoutNanos()));
            return;
        }
        acquire();
    }

    private void acquireFrom(Pool<ServerConnection> from) {
        lender = from;
        EventLoop loop = socket.eventLoop();
        // A server on this client's own loop relays without handing every message to another thread.
        long now = now();
        LentServer<ServerConnection> ready = from.tryAcquireFor(this, loop, now);
        if (ready != null) {
            onAcquired(ready);
            return;
        }
        to(State.WAITING);
        waitNoticeSent = false;
        waitStartNanos = now;
        if (waiter == null) {
            whenServed = this::waitOver;
            waiter = Pool.waiter(this, whenServed);
        }
        from.acquireWith(waiter, loop);
        if (from != pool && state == State.WAITING) {
            // a standby that stopped lends nothing until query_wait_timeout: the primary serves the read sooner
            long started = waitStartNanos;
            loop.schedule(() -> leaveStandbyWait(from, started), reads.standbyWaitNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** Ends the wait on a standby's pool that started at {@code started}, if it is still that wait. */
    private void leaveStandbyWait(Pool<ServerConnection> from, long started) {
        if (state == State.WAITING && lender == from && waitStartNanos == started) {
            rerouting = true;
            if (!from.cancelWait(whenServed)) {
                rerouting = false;
            }
        }
    }

    /**
     * Takes the client out of the pool's queue, or out of its wait for a standby's replay (in no pool's queue), true
     * if it was still there; the wait ends as cancelled.
     */
    final boolean cancelWait() {
        if (state == State.WAITING && lender == null && reads != null) {
            reads.replayWaitEnds(now());
            to(State.IDLE);
            cancelledWhileWaiting();
            return true;
        }
        return state == State.WAITING && lender != null && lender.cancelWait(whenServed);
    }

    /** Called by the pool on the thread that ended the wait. */
    private void waitOver(LentServer<ServerConnection> acquired, Throwable failure) {
        EventLoop loop = socket.eventLoop();
        // Handed over on this client's own loop (a server of its loop released): link at once. Queued
        // behind the rest of the loop's ready sockets instead, the server would sit idle meanwhile.
        if (loop.inEventLoop()) {
            onWaitOver(acquired, failure);
        } else {
            loop.execute(() -> onWaitOver(acquired, failure));
        }
    }

    private void onWaitOver(LentServer<ServerConnection> acquired, Throwable failure) {
        waitStartNanos = 0;
        if (failure != null && lender != pool && state == State.WAITING && (rerouting
                || !(failure instanceof CancellationException))) {
            rerouting = false;
            acquireFrom(reads.standbyFailed());
            return;
        }
        if (failure instanceof CancellationException) {
            to(State.IDLE);
            cancelledWhileWaiting();
        } else if (failure != null) {
            to(State.IDLE);
            acquireFailed();
            client.failAcquire(failure);
        } else {
            onAcquired(acquired);
        }
    }

    private void onAcquired(LentServer<ServerConnection> acquired) {
        if (state == State.CLOSED) {
            acquired.release(this);
            return;
        }
        lent = acquired;
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
        ask(State.REPLAYING, replay, false);
    }

    private void onReplayed(OwnQuery answer) {
        if (answer.failure != null) {
            // The server died under the pooler's own query (a restart, a terminated backend): nothing the client
            // sent has reached it, so the client waits for another server instead of losing its connection.
            drop(answer.failure);
            if (state != State.CLOSED) {
                acquire();
            }
            return;
        }
        if (state == State.CLOSED) {
            release();
            return;
        }
        if (answer.error != null) {
            release();
            client.fatal(ErrorResponse.fatal(answer.error.sqlState(), answer.error.message()));
            return;
        }
        parameters.replayed(server.parameters());
        link();
    }

    private void link() {
        to(State.LINKED);
        linked();
        server.link(this);
        forwardPending();
    }

    // ---------------------------------------------------------------- the pooler's own queries

    /** Runs a query of the pooler's own on the server as the loan's {@code step}; what the client sends waits. */
    final void ask(State step, EncodableMessage request, boolean readyHeld) {
        to(step);
        OwnQuery.send(this, server, step, request, readyHeld);
    }

    /** A query of the pooler's own was answered: the loan takes the step after it, on the client's loop. */
    final void answered(OwnQuery answer) {
        if (answer.step == State.READING_POSITION) {
            TransactionEnd.relayPosition(this, answer);
        }
        if (lent == null) {
            // a timeout closed the server meanwhile
            return;
        }
        switch (answer.step) {
            case REPLAYING -> onReplayed(answer);
            case READING_POSITION -> TransactionEnd.onPosition(this, answer);
            case READING_SETTINGS -> TransactionEnd.onSessionSettings(this, answer);
            case CHECKING_SESSION_STATE -> TransactionEnd.onSessionState(this, answer);
        }
    }

    // ---------------------------------------------------------------- the transaction's end

    /**
     * The transaction (or statement) ended: the server goes back, once its settings are known, unless it holds
     * session state the client keeps it for ({@link TransactionEnd}).
     */
    final void endTransaction(boolean readyHeld) {
        TransactionEnd.start(this, readyHeld);
    }

    // ---------------------------------------------------------------- closing, release, drop

    /**
     * The client is closing: the loan moves to {@link State#CLOSED}. A server that runs a query of the pooler's own
     * is given back by that query's completion; any other goes back now if it is clean, and is dropped if a query or
     * transaction is open on it.
     */
    final void closeLoan() {
        State was = state;
        to(State.CLOSED);
        if (lent == null || was.ownQuery() || was == State.CLOSED) {
            return;
        }
        if (serverIdle() && server.transactionStatus() == TransactionStatus.IDLE) {
            endClosed();
        } else {
            drop(new PoolException("client disconnected with a query or transaction open"));
        }
    }

    /** The client is gone and its server idle: back to the pool, once cleared of the state it was pinned for. */
    final void endClosed() {
        if (!pinning.isPinned()) {
            if (filter.takeSettingsChanged()) {
                TransactionEnd.readSessionSettings(this);
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
        LentServer<ServerConnection> held = unlink();
        pinned.query("DISCARD ALL").whenComplete((error, failure) -> {
            if (failure == null && error == null) {
                pinned.resetSession();
                giveBack(pinned, held);
            } else {
                held.discard(this, failure != null ? failure
                        : new PoolException("DISCARD ALL failed: " + error.message()));
            }
        });
    }

    /** Gives the server back to the pool, once a cancel forwarded to it cannot reach the next client's query. */
    final void release() {
        ServerConnection released = server;
        LentServer<ServerConnection> held = unlink();
        if (held != null) {
            giveBack(released, held);
        }
    }

    private void giveBack(ServerConnection released, LentServer<ServerConnection> held) {
        CompletableFuture<Void> cancel = released.cancelInFlight();
        if (cancel == null) {
            held.release(this);
        } else {
            // the backend may not have seen the cancel yet: it must not reach the next client's query
            cancel.whenComplete((v, e) -> held.release(this));
        }
    }

    /** Closes the server instead of giving it back: its state is unknown or broken. */
    final void drop(Throwable cause) {
        LentServer<ServerConnection> held = unlink();
        if (held != null) {
            held.discard(this, cause);
        }
    }

    /** Ends the link and what was pending on the server; returns the loan to end, or null when none was held. */
    private LentServer<ServerConnection> unlink() {
        LentServer<ServerConnection> held = lent;
        if (held == null) {
            return null;
        }
        to(State.IDLE);
        server.unlink(this);
        lent = null;
        server = null;
        unlinked();
        if (namedStatements != null) {
            namedStatements.serverGone();
        }
        return held;
    }
}
