package io.pgmux.proxy.server;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.auth.ServerAuthenticationException;
import io.pgmux.proxy.auth.ServerLoginAuthenticator;
import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.BackendMessageDecoder;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.Query;
import io.pgmux.proxy.protocol.SslRequest;
import io.pgmux.proxy.protocol.SslResponse;
import io.pgmux.proxy.protocol.StartupMessage;
import io.pgmux.proxy.server.ServerConnection.Phase;
import io.pgmux.proxy.transport.ChannelSocket;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server connection's login (the login half of PgBouncer's server.c, as {@code client.ClientLogin} is a client's):
 * the SSLRequest and TLS handshake when TLS is asked for, the StartupMessage, the authentication exchange, the
 * parameters and BackendKeyData up to ReadyForQuery, then the database's connect_query. The connection keeps the
 * phase and hands each message of the login's phases here; the login ends with {@link ServerConnection#loginEnded}
 * or {@link ServerConnection#failLogin}. On the connection's event loop, through its channel.
 */
final class ServerLogin {
    private static final Logger log = LoggerFactory.getLogger(ServerConnection.class);

    private final ServerConnection connection;
    private final ServerTarget target;
    private final String user;
    /** Null for plain TCP. */
    private final ServerTlsContext tls;
    private final ServerLoginAuthenticator authenticator;

    ServerLogin(ServerConnection connection, ServerTarget target, String user, Secret secret, ServerTlsContext tls) {
        this.connection = connection;
        this.target = target;
        this.user = user;
        this.tls = tls;
        this.authenticator = new ServerLoginAuthenticator(user, secret);
    }

    /** The socket is connected: an SSLRequest first when TLS is asked for, else the StartupMessage. */
    void start(BackendMessageDecoder decoder) {
        if (tls == null) {
            startup();
        } else {
            connection.to(Phase.TLS);
            decoder.expectSslResponse();
            connection.socket().writeAndFlush(SslRequest.INSTANCE);
        }
    }

    private void startup() {
        connection.to(Phase.STARTUP);
        Map<String, String> startup = new LinkedHashMap<>();
        startup.put("user", user);
        startup.put("database", target.dbname());
        startup.putAll(target.setup().startupParameters());
        connection.socket().writeAndFlush(new StartupMessage(StartupMessage.PROTOCOL_3_0, startup));
    }

    void onSslResponse(SslResponse response) {
        if (response == SslResponse.ACCEPTED) {
            // built once, by the first login that needs it, on a thread of its own: later ones go on at once
            tls.get().whenComplete((context, failure) -> connection.runOnLoop(() -> startTls(context, failure)));
        } else if (target.tlsMode().requiresTls()) {
            connection.failLogin(new ServerRefusedTlsException(target.tlsMode()));
        } else {
            startup();
        }
    }

    private void startTls(SslContext context, Throwable failure) {
        if (connection.phase() != Phase.TLS) {
            return; // closed while the context was built
        }
        if (failure != null) {
            connection.failLogin(new ServerErrorException(PoolerError.serverLoginFailed(failure.getMessage())));
            return;
        }
        // through the login the socket is its channel's
        Channel channel = ((ChannelSocket) connection.socket()).channel();
        SslHandler ssl = context.newHandler(channel.alloc(), target.host(), target.port());
        channel.pipeline().addFirst(ssl);
        ssl.handshakeFuture().addListener(f -> {
            if (f.isSuccess()) {
                startup();
            } else {
                connection.failLogin(ServerTlsHandshakeException.of(f.cause(), target.tlsMode()));
            }
        });
    }

    /** A message read in the STARTUP or CONNECT_QUERY phase; released here. */
    void onMessage(BackendMessage message) {
        try {
            switch (message.type()) {
                case BackendMessage.AUTHENTICATION -> {
                    Optional<EncodableMessage> answer = authenticator.onAuthentication(
                            Authentication.decode(message.body()));
                    answer.ifPresent(connection.socket()::writeAndFlush);
                }
                case BackendMessage.ERROR_RESPONSE -> {
                    ErrorResponse error = ErrorResponse.decode(message.body());
                    if (connection.phase() == Phase.CONNECT_QUERY) {
                        // as PgBouncer: logged, and the connection serves clients all the same
                        log.error("server {}: error while executing exec_on_query: {} {}", connection.handle().id(),
                                error.severity(), error.message());
                    } else {
                        connection.failLogin(new ServerErrorException(error));
                    }
                }
                case BackendMessage.PARAMETER_STATUS -> connection.onParameterStatus(message);
                case BackendMessage.BACKEND_KEY_DATA ->
                        connection.backendKeyData(BackendKeyData.decode(message.body()));
                case BackendMessage.READY_FOR_QUERY -> onReadyForQuery();
                default -> {
                    // NoticeResponse, NegotiateProtocolVersion: nothing the login depends on
                }
            }
        } catch (ServerAuthenticationException e) {
            connection.failLogin(new ServerErrorException(e.toErrorResponse()));
        } finally {
            message.release();
        }
    }

    private void onReadyForQuery() {
        if (!authenticator.isAuthenticated()) {
            connection.failLogin(new ServerErrorException(PoolerError.serverLoginFailed(
                    "ReadyForQuery before AuthenticationOk")));
            return;
        }
        String connectQuery = target.setup().connectQuery();
        if (connectQuery != null && connection.phase() == Phase.STARTUP) {
            connection.to(Phase.CONNECT_QUERY);
            connection.socket().writeAndFlush(new Query(connectQuery));
            return;
        }
        connection.loginEnded();
    }
}
