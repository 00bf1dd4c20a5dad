package io.pgmux.proxy.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.pgmux.core.pool.Failures;
import io.pgmux.core.pool.ServerConnector;
import io.pgmux.core.pool.ServerGoingAway;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.protocol.BackendMessageDecoder;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.transport.Transport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Opens {@link ServerConnection}s to one {@link ServerTarget} as one user, on the proxy's event loops, and runs
 * the pool's check and reset queries on them. A target's host list is walked by a {@link HostSearch} per login.
 * Never blocks: host names are looked up off the event loops.
 */
public final class NettyServerConnector implements ServerConnector<ServerConnection> {
    /** PgBouncer's server_check_query value for "send an empty query". */
    private static final String EMPTY_QUERY = "<empty>";
    /** invalid_authorization_specification and invalid_password: the server refused this login. */
    private static final String LOGIN_REFUSED_CLASS = "28";

    private final Transport transport;
    private final ServerTarget target;
    private final String user;
    private final Supplier<? extends CompletionStage<Secret>> secret;
    private final int connectTimeoutMillis;
    private final ServerTlsContext tlsContext;
    private final IntSupplier maxPreparedStatements;
    private final FirstHost firstHost;
    private ConnectionLog connectionLog;
    private String poolDatabase;

    /**
     * @param user the user to log in as
     * @param secret that user's password (plaintext or md5 hash) or SCRAM verifier (logged in with the keys a
     *     client's SCRAM login left on it), or null when the server needs none
     * @param tls the proxy's server TLS contexts; the target's sslmode (prefer when it names none) picks one
     */
    public NettyServerConnector(Transport transport, ServerTarget target, String user, Secret secret,
            ServerTls tls, int connectTimeoutMillis, int maxPreparedStatements) {
        this(transport, target, user, () -> CompletableFuture.completedFuture(secret), tls, connectTimeoutMillis,
                () -> maxPreparedStatements);
    }

    /**
     * @param secret asked at each login, after the host's name is looked up: the user's secret may change while
     *     the pool lives (auth_query, server_password_file); one read from a file or a command completes on
     *     BlockingWork, and one that fails fails the login with its error
     * @param maxPreparedStatements the statements each server keeps, read at each Parse
     */
    public NettyServerConnector(Transport transport, ServerTarget target, String user,
            Supplier<? extends CompletionStage<Secret>> secret, ServerTls tls, int connectTimeoutMillis,
            IntSupplier maxPreparedStatements) {
        this.maxPreparedStatements = maxPreparedStatements;
        this.transport = transport;
        this.target = target.withDefaultTlsMode(TlsMode.PREFER);
        this.user = user;
        this.secret = secret;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.tlsContext = tls.context(this.target.tlsMode());
        this.firstHost = new FirstHost(this.target.hosts().size(), this.target.loadBalanceHosts());
    }

    /**
     * Logs each connection it opens and closes (log_connections, log_disconnections) with PgBouncer's
     * {@code S-0x…} prefix, under the pool's database name; before the first {@link #open}.
     */
    public NettyServerConnector logTo(ConnectionLog log, String database) {
        this.connectionLog = log;
        this.poolDatabase = database;
        return this;
    }

    @Override
    public CompletionStage<ServerConnection> open(ServerHandle handle) {
        return new HostSearch(this, target, handle, searchNanos()).run();
    }

    /** A replication client's own connection: the login carries its startup parameters ({@code replication} too). */
    @Override
    public CompletionStage<ServerConnection> openDedicated(ServerHandle handle, Map<String, String> startupParameters) {
        return new HostSearch(this, target.withClientStartup(startupParameters), handle, searchNanos()).run();
    }

