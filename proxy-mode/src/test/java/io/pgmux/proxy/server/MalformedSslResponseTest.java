package io.pgmux.proxy.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.transport.Transport;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Answers to SSLRequest that no PostgreSQL gives, from a stand-in server that writes fixed bytes: the login
 * fails as a protocol violation that says what was wrong, and no StartupMessage is sent. {@code io.pgmux.proxy.ServerTlsTest} covers the answers
 * a real PostgreSQL gives.
 */
class MalformedSslResponseTest {
    private final Transport transport = Transport.create(1);
    private final List<String> received = new CopyOnWriteArrayList<>();
    private Channel listener;

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void bytesBehindTheServersAcceptanceAreRefusedAsUnprotected() {
        // CVE-2021-23222: a man in the middle appends plain-text messages to the 'S'.
        int port = standIn(new byte[] {'S', 'R', 0, 0, 0, 8, 0, 0, 0, 0});
        assertEquals("received unencrypted data after SSL response", loginFailure(port).getMessage());
        assertEquals(List.of("SSLRequest"), received, "nothing but the SSLRequest was sent");
    }

    @Test
    void anAnswerOtherThanSOrNFailsTheLogin() {
        int port = standIn(new byte[] {'X'});
        assertEquals("invalid response to SSL negotiation: 88", loginFailure(port).getMessage());
        assertEquals(List.of("SSLRequest"), received, "nothing but the SSLRequest was sent");
    }

    /** Why the login failed: the protocol violation the server's answer is. */
    private ProtocolViolationException loginFailure(int port) {
        ServerTarget target = new ServerTarget("127.0.0.1", port, "db", "u", null, TlsMode.PREFER);
        NettyServerConnector connector = new NettyServerConnector(transport, target, "u", (Secret) null,
                ServerTls.of(transport.blockingWork(), EnumSet.of(TlsMode.PREFER), null, null, null, null, null),
                5_000, 10);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> connector.open(new RecordingHandle()).toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(ProtocolViolationException.class, e.getCause());
    }

    /** Writes {@code answer} in reply to an SSLRequest and records what the client sent. */
    private int standIn(byte[] answer) {
        listener = new ServerBootstrap().group(transport.group()).channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
                                boolean sslRequest = in.readableBytes() == 8 && in.getInt(in.readerIndex() + 4) == 80877103;
                                received.add(sslRequest ? "SSLRequest" : "other");
                                if (sslRequest) {
                                    ctx.writeAndFlush(Unpooled.wrappedBuffer(answer));
                                }
                            }
                        });
                    }
                })
                .bind("127.0.0.1", 0).syncUninterruptibly().channel();
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }
}
