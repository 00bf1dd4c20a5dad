package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.config.TlsProtocols;
import io.pgmux.testing.TestCertificates;
import io.pgmux.proxy.transport.Transport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS towards the server, against a stand-in server that answers SSLRequest with 'S' (and a TLS handshake) or
 * 'N', then logs anyone in, or refuses plain-text logins as a pg_hba.conf with only hostssl lines does.
 * {@code ServerTlsVerificationTest} checks certificates against a real PostgreSQL.
 */
class ServerTlsTest {
    private static TestCertificates authority;
    private static TestCertificates.Issued serverCertificate;
    private static TestCertificates.Issued clientCertificate;

    private final Transport transport = Transport.create(1);
    private final List<String> logins = new CopyOnWriteArrayList<>();
    private final AtomicReference<String> clientSubject = new AtomicReference<>();
    private Channel listener;

    @BeforeAll
    static void certificates(@TempDir Path dir) {
        authority = TestCertificates.authority(dir, "stand-in CA");
        serverCertificate = authority.issue("server", "localhost", "dns:localhost,ip:127.0.0.1");
        clientCertificate = authority.issue("pooler", "pgmux pooler", null);
    }

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void preferUsesTlsWhenTheServerOffersIt() throws Exception {
        int port = fakeServer(tls(ClientAuth.NONE), false);
        ServerConnection server = open(port, TlsMode.PREFER, unverified(TlsMode.PREFER));
        assertNotNull(server.channel().pipeline().get(SslHandler.class));
        assertEquals(List.of("tls"), logins, "the startup packet arrived over TLS");
        assertEquals("17.0", server.parameters().get("server_version"));
        server.close();
    }

    @Test
    void preferFallsBackToPlainTextWhenTheServerDeclines() throws Exception {
        int port = fakeServer(null, false);
        ServerConnection server = open(port, TlsMode.PREFER, unverified(TlsMode.PREFER));
        assertEquals("17.0", server.parameters().get("server_version"));
        assertEquals(List.of("plain"), logins);
        server.close();
    }