    /** Three quarters of server_connect_timeout, so that the search ends before the pool gives up on it. */
    private long searchNanos() {
        return TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis) / 4 * 3;
    }

    /** The index of the host a new login tries first, as load_balance_hosts says. */
    CompletionStage<Integer> firstHost() {
        return firstHost.pick();
    }

    /** A connection to the host at {@code index} was opened and logged in. */
    void hostConnected(int index) {
        firstHost.connected(index);
    }

    /** A connection to that host failed: with load_balance_hosts = disable, later logins start at the next. */
    void hostFailed(int index) {
        firstHost.failed(index);
    }

    /** Runs {@code task} on an event loop after the pause. */
    void schedule(Runnable task, long delayNanos) {
        transport.group().next().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Opens and logs in one connection to {@code at}, a one-host narrowing of the target. */
    CompletableFuture<ServerConnection> openAt(ServerHandle handle, ServerTarget at) {
        ServerHost host = at.hosts().get(0);
        if (host.isUnixSocket()) {
            // PostgreSQL speaks no TLS on its Unix socket; libpq ignores sslmode there too
            return connect(handle, at, null);
        }
        if (at.tlsMode() != TlsMode.ALLOW) {
            return connect(handle, at, tlsContext);
        }
        // libpq's allow: plain text first, TLS only for a server that refuses a plain-text login
        return connect(handle, at, null).exceptionallyCompose(failure -> {
            ServerErrorException refused = ServerErrorException.find(failure);
            return refused != null && refused.error().sqlState().startsWith(LOGIN_REFUSED_CLASS)
                    ? connect(handle, at, tlsContext) : CompletableFuture.failedStage(failure);
        });
    }

    /** @param tls the context to ask for TLS with, or null for plain TCP */
    private CompletableFuture<ServerConnection> connect(ServerHandle handle, ServerTarget at, ServerTlsContext tls) {
        ServerHost host = at.hosts().get(0);
        long started = System.nanoTime();
        return HostResolver.resolve(transport, host).whenComplete((address, failure) -> {
            if (failure != null && Failures.cause(failure) instanceof UnknownHostException) {
                // PgBouncer's line for a name it could not look up; the pool's handle stands for the connection
                logNotConnected(handle, InetSocketAddress.createUnresolved(host.host(), host.port()),
                        "server DNS lookup failed", started);
            }
        }).thenCompose(address -> secret.get()
                .thenCompose(loginSecret -> connect(handle, at, tls, address, loginSecret)));
    }

    private CompletableFuture<ServerConnection> connect(ServerHandle handle, ServerTarget at, ServerTlsContext tls,
            SocketAddress address, Secret loginSecret) {
        ServerConnection server = new ServerConnection(at, user, loginSecret, handle, tls, maxPreparedStatements,
                transport.readGate());
        Bootstrap bootstrap = new Bootstrap()
                .group(transport.group())
                .channel(transport.channelFor(address))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        BackendMessageDecoder decoder = new BackendMessageDecoder();
                        decoder.reuseHolder();
                        ch.pipeline().addLast(decoder);
                        server.attach(ch, decoder);
                        transport.readGate().watchServer(ch);
                    }
                });
        transport.receiveBuffers(bootstrap);
        if (address instanceof InetSocketAddress) {
            transport.tcpOptions(bootstrap);
        }
        long started = System.nanoTime();
        ChannelFuture connecting = bootstrap.connect(address);
        CompletableFuture<ServerConnection> result = new CompletableFuture<>();
        connecting.addListener(f -> {
            if (!f.isSuccess() && result.completeExceptionally(f.cause())) {
                logNotConnected(server, address, "connect failed", started);
            }
        });
        // server_connect_timeout covers the login as well as the TCP connect, as PgBouncer's does: a server that
        // accepts and never answers would otherwise keep this socket open after the pool has given up on it
        ScheduledFuture<?> deadline = connecting.channel().eventLoop().schedule(() -> {
            if (result.completeExceptionally(new ConnectTimeoutException("server login did not finish within"
                    + " server_connect_timeout (" + connectTimeoutMillis + " ms)"))) {
                logNotConnected(server, address, "connect timeout", started);
                connecting.channel().close();
            }
        }, connectTimeoutMillis, TimeUnit.MILLISECONDS);
        result.whenComplete((s, err) -> deadline.cancel(false));
        server.opened().whenComplete((s, err) -> {
            if (err != null) {
                ServerErrorException refused = ServerErrorException.find(err);
                if (result.completeExceptionally(err)) {
                    if (server.isReplication()) {
                        // as PgBouncer: a refused replication login fails its own client, and says so
                        logNotConnected(server, address, "login failed", started);
                    } else if (refused != null) {
                        // PgBouncer closes a server that refused the login with the server's own message
                        logNotConnected(server, address, refused.error().message(), started);
                    }
                }
            } else if (result.isDone()) {
                // the deadline passed first (both run on the channel's event loop)
                s.socket().close();
            } else {
                if (connectionLog != null) {
                    connectionLog.serverConnected(s, s.socket(), poolDatabase, user);
                }
                result.complete(s);
            }
        });
        return result;
    }

    /** PgBouncer's line for a server connection that never logged in, which its operators search for. */
    private void logNotConnected(Object server, SocketAddress address, String reason, long started) {
        if (connectionLog != null) {
            connectionLog.serverNotConnected(server, address, poolDatabase, user, reason, started);
        }
    }

    /** The connection's event loop: a client on the same loop relays to and from it without a thread hop. */
    @Override
    public Object affinity(ServerConnection server) {
        return server.eventLoop();
    }

    /**
     * PgBouncer's server_check_query: {@code <empty>} (the default) sends an empty query, an empty value disables
     * the check (the connection passes as long as it is open).
     */
    @Override
    public CompletionStage<Boolean> test(ServerConnection server, String checkQuery) {
        if (!server.isOpen() || checkQuery == null || checkQuery.isBlank()) {
            return CompletableFuture.completedFuture(server.isOpen());
        }
        return server.query(checkQuery.equals(EMPTY_QUERY) ? "" : checkQuery)
                .handle((error, failure) -> failure == null && error == null
                        && server.transactionStatus() == ReadyForQuery.TransactionStatus.IDLE);
    }

    @Override
    public CompletionStage<Void> reset(ServerConnection server, String resetQuery) {
        return server.query(resetQuery).thenApply(error -> {
            if (error != null) {
                throw new ServerErrorException(error);
            }
            server.resetSession();
            return null;
        });
    }

    @Override
    public void close(ServerConnection server) {
        server.close();
    }

    @Override
    public void close(ServerConnection server, String reason) {
        if (connectionLog != null && server.socket() != null) {
            connectionLog.serverClosing(server, server.socket(), poolDatabase, user, reason, server.loggedInNanos());
        }
        server.close();
    }

    /**
     * A connection that could not be opened or broke before the server said anything (refused, reset, timed
     * out, a failed TLS handshake or TLS refused by the server as in PgBouncer), or a server going down or starting
     * up; the server's other errors, and the pooler's own (authentication), refuse the login.
     */
    @Override
    public boolean isTransientLoginFailure(Throwable failure) {
        ServerErrorException error = ServerErrorException.find(failure);
        return error == null || ServerGoingAway.means(error.error().sqlState());
    }

    public ServerTarget target() {
        return target;
    }
}
