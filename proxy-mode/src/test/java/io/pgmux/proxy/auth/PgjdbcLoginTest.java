package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.GssEncRequest;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SslRequest;
import io.pgmux.proxy.protocol.SslResponse;
import io.pgmux.proxy.protocol.StartupMessage;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * pgjdbc, whose SCRAM and md5 code is an independent implementation, logs in through the real decoder, encoder
 * and {@link ClientAuthenticator} over TCP. The listener here does nothing but log in; it is not the proxy.
 */
class PgjdbcLoginTest {
    private static final UserSecrets USERS = UserSecrets.of(Map.of(
            "scram_user", SecretTest.POSTGRES_PENCIL_VERIFIER,
            "md5_user", SecretTest.POSTGRES_MD5_USER_HASH,
            "plain_user", "pencil"));

    private static EventLoopGroup group;
    private static Channel server;
    private static volatile AuthType authType;

    @BeforeAll
    static void listen() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        FrontendMessageDecoder decoder = new FrontendMessageDecoder();
                        ch.pipeline().addLast(decoder, new LoginOnly(decoder));
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    @AfterAll
    static void close() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private static Connection connect(AuthType type, String user, String password) throws SQLException {
        authType = type;
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("assumeMinServerVersion", "12");
        properties.setProperty("connectTimeout", "10");
        properties.setProperty("socketTimeout", "10");
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/app", properties);
    }

    @Test
    void pgjdbcLogsInByScramAgainstAPostgresVerifier() throws SQLException {
        try (Connection connection = connect(AuthType.SCRAM_SHA_256, "scram_user", "pencil")) {
            assertEquals("17.0", connection.getMetaData().getDatabaseProductVersion());
        }
    }

    @Test
    void pgjdbcLogsInByMd5AgainstAPostgresHash() throws SQLException {
        connect(AuthType.MD5, "md5_user", "pencil").close();
    }

    @Test
    void pgjdbcLogsInByScramWhenMd5IsConfiguredAndTheSecretIsAVerifier() throws SQLException {
        connect(AuthType.MD5, "scram_user", "pencil").close();
    }

    @Test
    void pgjdbcLogsInWithACleartextPassword() throws SQLException {
        connect(AuthType.PLAIN, "plain_user", "pencil").close();
    }

    @Test
    void pgjdbcSeesPgBouncersErrorForAWrongScramPassword() {
        SQLException e = assertThrows(SQLException.class, () -> connect(AuthType.SCRAM_SHA_256, "scram_user", "x"));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("SASL authentication failed"), e.getMessage());
    }

    @Test
    void pgjdbcSeesPgBouncersErrorForAnUnknownMd5User() {
        SQLException e = assertThrows(SQLException.class, () -> connect(AuthType.MD5, "nobody", "pencil"));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("password authentication failed"), e.getMessage());
    }

    /** Answers SSLRequest with 'N', authenticates, sends the welcome, then ignores everything but Terminate. */
    private static final class LoginOnly extends SimpleChannelInboundHandler<Object> {
        private final FrontendMessageDecoder decoder;
        private ClientAuthenticator authenticator;

        LoginOnly(FrontendMessageDecoder decoder) {
            this.decoder = decoder;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof SslRequest || msg instanceof GssEncRequest) {
                ctx.writeAndFlush(SslResponse.REJECTED);
            } else if (msg instanceof StartupMessage startup) {
                authenticator = new ClientAuthenticator(authType, startup.user(),
                        USERS.find(startup.user()).orElse(null));
                proceed(ctx, authenticator.start());
            } else if (msg instanceof FrontendMessage message && message.type() == FrontendMessage.PASSWORD) {
                proceed(ctx, authenticator.onPasswordMessage(message.body()));
            } else if (msg instanceof FrontendMessage message && message.type() == FrontendMessage.TERMINATE) {
                ctx.close();
            }
        }

        private void proceed(ChannelHandlerContext ctx, AuthStep step) {
            step.messages().forEach(ctx::write);
            switch (step.outcome()) {
                case CONTINUE -> ctx.flush();
                case FAILED -> ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                case AUTHENTICATED -> {
                    decoder.loginComplete();
                    ctx.write(new ParameterStatus("server_version", "17.0"));
                    ctx.write(new ParameterStatus("client_encoding", "UTF8"));
                    ctx.write(new ParameterStatus("standard_conforming_strings", "on"));
                    ctx.write(new ParameterStatus("integer_datetimes", "on"));
                    ctx.write(new BackendKeyData(1, new byte[] {1, 2, 3, 4}));
                    ctx.writeAndFlush(ReadyForQuery.IDLE);
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof ProtocolViolationException violation) {
                ctx.writeAndFlush(violation.toErrorResponse()).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.close();
            }
        }
    }
}
