package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.unix.PeerCredentials;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolClosedException;
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
import io.pgmux.proxy.protocol.GssEncRequest;
import io.pgmux.proxy.protocol.NegotiateProtocolVersion;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SslRequest;
import io.pgmux.proxy.protocol.SslResponse;
import io.pgmux.proxy.protocol.StartupMessage;
import io.pgmux.proxy.server.PeerCancelKey;
import io.pgmux.proxy.server.PeerPools;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.proxy.transport.ReadPauses;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's startup and login (the first half of PgBouncer's client.c): SSLRequest, GSSENCRequest and
 * CancelRequest, the StartupMessage, authentication, admission to its pool (or the hand-off to the admin console),
 * and the welcome. It lives from the connect to the welcome: a logged-in client keeps nothing of it. Runs on the
 * client's event loop.
 */
final class ClientLogin {
    private static final Logger log = LoggerFactory.getLogger(ClientLogin.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The user the OS user running the pooler logs in to the console as, over the Unix socket. */
    private static final String ADMIN_OWN_USER = "pgbouncer";

    private final ClientConnection client;
    private final ProxyContext context;
    private final Channel channel;
    private ClientAuthenticator authenticator;
    /** Why the client is refused once authenticated (unknown database, max_client_conn, …), or null. */
    private ErrorResponse refusal;
    /** The console user is not in the auth file: auth_query found it. */
    private boolean consoleUserQueried;
    private Map<String, String> startupParameters;
    /** The walsender the client asked for, if any. */
    private StartupReplication replication = StartupReplication.NONE;
    /** A replication client's startup parameters, for the login of its own server connection. */
    private Map<String, String> replicationStartup;

    ClientLogin(ClientConnection client, ProxyContext context, Channel channel) {
        this.client = client;
        this.context = context;
        this.channel = channel;
    }

    /** A message of the client's before its welcome. */
    void onMessage(Object msg) {
        if (msg instanceof FrontendMessage message) {
            onPasswordMessage(message);
        } else if (msg instanceof StartupMessage startup) {
            onStartup(startup);
        } else if (msg == SslRequest.INSTANCE) {
            onSslRequest();
        } else if (msg == GssEncRequest.INSTANCE) {
            channel.writeAndFlush(SslResponse.REJECTED);
        } else if (msg instanceof CancelRequest cancel) {
            onCancelRequest(cancel);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onSslRequest() {
        if (channel.pipeline().get(SslHandler.class) != null) {
            // as PgBouncer: closed without an answer, which would go out inside the TLS the client asks for again
            log.info("client {} sent an SSLRequest inside TLS", channel.remoteAddress());
            client.closeReason = "SSL req inside SSL";
            client.to(ClientConnection.State.CLOSED);
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
        channel.pipeline().addFirst(tls.newHandler(channel.alloc()));
    }

    /**
     * A key another peer gave is forwarded to it ({@link PeerPools#ownOrForward}), and this request's connection stays
     * open until that is done, as in PgBouncer; one of ours is looked up. The request's connection closes once the
     * cancel is sent or found needless, logged in PgBouncer's words under the cancelled client's database.
     */
    private void onCancelRequest(CancelRequest received) {
        CancelRequest cancel = context.peerPools().ownOrForward(received, channel,
                reason -> client.endCancelRequest(null, reason));
        if (cancel == null) {
            return;
        }
        ClientConnection target = context.clientsByKey().find(cancel.key());
        if (target == null) {
            client.endCancelRequest(null, "failed cancel request");
            return;
        }
        target.socket.eventLoop().execute(() -> {
            boolean sent = target.replication != null ? target.replication.cancel(context.cancelSender())
                    : target.link != null && target.link.cancelQuery(context.cancelSender());
            String database = target.poolDatabase();
            channel.eventLoop().execute(() -> client.endCancelRequest(database,
                    sent ? "successfully sent cancel request" : "cancel request for idle client"));
        });
    }

    private void onStartup(StartupMessage startup) {
        if (context.clientTls().requiredOf(channel) && channel.pipeline().get(SslHandler.class) == null) {
            client.fatal(PoolerError.sslRequired());
            return;
        }
        String replicationValue = startup.parameters().get(StartupReplication.PARAMETER);
        replication = StartupReplication.of(replicationValue);
        if (replication == null) {
            client.fatal(StartupReplication.refusal(replicationValue));
            return;
        }
        try {
            // before the user is looked at, as PgBouncer reads the startup packet: a malformed options value or
            // a setting name no server would take is refused before any password is asked for
            Map<String, String> sent = context.startupParameters(startup.parameters(), channel.remoteAddress());
            if (replication != StartupReplication.NONE) {
                // as PgBouncer: options goes to the client's own server as it came, so any option is taken
                replicationStartup = replication.serverStartup(sent);
                sent = new LinkedHashMap<>(sent);
                sent.remove(ClientParameters.OPTIONS);
            }
            client.parameters = ClientParameters.fromStartup(sent, context.ignoredStartupParameters());
        } catch (IllegalArgumentException e) {
            client.fatal(PoolerError.fatal(e.getMessage()));
            return;
        }
        client.user = startup.user();
        if (client.user == null || client.user.isEmpty()) {
            client.fatal(PoolerError.noUsernameSupplied());
            return;
        }
        NegotiateProtocolVersion negotiation = startup.negotiation();
        if (negotiation != null) {
            // as PostgreSQL and PgBouncer: the client learns it speaks 3.0, without the protocol options it asked for
            channel.write(negotiation, channel.voidPromise());
        }
        if (client.user.getBytes(StandardCharsets.UTF_8).length >= PoolerError.MAX_USERNAME_BYTES) {
            client.fatal(PoolerError.usernameTooLong());
            return;
        }
        String database = startup.database();
        if (context.adminRoute().isConsole(database)) {
            client.console = true;
            client.databaseWithoutPool = database;
            startupParameters = startup.parameters();
            if (isOwnUserOnUnixSocket()) {
                context.connectionLog().consoleFromUnixSocket(client, client.socket, client.user);
                context.connectionLog().loginAttempt(client, client.socket, database, database, client.user,
                        replication.logWord);
                client.endLogin();
                channel.write(Authentication.Ok.INSTANCE, channel.voidPromise());
                client.to(ClientConnection.State.HANDED_OFF);
                client.decoder.loginComplete();
                client.decoder.reuseHolder();
                context.adminRoute().openForOwner(channel, client.id, client.user, startupParameters);
                return;
            }
            context.connectionLog().loginAttempt(client, client.socket, database, database, client.user,
                    replication.logWord);
            Secret secret = context.users().find(client.user).orElse(null);
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
        Secret secret = context.users().find(client.user).orElse(null);
        AuthQuery authQuery = secret == null && context.authType() != AuthType.ANY ? context.authQuery(database)
                : null;
        if (authQuery != null && context.database(database) != null) {
            lookUp(startup, authQuery, found -> {
                // trust refuses an unknown user before any password anyway: PgBouncer's words then say why
                if (found == null && context.authType() == AuthType.TRUST) {
                    log.info("client {} login failed: auth_query found no user {}", channel.remoteAddress(),
                            client.user);
                    client.fatal(PoolerError.noSuchUser());
                } else {
                    login(startup, found);
                }
            });
            return;
        }
        login(startup, secret);
    }

    /**
     * auth_query: the client's reads wait while its secret is looked up on a server; no thread waits. The login
     * goes on with what was found (null for an unknown user) unless the lookup itself failed.
     */
    private void lookUp(StartupMessage startup, AuthQuery authQuery, Consumer<Secret> then) {
        ReadPauses.pause(channel, ReadPauses.LOGIN);
        new UserLookup(context).find(authQuery, startup.database(), client.user).whenComplete((found, failure) ->
                channel.eventLoop().execute(() -> {
                    if (client.isOver()) {
                        return;
                    }
                    ReadPauses.resume(channel, ReadPauses.LOGIN);
                    if (failure != null || found.acquireFailure() != null) {
                        client.failAcquire(failure != null ? failure : found.acquireFailure());
                    } else if (found.refusal() != null) {
                        client.fatal(found.refusal());
                    } else {
                        then.accept(found.secret());
                    }
                }));
    }

    private void login(StartupMessage startup, Secret secret) {
        // Whatever the user and database, the client is refused only once authenticated: what it learns before
        // is the same for every name, so it cannot probe which users and databases exist.
        refusal = admit(startup.database(), startup, secret);
        context.connectionLog().loginAttempt(client, client.socket, client.pool == null ? null : startup.database(),
                startup.database(), client.user, replication.logWord);
        startLogin(secret, startup.database());
    }

    /** Asks for what the client's method needs, or refuses it at once (trust, cert, reject, no hba line). */
    private void startLogin(Secret secret, String database) {
        client.to(ClientConnection.State.LOGIN);
        HbaFile.Rule rule = null;
        if (context.authType() == AuthType.HBA) {
            rule = context.hba().evaluate(
                    channel.remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null,
                    channel.pipeline().get(SslHandler.class) != null, database, client.user,
                    replication == StartupReplication.PHYSICAL);
            if (rule == HbaFile.Rule.NO_MATCH) {
                log.info("client {} login failed for user {}: no hba line matches", channel.remoteAddress(),
                        client.user);
                client.fatal(PoolerError.noAuthenticationMethod());
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
            authenticate(new ClientAuthenticator(AuthType.PEER, client.user, secret, null));
            return;
        }
        ReadPauses.pause(channel, ReadPauses.LOGIN);
        CompletableFuture.supplyAsync(() -> osUser(uid), context.blockingWork()).whenComplete((name, failure) ->
                channel.eventLoop().execute(() -> {
                    if (client.isOver()) {
                        return;
                    }
                    ReadPauses.resume(channel, ReadPauses.LOGIN);
                    String systemUser = name;
                    if (name != null && rule.map() != null) {
                        boolean mapped = context.identMap().allows(rule.map(), name, client.user);
                        if (!mapped) {
                            log.info("client {}: ident map {} cannot be matched for {} as user {}",
                                    channel.remoteAddress(), rule.map(), name, client.user);
                        }
                        systemUser = mapped ? client.user : null;
                    }
                    authenticate(new ClientAuthenticator(AuthType.PEER, client.user, secret, systemUser));
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
        String poolUser = entry.loginUser(client.user);
        // max_user_client_connections counts the user the client logged in as; auth_type=any logs every client
        // in as the forced user
        String clientUser = client.user;
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
            client.pool = joined;
            client.admission = admitted;
            // a client keeps no copy of a name its pool's key holds (its own user, or a forced user of the same name)
            String keyUser = joined.key().user();
            if (keyUser.equals(client.user)) {
                client.user = keyUser;
            }
            client.admittedAsPoolUser = !clientUser.equals(client.user);
            context.adminRoute().clientJoins(client.pool);
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
        return owner >= 0 && ADMIN_OWN_USER.equals(client.user) && peerUid() == owner;
    }

    /** @param rule the client's hba line under auth_type hba, else null */
    private ClientAuthenticator authenticator(Secret secret, HbaFile.Rule rule) {
        AuthType type = rule != null ? rule.method() : context.authType();
        String map = rule != null ? rule.map() : null;
        String certificateName = null;
        if (type == AuthType.CERT) {
            certificateName = ClientTls.certificateName(channel);
            // a map= lets the certificate's name stand for the user it maps to
            if (map != null && certificateName != null
                    && context.identMap().allows(map, certificateName, client.user)) {
                certificateName = client.user;
            }
        }
        return new ClientAuthenticator(type, client.user, secret, certificateName, context.scramIterations());
    }

    private void onPasswordMessage(FrontendMessage message) {
        try {
            if (message.type() == FrontendMessage.TERMINATE) {
                client.terminate();
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
                log.info("client {} login failed for user {}: {}", channel.remoteAddress(), client.user,
                        step.failureReason());
                client.closeReason = failureMessage(step);
                context.connectionLog().poolerError(client, client.socket, client.poolDatabase(), client.user,
                        client.closeReason);
                client.logClosing();
                client.to(ClientConnection.State.CLOSED);
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
            case AUTHENTICATED -> {
                // its SCRAM state (nonces, messages, keys) is of no use once logged in: idle clients must not keep it
                authenticator = null;
                client.endLogin();
                if (client.console) {
                    openConsole();
                    return;
                }
                if (refusal != null) {
                    client.fatal(refusal);
                    return;
                }
                if (client.pool == null) {
                    client.fatal(PoolerError.noSuchUser());
                    return;
                }
                client.decoder.loginComplete();
                client.decoder.streamLargeMessages();
                if (replication != StartupReplication.NONE) {
                    // a replication client's messages are its own link's from now on: its decoder reuses a holder
                    client.decoder.reuseHolder();
                    client.pool.traffic().recordClientLogin();
                    new ReplicationLink(client, client.socket, replication)
                            .open(replicationStartup, this::sendWelcome);
                    return;
                }
                // the pool's user is the one its servers log in as (the entry's forced user, or the client's)
                client.limitsVersion = context.clientTimeouts().version();
                client.limits = context.clientTimeouts().forUser(client.user, client.pool.key().user());
                // the pool's read routing (its checks of each host) starts with its first client, not with the first
                // message: a welcome that finds no primary tells the client what the checks found
                context.replicaRoutes(client.pool, channel.eventLoop());
                client.pool.traffic().recordClientLogin();
                welcome();
            }
        }
    }

    private void openConsole() {
        ErrorResponse refused = !consoleUserQueried && context.users().find(client.user).isEmpty()
                ? PoolerError.noSuchUser() : context.adminRoute().admit(client.user);
        if (refused != null) {
            client.fatal(refused);
            return;
        }
        client.to(ClientConnection.State.HANDED_OFF);
        client.decoder.loginComplete();
        client.decoder.reuseHolder();
        context.adminRoute().open(channel, client.id, client.user, startupParameters);
    }

    /**
     * Reports the server's parameters; the first client of a pool fetches them from a server connection, and one
     * whose startup settings a server of the pool has not taken yet has them applied on one first.
     */
    private void welcome() {
        Map<String, String> known = context.welcomeCache().get(client.pool.key());
        Map<String, String> checked = context.welcomeCache().checked(client.pool.key());
        AtomicReference<String[]> lastWelcomed = context.welcomeCache().lastWelcomed(client.pool.key());
        Map<String, String> report = known == null ? null : client.parameters.welcome(known, checked, lastWelcomed);
        if (report != null && !client.parameters.needsCheck(checked)) {
            sendWelcome(report);
            return;
        }
        ReadPauses.pause(channel, ReadPauses.LOGIN);
        client.to(ClientConnection.State.WELCOME);
        // as in PgBouncer, client_login_timeout counts from the connect until the welcome, whatever the client sends
        client.startTimeout(ClientTimeouts.Timeout.WELCOME, client.connectedAtNanos);
        context.clientTimeouts().loginStarted(client);
        client.pool.acquireAsync().whenComplete((acquired, failure) -> channel.eventLoop().execute(() -> {
            if (failure != null) {
                client.failAcquire(failure);
                return;
            }
            Map<String, String> reported = known != null ? known
                    : context.welcomeCache().remember(client.pool.key(), acquired.connection().parameters());
            Map<String, String> toReport = report != null ? report : client.parameters.welcome(reported, checked,
                    lastWelcomed);
            if (client.isOver() || !client.parameters.needsCheck(checked)) {
                // no client is linked to the server for this, so PgBouncer counts no server assignment
                acquired.releaseUncounted();
                welcomed(toReport, null, null);
                return;
            }
            StartupSettingsCheck.apply(acquired, client.parameters, checked, reported, toReport).whenComplete(
                    (error, fault) -> channel.eventLoop().execute(() -> welcomed(toReport, error, fault)));
        }));
    }

    private void welcomed(Map<String, String> report, ErrorResponse refused, Throwable failure) {
        if (client.isOver()) {
            return;
        }
        if (failure != null) {
            client.failAcquire(failure);
        } else if (refused != null) {
            client.fatal(refused.asFatal());
        } else {
            ReadPauses.resume(channel, ReadPauses.LOGIN);
            sendWelcome(report);
        }
    }

    /** The welcome in one buffer and one write, rather than a buffer and a trip down the pipeline per message. */
    private void sendWelcome(Map<String, String> report) {
        BackendKeyData ours;
        do {
            byte[] secret = new byte[BackendKeyData.KEY_LENGTH_3_0];
            RANDOM.nextBytes(secret);
            ours = PeerCancelKey.stamped(new BackendKeyData(RANDOM.nextInt() & Integer.MAX_VALUE, secret),
                    context.peerPools().ownId());
            client.cancelKey = ours.asLong();
        } while (!context.clientsByKey().add(client));
        ByteBuf welcome = channel.alloc().ioBuffer(512); // a usual report, key and ReadyForQuery; grows for more
        try {
            report.forEach((name, value) -> new ParameterStatus(name, value).encode(welcome));
            ours.encode(welcome);
            NoticeResponse notice = context.loginNotice();
            if (notice != null) {
                notice.encode(welcome);
            }
            ReadyForQuery.IDLE.encode(welcome);
        } catch (RuntimeException e) {
            welcome.release();
            throw e;
        }
        channel.writeAndFlush(welcome, channel.voidPromise());
        client.to(ClientConnection.State.READY);
        context.clientTimeouts().loginEnded(client);
        client.startTimeout(ClientTimeouts.Timeout.IDLE, System.nanoTime());
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
}
