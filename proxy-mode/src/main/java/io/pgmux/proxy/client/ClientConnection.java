package io.pgmux.proxy.client;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.Failures;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolClosedException;
import io.pgmux.core.pool.PoolTimeoutException;
import io.pgmux.core.pool.ServerLoginException;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.MessageReader;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.replicas.ReplicaRoutes;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerErrorException;
import io.pgmux.proxy.transport.ChannelSocket;
import io.pgmux.proxy.transport.ChannelTakeOver;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.LoopClock;
import io.pgmux.proxy.transport.SocketEvents;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client (PgBouncer's client socket, client.c) and its state: startup, login and the welcome are its
 * {@link ClientLogin}'s, then the query phase's messages go to its {@link Link} to the servers it borrows, until it
 * closes or is handed to the admin console. Its codec serves it ({@link FrontendMessageDecoder#serve}): it is in no
 * pipeline, which saves every idle client a handler context. Everything runs on the client's event loop.
 */
public final class ClientConnection extends MessageReader implements SocketEvents {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);

    enum State {
        STARTUP,
        LOGIN,
        /** Logged in; the pool's first client waits for a server to learn the parameters to report. */
        WELCOME,
        /** The query phase. */
        READY,
        /** The pooler closes the client, or it is gone. */
        CLOSED,
        /** The channel, alive, went to the admin console, whose session now handles it. */
        HANDED_OFF
    }

    final ProxyContext context;
    final FrontendMessageDecoder decoder;
    /** Taken when the connection is accepted, as PgBouncer numbers a client socket when it allocates it. */
    final long id;

    /** The client's socket, from its connect on. */
    ConnectionSocket socket;
    private State state = State.STARTUP;
    /** From the connect to the welcome or the hand-off to the console; null after. */
    private ClientLogin login;
    String user;
    Pool<ServerConnection> pool;
    ClientAdmission admission;
    /**
     * The user {@link #admission}'s max_user_client_connections slot is counted under is its pool's (auth_type=any
     * logs every client in as the forced user), not {@link #user}.
     */
    boolean admittedAsPoolUser;
    ClientParameters parameters;
    /**
     * The cancel key the client was given at its welcome ({@link BackendKeyData#asLong}), set once before it is
     * added to {@link CancelKeys}; -1 before.
     */
    long cancelKey = -1;
    /**
     * The relay to the servers the client borrows, made at its first message after login ({@link #relay}): a client
     * that logs in and sends nothing, as an application's pool keeps many, holds none of its parts. Null until then,
     * and for a replication client.
     */
    Link link;
    /** Instead of {@link #link}, for a replication client: its own server connection. */
    ReplicationLink replication;
    /** The timeout running for this client, or null. */
    private ClientTimeouts.Timeout timeout;
    /** Since when {@link #timeout} runs. */
    private long timeoutSinceNanos;
    /** The user's timeouts, set at login. */
    ClientTimeouts.Limits limits = ClientTimeouts.Limits.NONE;
    /**
     * The {@link ClientTimeouts#version()} {@link #limits} were taken at: RELOAD and SET change them for all. They
     * are a pool client's user's and its pool's user's; -1 for a client that has none (the console, a replication
     * client, one still logging in).
     */
    int limitsVersion = -1;
    /**
     * When the client connected, on System.nanoTime's clock as its loop read it ({@link LoopClock}); its date is
     * {@link LoopClock#millisAt} of it.
     */
    long connectedAtNanos;
    /**
     * When the client last sent a message, on System.nanoTime's clock as its loop read it, whose date SHOW CLIENTS'
     * request_time works out only when shown. Plain, as that view may show a figure a moment old.
     */
    private long requestedAtNanos;
    /** The startup named the admin console's database: no pool, no max_client_conn slot, as in PgBouncer. */
    boolean console;
    /**
     * The database a client without a pool named, which its closing line shows: the console's as the client wrote
     * it ({@code pgbouncer} or {@code pgmux}), or for a CancelRequest's connection the database of the client it
     * cancels.
     */
    String databaseWithoutPool;
    /** Why the pooler closes the client, for log_disconnections; null while it has not decided to. */
    String closeReason;
    private boolean closingLogged;

    public ClientConnection(ProxyContext context, FrontendMessageDecoder decoder) {
        this.context = context;
        this.decoder = decoder;
        this.id = context.nextSocketId();
    }

    /** The one transition of the client's state; the login's part ends with the welcome or the hand-off. */
    void to(State next) {
        assert socket.eventLoop().inEventLoop() : "a client changes state off its event loop";
        state = next;
        if (next == State.READY || next == State.HANDED_OFF) {
            login = null;
        }
        if (next == State.READY) {
            // after what runs now (the welcome's last steps), so that the channel's pipeline is as it will stay
            socket.eventLoop().execute(this::leaveChannel);
        }
        if (next == State.HANDED_OFF) {
            // the console's session, behind the codec, gets everything from now on, channelInactive included
            decoder.serve(null);
            socket.whenClosed(this::logClosing);
        }
    }

    /**
     * Logged in, with nothing sent since: a plain epoll socket leaves its Netty channel, and is served without one from
     * now on ({@link ChannelTakeOver#takeOver}); a TLS socket, one on another transport, the console's or a
     * replication client's keeps its channel.
     */
    private void leaveChannel() {
        if (state == State.READY && link == null && replication == null && !console
                && socket instanceof ChannelSocket own) {
            ChannelTakeOver.takeOver(own, decoder, this, context.clientSockets(),
                    () -> state == State.READY && link == null, served -> socket = served, () -> { });
        }
    }

    /** Closed, or handed to the console: nothing more is this handler's to do. */
    boolean isOver() {
        return state == State.CLOSED || state == State.HANDED_OFF;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        socket = new ChannelSocket(channel, decoder);
        connectedAtNanos = LoopClock.nanoTime(channel.eventLoop());
        requestedAtNanos = connectedAtNanos;
        login = new ClientLogin(this, context, channel);
        startTimeout(ClientTimeouts.Timeout.LOGIN, connectedAtNanos);
        context.clientTimeouts().loginStarted(this);
    }

    /** A message from the codec: the login's until the welcome, then of the query phase. */
    @Override
    public void messageRead(Object msg) {
        if (!(msg instanceof FrontendMessage message) || state == State.LOGIN) {
            if (isOver() || login == null) {
                ReferenceCountUtil.release(msg);
            } else {
                requestedAtNanos = LoopClock.nanoTime(socket.eventLoop());
                login.onMessage(msg);
            }
            return;
        }
        if (isOver()) {
            message.release();
            return;
        }
        // (the decoder makes no run before the relay is made: link is not null here)
        if (message.isRun() && (state != State.READY || !link.relaysRuns())) {
            // read as a run while the relay took runs, delivered when it no longer does: one message at a time
            each(message.split(), this::messageRead);
            return;
        }
        requestedAtNanos = LoopClock.nanoTime(socket.eventLoop());
        onQueryMessage(message);
    }

    /** Hands a run's pieces to {@code action} one by one; those after one that throws are released. */
    static void each(List<FrontendMessage> messages, Consumer<FrontendMessage> action) {
        for (int i = 0; i < messages.size(); i++) {
            try {
                action.accept(messages.get(i));
            } catch (RuntimeException e) {
                for (int j = i + 1; j < messages.size(); j++) {
                    messages.get(j).release();
                }
                throw e;
            }
        }
    }

    // ---------------------------------------------------------------- query phase

    /** A message of the query phase. */
    private void onQueryMessage(FrontendMessage message) {
        if (timeout != null && state == State.READY) {
            timeout = null;
        }
        if (message.type() == FrontendMessage.QUERY && context.disablePqexec() && !isOver()) {
            message.release();
            log.error("client {} used \"Query\" packet type", socket.remoteAddress());
            fatal(PoolerError.pqexecDisallowed());
            return;
        }
        if (replication != null) {
            replication.onClientMessage(message);
            return;
        }
        switch (state) {
            case READY -> relay().onClientMessage(message);
            case WELCOME -> relay().hold(message);
            default -> message.release();
        }
    }

    @Override
    public void readEnded() {
        if (replication != null) {
            replication.flushToServer();
        } else if (state == State.READY && link != null) {
            link.readEnded();
            link.flushToServer();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        writabilityChanged();
    }

    @Override
    public void writabilityChanged() {
        if (replication != null) {
            replication.onClientWritabilityChanged();
        } else if (state == State.READY && link != null) {
            link.onClientWritabilityChanged();
        }
    }

    /**
     * The client's relay, made now if this is its first message after login. It reads the settings in effect now
     * (pool mode, pin_session_state, max_prepared_statements above 0, read routing), as PgBouncer reads them when a
     * client uses them.
     */
    private Link relay() {
        Link current = link;
        if (current == null) {
            String database = pool.key().database();
            ReplicaRoutes routes = context.replicaRoutes(pool, socket.eventLoop());
            current = new Link(this, socket, pool, parameters, context.preparedStatements(),
                    new Pinning(context.pinSessionState(database), pool.config().poolMode() != PoolMode.SESSION,
                            context.pinCounts(pool.key()), pool, socket.remoteAddress()),
                    context.listenerHub(pool, socket.eventLoop()),
                    routes == null ? null : new ClientReads(routes, parameters, socket.remoteAddress()));
            link = current;
            // runs and the one holder reused for every read only from now on: what came before had holders of its own
            decoder.relayRuns(current::relaysRuns);
            decoder.reuseHolder();
        }
        return current;
    }

    /** The server owes nothing more: the client's idle timeout, in or outside a transaction, runs from now. */
    void quiet(ReadyForQuery.TransactionStatus status, long now) {
        startTimeout(status == ReadyForQuery.TransactionStatus.IDLE ? ClientTimeouts.Timeout.IDLE
                : ClientTimeouts.Timeout.IDLE_IN_TRANSACTION, now);
    }

    // ---------------------------------------------------------------- timeouts

    void startTimeout(ClientTimeouts.Timeout started, long now) {
        timeoutSinceNanos = now;
        timeout = started;
    }

    /** Logged in, or gone: client_login_timeout no longer applies. */
    void endLogin() {
        timeout = null;
        context.clientTimeouts().loginEnded(this);
    }

    /**
     * Its loop's pass of the timeout rules ({@link ClientTimeouts}): tells a client that waits for a server that it
     * does, and closes one whose timeout passed.
     */
    void checkTimeout(long now, ClientTimeouts timeouts) {
        assert socket.eventLoop().inEventLoop() : "a client's timeouts are checked off its event loop";
        if (isOver()) {
            return;
        }
        int version = timeouts.version();
        if (limitsVersion >= 0 && version != limitsVersion) {
            limits = timeouts.forUser(user, pool.key().user());
            limitsVersion = version;
        }
        Link current = link;
        if (current != null) {
            if (timeouts.waitNoticeDue(current, now)) {
                current.noticeWaiting();
            }
            ErrorResponse expired = timeouts.serverSideExpiry(current, limits, now);
            if (expired != null) {
                current.abort(expired.message(), context.cancelSender());
                fatal(expired);
                return;
            }
        }
        ErrorResponse expired = timeouts.quietExpiry(timeout, timeoutSinceNanos, limits, now);
        if (expired != null) {
            fatal(expired);
        }
    }

    // ---------------------------------------------------------------- ending

    /** The pool handed over no server: the client gets PgBouncer's error for the reason and is closed. */
    void failAcquire(Throwable failure) {
        Throwable cause = Failures.cause(failure);
        if (isOver()) {
            return;
        }
        ErrorResponse error;
        if (cause instanceof ReplayWaitTimeoutException) {
            error = PoolerError.queryWaitTimeout().withDetail("The read waited for a standby to replay the"
                    + " client's last commit; query_wait_timeout is shorter than replica_wait_timeout.");
        } else if (cause instanceof PoolTimeoutException) {
            String noPrimary = context.noPrimary(pool);
            error = noPrimary == null ? PoolerError.queryWaitTimeout()
                    : PoolerError.queryWaitTimeout().withDetail(noPrimary);
        } else if (cause instanceof PoolClosedException) {
            // RELOAD closes a removed database's pool before its clients' own disconnects have run
            error = pool != null && !context.serves(pool.key().database()) ? PoolerError.databaseRemoved()
                    : PoolerError.serverShuttingDown();
        } else if (cause instanceof ServerLoginException cached && cached.isCached()) {
            error = PoolerError.serverLoginRetry(loginFailure(cached.getCause()).message());
        } else {
            error = loginFailure(cause);
        }
        log.info("client {} user {} got no server connection: {}", socket.remoteAddress(), user, cause.toString());
        fatal(error);
    }

    /**
     * What a client is told of a failed server login: the server's error (or the pooler's own, e.g. TLS refused),
     * else PgBouncer's text for a server it could not reach; never an exception's own message.
     */
    private static ErrorResponse loginFailure(Throwable cause) {
        ServerErrorException serverError = ServerErrorException.find(cause);
        if (serverError == null) {
            return PoolerError.cannotConnectToServer();
        }
        ErrorResponse e = serverError.error();
        return e.isFatal() ? e : ErrorResponse.fatal(e.sqlState(), e.message());
    }

    /** From any thread: sends a FATAL error and closes (the admin console's KILL_CLIENT, a database RELOAD removed). */
    public void disconnect(ErrorResponse error) {
        socket.eventLoop().execute(() -> {
            if (!isOver()) {
                fatal(error);
            }
        });
    }

    /** The client's Terminate: PgBouncer's "client close request". */
    void terminate() {
        closeRequested();
        socket.close();
    }

    /** The client sent Terminate, which waits behind what it sent before: its close is logged as requested. */
    void closeRequested() {
        if (closeReason == null) {
            closeReason = "client close request";
        }
    }

    /** Sends a FATAL error and closes, as PgBouncer's send_pooler_error does. */
    void fatal(ErrorResponse error) {
        if (closeReason == null) {
            closeReason = error.message();
            context.connectionLog().poolerError(this, socket, poolDatabase(), user, error.message());
        }
        logClosing();
        to(State.CLOSED);
        endLinks();
        socket.closeAfter(error);
    }

    /** Nothing more is relayed: the client's link ends its loan, or its replication link its own server. */
    private void endLinks() {
        if (link != null) {
            link.close();
        }
        if (replication != null) {
            replication.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failed(cause);
    }

    @Override
    public void failed(Throwable cause) {
        if (cause instanceof ProtocolViolationException violation && !isOver()) {
            log.info("client {} protocol violation: {}", socket.remoteAddress(), violation.getMessage());
            fatal(violation.toErrorResponse());
        } else {
            log.debug("client {} failed", socket == null ? null : socket.remoteAddress(), cause);
            socket.close();
        }
    }

    /** What SHOW CLIENTS shows of this client. */
    public ClientInfo info() {
        Link current = link;
        ReplicationLink own = replication;
        ServerConnection server = current != null ? current.server() : own != null ? own.server() : null;
        String shown = state == State.WELCOME || current != null && current.isWaiting() ? "waiting"
                : server != null ? "active" : "idle";
        ClientParameters settings = parameters;
        String reported = settings == null ? null : settings.applicationName();
        // both on the monotonic clock: never before connect_time, whatever the wall clock did
        long requestedAtMillis = LoopClock.millisAt(requestedAtNanos);
        return new ClientInfo(socket, ConnectionLog.ptr(this), user, pool == null ? null : pool.key().database(), shown,
                LoopClock.millisAt(connectedAtNanos),
                requestedAtMillis, reported != null ? reported : "", server, id,
                own != null ? own.mode().shown() : StartupReplication.NONE.shown());
    }


    String poolDatabase() {
        return pool == null ? databaseWithoutPool : pool.key().database();
    }

    /** A CancelRequest's connection ends: its line names the database of the client it was for, if any. */
    void endCancelRequest(String database, String reason) {
        databaseWithoutPool = database;
        closeReason = reason;
        socket.close();
    }

    /**
     * Once per client. Like PgBouncer, the pooler writes the line before the error it closes a client with goes
     * out, so that whoever reads the error finds the line in the log.
     */
    void logClosing() {
        if (closingLogged) {
            return;
        }
        closingLogged = true;
        String reason = closeReason;
        if (reason == null) {
            // a console session ends on the client's Terminate; another client that sent none just went away
            reason = console ? "client close request" : "client unexpected eof";
        }
        context.connectionLog().clientClosing(this, socket, poolDatabase(), user, reason,
                LoopClock.millisAt(connectedAtNanos));
    }

    /**
     * Logs the close here rather than from a listener on the close future: an idle client's future then holds one
     * listener (its channel group's), and no list of listeners.
     */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed();
    }

    @Override
    public void closed() {
        logClosing();
        to(State.CLOSED);
        endLogin();
        if (cancelKey != -1) {
            context.clientsByKey().remove(this);
        }
        endLinks();
        if (admission != null) {
            context.registry().clientLeaves(pool, admission);
            context.clientLimits().leave(pool.key().database(), admittedAsPoolUser ? pool.key().user() : user);
        }
    }
}
