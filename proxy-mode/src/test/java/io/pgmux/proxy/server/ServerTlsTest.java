package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.proxy.transport.Transport;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS towards the server, against a stand-in server that answers SSLRequest with 'S' (and a TLS handshake) or
 * 'N', then accepts any login: the embedded PostgreSQL of the other tests has no certificate.
 */
class ServerTlsTest {
    private final Transport transport = Transport.create(1);
    private Channel listener;

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void preferUsesTlsWhenTheServerOffersIt(@TempDir Path dir) throws Exception {
        AtomicBoolean encrypted = new AtomicBoolean();
        int port = fakeServer(selfSigned(dir), encrypted);
        ServerConnection server = open(port, TlsMode.PREFER);
        assertNotNull(server.channel().pipeline().get(SslHandler.class));
        assertTrue(encrypted.get(), "the startup packet arrived over TLS");
        assertEquals("17.0", server.parameters().get("server_version"));
        server.close();
    }

    @Test
    void preferFallsBackToPlainTextWhenTheServerDeclines() throws Exception {
        AtomicBoolean encrypted = new AtomicBoolean();
        int port = fakeServer(null, encrypted);
        ServerConnection server = open(port, TlsMode.PREFER);
        assertEquals("17.0", server.parameters().get("server_version"));
        assertTrue(!encrypted.get());
        server.close();
    }

    @Test
    void requireRefusesAServerWithoutTls() throws Exception {
        int port = fakeServer(null, new AtomicBoolean());
        ExecutionException e = assertThrows(ExecutionException.class, () -> open(port, TlsMode.REQUIRE));
        ServerErrorException error = ServerErrorException.find(e);
        assertNotNull(error, e.toString());
        assertTrue(error.error().message().contains("server refused TLS"), error.error().message());
    }

    private ServerConnection open(int port, TlsMode mode) throws Exception {
        ServerTarget target = new ServerTarget("127.0.0.1", port, "db", "u", null, mode);
        NettyServerConnector connector = new NettyServerConnector(transport, target, "u", null, 5_000, 10);
        return connector.open(new Handle()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Answers SSLRequest ('S' with a handshake when {@code tls} is set, else 'N'), then logs anyone in. */
    private int fakeServer(SslContext tls, AtomicBoolean encrypted) {
        listener = new ServerBootstrap().group(transport.group()).channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
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
                                encrypted.set(ctx.pipeline().get(SslHandler.class) != null);
                                ByteBuf out = ctx.alloc().buffer();
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

    private static SslContext selfSigned(Path dir) throws Exception {
        Path store = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                store.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
                new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(keyStore, "changeit".toCharArray());
        return SslContextBuilder.forServer(keys).build();
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