    @Test
    void requireRefusesAServerWithoutTls() throws Exception {
        int port = fakeServer(null, false);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> open(port, TlsMode.REQUIRE, unverified(TlsMode.REQUIRE)));
        ServerErrorException error = ServerErrorException.find(e);
        assertNotNull(error, e.toString());
        assertEquals("server login failed: server refused TLS (sslmode require)", error.error().message());
        assertTrue(logins.isEmpty(), "no startup packet in plain text");
    }

    @Test
    void allowLogsInInPlainTextWithoutAskingForTls() throws Exception {
        int port = fakeServer(tls(ClientAuth.NONE), false);
        ServerConnection server = open(port, TlsMode.ALLOW, unverified(TlsMode.ALLOW));
        assertNull(server.channel().pipeline().get(SslHandler.class));
        assertEquals(List.of("plain"), logins);
        server.close();
    }

    @Test
    void allowTriesTlsWhenTheServerRefusesThePlainTextLogin() throws Exception {
        int port = fakeServer(tls(ClientAuth.NONE), true);
        ServerConnection server = open(port, TlsMode.ALLOW, unverified(TlsMode.ALLOW));
        assertNotNull(server.channel().pipeline().get(SslHandler.class));
        assertEquals(List.of("plain refused", "tls"), logins);
        server.close();
    }

    @Test
    void clientCertificateIsPresentedToAServerThatAsksForOne() throws Exception {
        int port = fakeServer(tls(ClientAuth.REQUIRE), false);
        ServerTls tls = ServerTls.of(EnumSet.of(TlsMode.VERIFY_FULL), authority.caCertificate(),
                clientCertificate.certificate(), clientCertificate.privateKey(), null);
        ServerConnection server = open(port, TlsMode.VERIFY_FULL, tls);
        assertEquals("CN=pgmux pooler", clientSubject.get());
        server.close();
    }

    @Test
    void withoutAClientCertificateAServerThatDemandsOneRefusesTheHandshake() {
        int port = fakeServer(tls(ClientAuth.REQUIRE), false);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> open(port, TlsMode.REQUIRE, unverified(TlsMode.REQUIRE)));
        ServerErrorException error = ServerErrorException.find(e);
        assertNotNull(error, e.toString());
        assertTrue(error.error().message().startsWith("server login failed: TLS handshake failed (sslmode require)"),
                error.error().message());
    }

    @Test
    void protocolsTheServerDoesNotSpeakFailTheHandshake() {
        int port = fakeServer(tls(ClientAuth.NONE, "TLSv1.3"), false);
        ServerTls tls = ServerTls.of(EnumSet.of(TlsMode.REQUIRE), null, null, null,
                TlsProtocols.parse("server_tls_protocols", "tlsv1.2"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> open(port, TlsMode.REQUIRE, tls));
        assertNotNull(ServerErrorException.find(e), e.toString());
        assertFalse(logins.contains("tls"));
    }

    private static ServerTls unverified(TlsMode mode) {
        return ServerTls.of(EnumSet.of(mode), null, null, null, null);
    }

    private ServerConnection open(int port, TlsMode mode, ServerTls tls) throws Exception {
        ServerTarget target = new ServerTarget("127.0.0.1", port, "db", "u", null, mode);
        NettyServerConnector connector = new NettyServerConnector(transport, target, "u", (Secret) null, tls, 5_000, 10);
        return connector.open(new Handle()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static SslContext tls(ClientAuth clientAuth, String... protocols) {
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(serverCertificate.certificate().toFile(),
                    serverCertificate.privateKey().toFile()).clientAuth(clientAuth)
                    .trustManager(authority.caCertificate().toFile());
            if (protocols.length > 0) {
                builder.protocols(protocols);
            }
            return builder.build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Answers SSLRequest ('S' with a handshake when {@code tls} is set, else 'N'), then logs anyone in, except
     * that with {@code refusePlainText} a login in plain text gets FATAL 28000, as from a hostssl-only server.
     */
    private int fakeServer(SslContext tls, boolean refusePlainText) {
        listener = new ServerBootstrap().group(transport.group()).channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
                                int length = in.getInt(in.readerIndex());
                                int code = in.getInt(in.readerIndex() + 4);
                                if (length == 8 && code == 80877103) {
                                    ByteBuf answer = ctx.alloc().buffer(1).writeByte(tls != null ? 'S' : 'N');
                                    ctx.writeAndFlush(answer);
                                    if (tls != null) {
                                        ctx.pipeline().addFirst(tls.newHandler(ctx.alloc()));
                                    }
                                    return;
                                }
                                SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                                ByteBuf out = ctx.alloc().buffer();
                                if (ssl == null && refusePlainText) {
                                    logins.add("plain refused");
                                    byte[] fields = ("SFATAL\u0000C28000\u0000Mno pg_hba.conf entry for host"
                                            + " \"127.0.0.1\", user \"u\", database \"db\", no encryption\u0000\u0000")
                                            .getBytes(StandardCharsets.UTF_8);
                                    out.writeByte('E').writeInt(4 + fields.length).writeBytes(fields);
                                    ctx.writeAndFlush(out).addListener(f -> ctx.close());
                                    return;
                                }
                                logins.add(ssl != null ? "tls" : "plain");
                                if (ssl != null && ssl.engine().getNeedClientAuth()) {
                                    clientSubject.set(((X509Certificate) ssl.engine().getSession()
                                            .getPeerCertificates()[0]).getSubjectX500Principal().getName());
                                }
                                out.writeByte('R').writeInt(8).writeInt(0);
                                byte[] status = "server_version\u000017.0\u0000".getBytes(StandardCharsets.UTF_8);
                                out.writeByte('S').writeInt(4 + status.length).writeBytes(status);
                                out.writeByte('K').writeInt(12).writeInt(42).writeInt(7);
                                out.writeByte('Z').writeInt(5).writeByte('I');
                                ctx.writeAndFlush(out);
                            }
                        });
                    }
                })
                .bind("127.0.0.1", 0).syncUninterruptibly().channel();
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    private static final class Handle implements ServerHandle {
        @Override
        public long id() {
            return 1;
        }

        @Override
        public PoolKey poolKey() {
            return new PoolKey("db", "u");
        }

        @Override
        public void markBroken(Throwable cause) {
        }

        @Override
        public long connectedAtNanos() {
            return 0;
        }
    }
}
