package io.pgmux.proxy.client;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.PeerCredentials;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.Failures;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolClosedException;
import io.pgmux.core.pool.PoolTimeoutException;
import io.pgmux.core.pool.ServerLoginException;
import io.pgmux.core.pool.TooManyClientsException;
import io.pgmux.proxy.auth.AuthQuery;
import io.pgmux.proxy.auth.AuthStep;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.ClientAuthenticator;
import io.pgmux.proxy.auth.HbaFile;
import io.pgmux.proxy.auth.PasswdFile;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.CancelRequest;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.NegotiateProtocolVersion;
import io.pgmux.proxy.protocol.NoticeResponse;
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
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.transport.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client (PgBouncer's client socket, client.c), the last handler of its channel: startup, login and the
 * welcome, then the query phase, whose messages go to its {@link Link} to the servers it borrows. Everything runs
 * on the client's event loop.
 */
public final class ClientConnection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The user the OS user running the pooler logs in to the console as, over the Unix socket. */
    private static final String ADMIN_OWN_USER = "pgbouncer";

    private enum State {
        STARTUP,
        LOGIN,
        /** Logged in; the pool's first client waits for a server to learn the parameters to report. */
        WELCOME,
        /** The query phase. */
        READY,
        CLOSED
    }

    private final ProxyContext context;
    private final FrontendMessageDecoder decoder;
    /** Taken when the connection is accepted, as PgBouncer numbers a client socket when it allocates it. */
    private final long id;

    private Channel channel;
    private State state = State.STARTUP;
    private String user;
    private Pool<ServerConnection> pool;
    private ClientAdmission admission;
    /** The user {@link #admission}'s max_user_client_connections slot is counted under. */
    private String admittedUser;
    private ClientAuthenticator authenticator;
    private ClientParameters parameters;
    private BackendKeyData key;
    /** From login on, for clients of a pool. */
    private Link link;
    /** The timeout running for this client, or null; read with {@link #timeoutSinceNanos} by the janitor. */
    private volatile ClientTimeouts.Timeout timeout;
    /** Since when {@link #timeout} runs; written before it. */
    private volatile long timeoutSinceNanos;
    /** The user's timeouts, set at login before the janitor can see the client. */
    private volatile ClientTimeouts.Limits limits = ClientTimeouts.Limits.NONE;
    /** The {@link ClientTimeouts#version()} {@link #limits} were taken at: RELOAD and SET change them for all. */
    private volatile int limitsVersion;
    /** The users {@link #limits} are of: the client's own, and the one its servers log in as. */
    private String limitsUser;
    private String limitsLoginUser;
    private long connectedAtMillis;
    /**
     * When the client last sent a message, for SHOW CLIENTS' request_time; plain, as that view may show a figure
     * a moment old.
     */
    private long requestedAtMillis;
    /** When the client connected, on System.nanoTime's clock. */
    private long connectedAtNanos;
    private String applicationName = "";
    /** The startup named the admin console's database: no pool, no max_client_conn slot, as in PgBouncer. */
    private boolean console;
    /** The console's database name as the client wrote it ({@code pgbouncer} or {@code pgmux}). */
    private String consoleDatabase;
    /** The console user is not in the auth file: auth_query found it. */
    private boolean consoleUserQueried;
    private Map<String, String> startupParameters;
    /** Why the client is refused once authenticated (unknown database, max_client_conn, …), or null. */
    private ErrorResponse refusal;
    /** Why the pooler closes the client, for log_disconnections; null while it has not decided to. */
    private String closeReason;

    public ClientConnection(ProxyContext context, FrontendMessageDecoder decoder) {
        this.context = context;
        this.decoder = decoder;
        this.id = context.nextSocketId();
    }

    // ---------------------------------------------------------------- login

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        connectedAtMillis = System.currentTimeMillis();
        requestedAtMillis = connectedAtMillis;
        // on the channel, not in channelInactive: an admin console session replaces this handler
        channel.closeFuture().addListener(closed -> logClosing());
        connectedAtNanos = System.nanoTime();
        startTimeout(ClientTimeouts.Timeout.LOGIN, connectedAtNanos);
        context.clientTimeouts().loginStarted(this);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == State.CLOSED) {
            ReferenceCountUtil.release(msg);
            return;
        }
        requestedAtMillis = System.currentTimeMillis();
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
        if (channel.pipeline().get(SslHandler.class) != null) {
            // as PgBouncer: closed without an answer, which would go out inside the TLS the client asks for again
            log.info("client {} sent an SSLRequest inside TLS", channel.remoteAddress());
            closeReason = "SSL req inside SSL";
            state = State.CLOSED;
            channel.close();
            return;
        }
        ClientTls tls = context.clientTls();
        if (!tls.offeredTo(channel)) {
            channel.writeAndFlush(SslResponse.REJECTED);
            return;
        }
        // The 'S' goes out in clear before the handler that encrypts everything after it is in place.
        channel.writeAndFlush(SslResponse.ACCEPTED);
        ctx.pipeline().addFirst(tls.newHandler(channel.alloc()));
    }

    private void onCancelRequest(CancelRequest cancel) {
        ClientConnection target = context.clientsByKey().get(cancel.key());
        if (target != null && cancel.matches(target.key)) {
            target.channel.eventLoop().execute(() -> target.link.cancelQuery(context.cancelSender()));
        }
        channel.close();
    }

    private void onStartup(StartupMessage startup) {
        if (context.clientTls().requiredOf(channel) && channel.pipeline().get(SslHandler.class) == null) {
            fatal(PoolerError.sslRequired());
            return;
        }
        ErrorResponse replication = StartupReplication.refusal(startup.parameters().get(StartupReplication.PARAMETER));
        if (replication != null) {
            fatal(replication);
            return;
        }
        try {
            // before the user is looked at, as PgBouncer reads the startup packet: a malformed options value or
            // a setting name no server would take is refused before any password is asked for
            parameters = ClientParameters.fromStartup(context.startupParameters(startup.parameters(),
                    channel.remoteAddress()), context.ignoredStartupParameters());
        } catch (IllegalArgumentException e) {
            fatal(PoolerError.fatal(e.getMessage()));
            return;
        }
        user = startup.user();
        if (user == null || user.isEmpty()) {
            fatal(PoolerError.noUsernameSupplied());
            return;
        }
        NegotiateProtocolVersion negotiation = startup.negotiation();
        if (negotiation != null) {
            // as PostgreSQL and PgBouncer: the client learns it speaks 3.0, without the protocol options it asked for
            channel.write(negotiation, channel.voidPromise());
        }
        if (user.getBytes(StandardCharsets.UTF_8).length >= PoolerError.MAX_USERNAME_BYTES) {
            fatal(PoolerError.usernameTooLong());
            return;
        }
        String database = startup.database();
        applicationName = startup.parameters().getOrDefault("application_name", "");
        if (context.adminRoute().isConsole(database)) {
            console = true;
            consoleDatabase = database;
            startupParameters = startup.parameters();
            if (isOwnUserOnUnixSocket()) {
                context.connectionLog().consoleFromUnixSocket(channel, user);
                context.connectionLog().loginAttempt(channel, database, database, user);
                endLogin();
                channel.write(Authentication.Ok.INSTANCE, channel.voidPromise());
                state = State.CLOSED;
                decoder.loginComplete();
                context.adminRoute().openForOwner(channel, this, id, user, startupParameters);
                return;
            }
            context.connectionLog().loginAttempt(channel, database, database, user);
            Secret secret = context.users().find(user).orElse(null);
            AuthQuery authQuery = secret == null && context.authType() != AuthType.ANY ? context.consoleAuthQuery()
                    : null;
            if (authQuery != null) {
                lookUp(startup, authQuery, found -> {
                    consoleUserQueried = found != null;
                    startLogin(found, database);
                });
                return;
            }
            startLogin(secret, database);
            return;
        }
        Secret secret = context.users().find(user).orElse(null);
        AuthQuery authQuery = secret == null && context.authType() != AuthType.ANY ? context.authQuery(database)
                : null;
        if (authQuery != null && context.database(database) != null) {
            lookUp(startup, authQuery, found -> login(startup, found));
            return;
        }
        login(startup, secret);
    }

    /**
     * auth_query: the client's reads wait while its secret is looked up on a server; no thread waits. The login
     * goes on with what was found (null for an unknown user) unless the lookup itself failed.
     */
    private void lookUp(StartupMessage startup, AuthQuery authQuery, Consumer<Secret> then) {
        channel.config().setAutoRead(false);
        new UserLookup(context).find(authQuery, startup.database(), user).whenComplete((found, failure) ->
                channel.eventLoop().execute(() -> {
                    if (state == State.CLOSED) {
                        return;
                    }
                    channel.config().setAutoRead(true);
                    if (failure != null || found.acquireFailure() != null) {
                        failAcquire(failure != null ? failure : found.acquireFailure());
                    } else if (found.refusal() != null) {
                        fatal(found.refusal());
                    } else {
                        then.accept(found.secret());
                    }
                }));
    }

    private void login(StartupMessage startup, Secret secret) {
        // Whatever the user and database, the client is refused only once authenticated: what it learns before
        // is the same for every name, so it cannot probe which users and databases exist.
        refusal = admit(startup.database(), startup, secret);
        context.connectionLog().loginAttempt(channel, pool == null ? null : startup.database(), startup.database(),
                user);
        startLogin(secret, startup.database());
    }

    /** Asks for what the client's method needs, or refuses it at once (trust, cert, reject, no hba line). */
    private void startLogin(Secret secret, String database) {
        state = State.LOGIN;
        HbaFile.Rule rule = null;
        if (context.authType() == AuthType.HBA) {
            rule = context.hba().evaluate(
                    channel.remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null,
                    channel.pipeline().get(SslHandler.class) != null, database, user);
            if (rule == HbaFile.Rule.NO_MATCH) {
                log.info("client {} login failed for user {}: no hba line matches", channel.remoteAddress(), user);
                fatal(PoolerError.noAuthenticationMethod());
                return;
            }
        }
        if ((rule != null ? rule.method() : context.authType()) == AuthType.PEER) {
            lookUpPeer(secret, rule);
            return;
        }
        authenticate(authenticator(secret, rule));
    }

    private void authenticate(ClientAuthenticator chosen) {
        authenticator = chosen;
        onAuthStep(authenticator.start());
    }

    /**
     * peer: the OS user of the Unix socket's peer, its uid's name in /etc/passwd, read off the event loop while the
     * client's reads wait. With the hba line's map= it is the user the map lets it be.
     */
    private void lookUpPeer(Secret secret, HbaFile.Rule rule) {
        int uid = peerUid();
        if (uid < 0) {
            authenticate(new ClientAuthenticator(AuthType.PEER, user, secret, null));
            return;
        }
        channel.config().setAutoRead(false);
        CompletableFuture.supplyAsync(() -> osUser(uid), context.blockingWork()).whenComplete((name, failure) ->
                channel.eventLoop().execute(() -> {
                    if (state == State.CLOSED) {
                        return;
                    }
                    channel.config().setAutoRead(true);
                    String systemUser = name;
                    if (name != null && rule.map() != null) {
                        boolean mapped = context.identMap().allows(rule.map(), name, user);
                        if (!mapped) {
                            log.info("client {}: ident map {} cannot be matched for {} as user {}",
                                    channel.remoteAddress(), rule.map(), name, user);
                        }
                        systemUser = mapped ? user : null;
                    }
                    authenticate(new ClientAuthenticator(AuthType.PEER, user, secret, systemUser));
                }));
    }

    /** getpwuid's name of {@code uid}, from /etc/passwd; null, said in the log, when it names nobody. */
    private static String osUser(int uid) {
        try {
            String name = PasswdFile.userName(PasswdFile.SYSTEM, uid);
            if (name == null) {
                log.warn("peer authentication: uid {} has no entry in {}", uid, PasswdFile.SYSTEM);
            }
            return name;
        } catch (IOException e) {
            log.warn("peer authentication: cannot read {}: {}", PasswdFile.SYSTEM, e.toString());
            return null;
        }
    }

    /** The uid of a Unix socket client's peer, from its credentials; -1 for a TCP client. */
    private int peerUid() {
        try {
            PeerCredentials credentials = Transport.peerCredentials(channel);
            return credentials == null ? -1 : credentials.uid();
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Finds the client's pool and takes its max_client_conn, max_db_client_connections and
     * max_user_client_connections slots; returns why it is refused, or null.
     */
    private ErrorResponse admit(String database, StartupMessage startup, Secret secret) {
        if (context.isShuttingDown()) {
            // only the console is served while a shutdown waits (on the Unix socket PgBouncer keeps open)
            return PoolerError.poolerShuttingDown();
        }
        if (context.adminRoute().isDisabled(database)) {
            return PoolerError.databaseDisabled(database);
        }
        if (context.database(database) == null) {
            return PoolerError.noSuchDatabase(database);
        }
        // As in PgBouncer, an entry with user= (a forced user) has one pool for all its clients, whatever user they
        // log in as: the forced user's [users] settings and server limits apply to it.
        ServerTarget entry = context.database(database);
        String poolUser = entry.loginUser(user);
        // max_user_client_connections counts the user the client logged in as; auth_type=any logs every client
        // in as the forced user
        String clientUser = user;
        if (context.authType() == AuthType.ANY) {
            if (entry.user() == null || entry.user().isEmpty()) {
                log.error("auth_type=any requires a user in the entry of database {}", database);
                return PoolerError.bouncerConfigError();
            }
            clientUser = poolUser;
        } else if (secret == null) {
            // An unknown user fails authentication whatever it answers: no pool is made for a name nobody configured.
            return null;
        }
        try {
            Pool<ServerConnection> joined = context.registry().pool(database, poolUser);
            ClientAdmission admitted = context.registry().admitClient(joined, false);
            ErrorResponse limited = context.clientLimits().admit(database, clientUser);
            if (limited != null) {
                context.registry().clientLeaves(joined, admitted);
                return limited;
            }
            pool = joined;
            admission = admitted;
            admittedUser = clientUser;
            context.adminRoute().clientJoins(pool);
            return null;
        } catch (TooManyClientsException e) {
            return PoolerError.maxClientConn();
        } catch (PoolClosedException e) {
            return PoolerError.poolerShuttingDown();
        }
    }

    /**
     * PgBouncer's rule for the admin console: a client on the Unix socket whose peer credentials name the uid
     * running the pooler may log in as user {@code pgbouncer} without a password.
     */
    private boolean isOwnUserOnUnixSocket() {
        int owner = context.unixSocketOwnerUid();
        return owner >= 0 && ADMIN_OWN_USER.equals(user) && peerUid() == owner;
    }

    /** @param rule the client's hba line under auth_type hba, else null */
    private ClientAuthenticator authenticator(Secret secret, HbaFile.Rule rule) {
        AuthType type = rule != null ? rule.method() : context.authType();
        String map = rule != null ? rule.map() : null;
        String certificateName = null;
        if (type == AuthType.CERT) {
            certificateName = ClientTls.certificateName(channel);
            // a map= lets the certificate's name stand for the user it maps to
            if (map != null && certificateName != null && context.identMap().allows(map, certificateName, user)) {
                certificateName = user;
            }
        }
        return new ClientAuthenticator(type, user, secret, certificateName, context.scramIterations());
    }

    private void onPasswordMessage(FrontendMessage message) {
        try {
            if (message.type() == FrontendMessage.TERMINATE) {
                terminate();
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
                closeReason = failureMessage(step);
                context.connectionLog().poolerError(channel, poolDatabase(), user, closeReason);
                state = State.CLOSED;
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
            case AUTHENTICATED -> {
                // its SCRAM state (nonces, messages, keys) is of no use once logged in: idle clients must not keep it
                authenticator = null;
                endLogin();
                if (console) {
                    openConsole();
                    return;
                }
                if (refusal != null) {
                    fatal(refusal);
                    return;
                }
                if (pool == null) {
                    fatal(PoolerError.noSuchUser());
                    return;
                }
                decoder.loginComplete();
                decoder.streamLargeMessages();
                limitsUser = user;
                limitsLoginUser = context.database(pool.key().database()).loginUser(user);
                limitsVersion = context.clientTimeouts().version();
                limits = context.clientTimeouts().forUser(limitsUser, limitsLoginUser);
                link = new Link(this, channel, pool, parameters, context.preparedStatements(),
                        new Pinning(context.pinSessionState(pool.key().database()),
                                pool.config().poolMode() != PoolMode.SESSION, context.pinCounts(pool.key()), pool,
                                channel.remoteAddress()),
                        context.listenerHub(pool, channel.eventLoop()));
                pool.traffic().recordClientLogin();
                welcome();
            }
        }
    }

    private void openConsole() {
        ErrorResponse refused = !consoleUserQueried && context.users().find(user).isEmpty()
                ? PoolerError.noSuchUser() : context.adminRoute().admit(user);
        if (refused != null) {
            fatal(refused);
            return;
        }
        state = State.CLOSED;
        decoder.loginComplete();
        context.adminRoute().open(channel, this, id, user, startupParameters);
    }

    /**
     * Reports the server's parameters; the first client of a pool fetches them from a server connection, and one
     * whose startup settings a server of the pool has not taken yet has them applied on one first.
     */
    private void welcome() {
        Map<String, String> known = context.welcomeCache().get(pool.key());
        Set<String> checked = context.welcomeCache().checked(pool.key());
        Map<String, String> report = known == null ? null : parameters.welcome(known);
        if (report != null && !parameters.needsCheck(checked)) {
            sendWelcome(report);
            return;
        }
        channel.config().setAutoRead(false);
        state = State.WELCOME;
        // as in PgBouncer, client_login_timeout counts from the connect until the welcome, whatever the client sends
        startTimeout(ClientTimeouts.Timeout.WELCOME, connectedAtNanos);
        context.clientTimeouts().loginStarted(this);
        pool.acquireAsync().whenComplete((acquired, failure) -> channel.eventLoop().execute(() -> {
            if (failure != null) {
                failAcquire(failure);
                return;
            }
            Map<String, String> reported = known != null ? known
                    : context.welcomeCache().remember(pool.key(), acquired.connection().parameters());
            Map<String, String> toReport = report != null ? report : parameters.welcome(reported);
            if (state == State.CLOSED || !parameters.needsCheck(checked)) {
                // no client is linked to the server for this, so PgBouncer counts no server assignment
                acquired.releaseUncounted();
                welcomed(toReport, null, null);
                return;
            }
            StartupSettingsCheck.apply(acquired, parameters, checked, reported, toReport).whenComplete((error, fault) ->
                    channel.eventLoop().execute(() -> welcomed(toReport, error, fault)));
        }));
    }

    private void welcomed(Map<String, String> report, ErrorResponse refused, Throwable failure) {
        if (state == State.CLOSED) {
            return;
        }
        if (failure != null) {
            failAcquire(failure);
        } else if (refused != null) {
            fatal(refused.asFatal());
        } else {
            channel.config().setAutoRead(true);
            sendWelcome(report);
        }
    }

    private void sendWelcome(Map<String, String> report) {
        report.forEach((name, value) -> channel.write(new ParameterStatus(name, value), channel.voidPromise()));
        BackendKeyData ours;
        do {
            byte[] secret = new byte[BackendKeyData.KEY_LENGTH_3_0];
            RANDOM.nextBytes(secret);
            ours = new BackendKeyData(RANDOM.nextInt() & Integer.MAX_VALUE, secret);
        } while (context.clientsByKey().putIfAbsent(ours, this) != null);
        key = ours;
        channel.write(ours, channel.voidPromise());
        NoticeResponse notice = context.loginNotice();
        if (notice != null) {
            channel.write(notice, channel.voidPromise());
        }
        channel.writeAndFlush(ReadyForQuery.IDLE, channel.voidPromise());
        state = State.READY;
        context.clientTimeouts().loginEnded(this);
        startTimeout(ClientTimeouts.Timeout.IDLE, System.nanoTime());
    }

    // ---------------------------------------------------------------- query phase

    private void onQueryMessage(FrontendMessage message) {
        if (timeout != null && state == State.READY) {
            timeout = null;
        }
        if (message.type() == FrontendMessage.QUERY && context.disablePqexec() && state != State.CLOSED) {
            message.release();
            log.error("client {} used \"Query\" packet type", channel.remoteAddress());
            fatal(PoolerError.pqexecDisallowed());
            return;
        }
        switch (state) {
            case READY -> link.onClientMessage(message);
            case WELCOME -> link.hold(message);
            default -> message.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state == State.READY) {
            link.flushToServer();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (state == State.READY) {
            link.onClientWritabilityChanged();
        }
    }

    /** The server owes nothing more: the client's idle timeout, in or outside a transaction, runs from now. */
    void quiet(ReadyForQuery.TransactionStatus status, long now) {
        startTimeout(status == ReadyForQuery.TransactionStatus.IDLE ? ClientTimeouts.Timeout.IDLE
                : ClientTimeouts.Timeout.IDLE_IN_TRANSACTION, now);
    }

    // ---------------------------------------------------------------- timeouts

    private void startTimeout(ClientTimeouts.Timeout started, long now) {
        timeoutSinceNanos = now;
        timeout = started;
    }

    /** Logged in, or gone: client_login_timeout no longer applies. */
    private void endLogin() {
        timeout = null;
        context.clientTimeouts().loginEnded(this);
    }

    /**
     * Called by the janitor on its own thread: hops to this client's loop only when a timeout passed, and closes it
     * there unless it has sent something or been answered meanwhile.
     */
    void checkTimeout(long now, ClientTimeouts timeouts) {
        Link current = link;
        int version = timeouts.version();
        if (current != null && version != limitsVersion) {
            limits = timeouts.forUser(limitsUser, limitsLoginUser);
            limitsVersion = version;
        }
        ClientTimeouts.Limits limits = this.limits;
        int notify = timeouts.waitNotifySeconds();
        if (current != null && notify > 0 && current.waitNoticeDue(now, notify)) {
            channel.eventLoop().execute(() -> {
                if (state != State.CLOSED && current.waitNoticeDue(System.nanoTime(), notify)) {
                    current.noticeWaiting();
                }
            });
        }
        if (current != null && timeouts.fastClose() && current.fastCloseDue()) {
            channel.eventLoop().execute(() -> {
                if (state != State.CLOSED && current.fastCloseDue()) {
                    ErrorResponse changed = PoolerError.databaseConfigurationChanged();
                    current.abort(changed.message(), context.cancelSender());
                    fatal(changed);
                }
            });
            return;
        }
        if (current != null && current.expired(now, limits, timeouts.waitingQueryNanos()) != null) {
            channel.eventLoop().execute(() -> {
                ErrorResponse expired = current.expired(System.nanoTime(), limits, timeouts.waitingQueryNanos());
                if (expired != null && state != State.CLOSED) {
                    current.abort(expired.message(), context.cancelSender());
                    fatal(expired);
                }
            });
            return;
        }
        ClientTimeouts.Timeout running = timeout;
        long since = timeoutSinceNanos;
        if (running == null) {
            return;
        }
        long ownLimit = switch (running) {
            case LOGIN, WELCOME -> timeouts.loginNanos();
            case IDLE -> limits.idleNanos();
            case IDLE_IN_TRANSACTION -> limits.idleTransactionNanos();
        };
        long waiting = timeouts.waitingQueryNanos();
        // as PgBouncer's, the global query_timeout also ends a client waiting at login for the pool's first server
        boolean queryTimeoutFirst = running == ClientTimeouts.Timeout.WELCOME && waiting > 0
                && (ownLimit <= 0 || waiting < ownLimit);
        long limit = queryTimeoutFirst ? waiting : ownLimit;
        if (limit > 0 && now - since >= limit) {
            ErrorResponse error = queryTimeoutFirst ? PoolerError.waitingQueryTimeout() : running.error();
            channel.eventLoop().execute(() -> {
                if (timeout == running && timeoutSinceNanos == since && state != State.CLOSED) {
                    fatal(error);
                }
            });
        }
    }

    // ---------------------------------------------------------------- ending

    /** The pool handed over no server: the client gets PgBouncer's error for the reason and is closed. */
    void failAcquire(Throwable failure) {
        Throwable cause = Failures.cause(failure);
        if (state == State.CLOSED) {
            return;
        }
        ErrorResponse error;
        if (cause instanceof PoolTimeoutException) {
            error = PoolerError.queryWaitTimeout();
        } else if (cause instanceof PoolClosedException) {
            // RELOAD closes a removed database's pool before its clients' own disconnects have run
            error = pool != null && !context.serves(pool.key().database()) ? PoolerError.databaseRemoved()
                    : PoolerError.serverShuttingDown();
        } else if (cause instanceof ServerLoginException cached && cached.isCached()) {
            error = PoolerError.serverLoginRetry(loginFailure(cached.getCause()).message());
        } else {
            error = loginFailure(cause);
        }
        log.info("client {} user {} got no server connection: {}", channel.remoteAddress(), user, cause.toString());
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
        channel.eventLoop().execute(() -> {
            if (state != State.CLOSED) {
                fatal(error);
            }
        });
    }

    /** The client's Terminate: PgBouncer's "client close request". */
    void terminate() {
        if (closeReason == null) {
            closeReason = "client close request";
        }
        channel.close();
    }

    /** Sends a FATAL error and closes, as PgBouncer's send_pooler_error does. */
    void fatal(ErrorResponse error) {
        if (closeReason == null) {
            closeReason = error.message();
            context.connectionLog().poolerError(channel, poolDatabase(), user, error.message());
        }
        state = State.CLOSED;
        if (link != null) {
            link.close();
        }
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
        Link current = link;
        ServerConnection server = current == null ? null : current.server();
        String shown = state == State.WELCOME || current != null && current.isWaiting() ? "waiting"
                : server != null ? "active" : "idle";
        ClientParameters settings = parameters;
        String reported = settings == null ? null : settings.applicationName();
        return new ClientInfo(channel, user, pool == null ? null : pool.key().database(), shown, connectedAtMillis,
                requestedAtMillis, reported != null ? reported : applicationName, server, id);
    }

    /** The text of the error a failed login was answered with. */
    private static String failureMessage(AuthStep step) {
        for (EncodableMessage m : step.messages()) {
            if (m instanceof ErrorResponse error) {
                return error.message();
            }
        }
        return step.failureReason();
    }

    private String poolDatabase() {
        return console ? consoleDatabase : pool == null ? null : pool.key().database();
    }

    private void logClosing() {
        String reason = closeReason;
        if (reason == null) {
            // a console session ends on the client's Terminate; another client that sent none just went away
            reason = console ? "client close request" : "client unexpected eof";
        }
        context.connectionLog().clientClosing(channel, poolDatabase(), user, reason, connectedAtMillis);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        endLogin();
        if (key != null) {
            context.clientsByKey().remove(key, this);
        }
        if (link != null) {
            link.clientClosed();
        }
        if (admission != null) {
            context.registry().clientLeaves(pool, admission);
            context.clientLimits().leave(pool.key().database(), admittedUser);
        }
    }
}
