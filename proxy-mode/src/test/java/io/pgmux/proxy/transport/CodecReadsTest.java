package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.BackendMessageDecoder;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A socket whose pipeline has a codec reads by the codec's own requests, not Netty's autoRead, over real sockets
 * (epoll where the host has it, and NIO): it reads message after message, a pause stops its reads also when a read
 * was already asked for, and clearing the last reason reads what waited.
 */
class CodecReadsTest {
    /** How long a paused socket must stay quiet while its peer writes. */
    private static final long QUIET_MILLIS = 300;

    private EventLoopGroup group;
    private ServerSocket listener;
    private Channel channel;
    private Socket peer;
    private final BlockingQueue<Byte> received = new LinkedBlockingQueue<>();

    @AfterEach
    void close() throws Exception {
        if (channel != null) {
            channel.close().sync();
        }
        if (peer != null) {
            peer.close();
        }
        if (listener != null) {
            listener.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void anEpollSocketWithACodecReadsEveryMessageWithAutoReadOff() throws Exception {
        readsEveryMessage(true);
    }

    @Test
    void aNioSocketWithACodecReadsEveryMessageWithAutoReadOff() throws Exception {
        readsEveryMessage(false);
    }

    private void readsEveryMessage(boolean epoll) throws Exception {
        connect(epoll);
        assertFalse(channel.config().isAutoRead(), "the codec asks for reads, not autoRead");
        for (int i = 0; i < 50; i++) {
            char status = "ITE".charAt(i % 3);
            send(status);
            assertEquals((byte) status, next(), "message " + i);
        }
    }

    @Test
    void aPauseSetBetweenReadsHoldsBackWhatArrivesUntilItsReasonIsCleared() throws Exception {
        connect(true);
        send('I');
        assertEquals((byte) 'I', next());
        // the codec asked for the next read at the end of the last one: the pause must take that request back
        onLoop(() -> ReadPauses.pause(channel, ReadPauses.PEER_NOT_WRITABLE));
        send('E');
        assertNull(received.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS), "read while paused");
        onLoop(() -> ReadPauses.resume(channel, ReadPauses.PEER_NOT_WRITABLE));
        assertEquals((byte) 'E', next(), "read once the reason is cleared");
    }

    @Test
    void aSocketPausedForTwoReasonsReadsOnlyWhenBothAreCleared() throws Exception {
        connect(true);
        onLoop(() -> {
            ReadPauses.pause(channel, ReadPauses.SUSPENDED);
            ReadPauses.pause(channel, ReadPauses.WAITING_FOR_SERVER);
        });
        send('I');
        onLoop(() -> ReadPauses.resume(channel, ReadPauses.WAITING_FOR_SERVER));
        assertNull(received.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS), "SUSPEND's pause outlives the other one");
        assertFalse(onLoop(() -> ReadPauses.isReading(channel)));
        onLoop(() -> ReadPauses.resume(channel, ReadPauses.SUSPENDED));
        assertEquals((byte) 'I', next());
        assertTrue(onLoop(() -> ReadPauses.isReading(channel)));
    }

    @Test
    void aPauseSetWhileAReadIsHandledStopsTheReadsAfterIt() throws Exception {
        connect(true);
        // added on the loop: one added from here joins when the loop gets to it, maybe after the first read
        onLoop(() -> channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReadPauses.pause(ctx.channel(), ReadPauses.WAITING_FOR_SERVER);
            }
        }));
        send('I');
        assertEquals((byte) 'I', next());
        send('E');
        assertNull(received.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS), "read after a pause from channelRead");
        onLoop(() -> ReadPauses.resume(channel, ReadPauses.WAITING_FOR_SERVER));
        assertEquals((byte) 'E', next());
    }

    private void connect(boolean epoll) throws Exception {
        if (epoll) {
            assumeTrue(Epoll.isAvailable(), "epoll's sockets");
        }
        group = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        listener = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        channel = new Bootstrap().group(group).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new BackendMessageDecoder(), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                // a ReadyForQuery's status byte tells the messages apart
                                BackendMessage message = (BackendMessage) msg;
                                received.add(message.content().getByte(message.content().readerIndex() + 5));
                                ReferenceCountUtil.release(msg);
                                ctx.fireChannelRead(Boolean.TRUE);
                            }
                        });
                    }
                })
                .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()))
                .sync().channel();
        peer = listener.accept();
    }

    /** A ReadyForQuery with {@code status}, written by the peer. */
    private void send(char status) throws Exception {
        OutputStream out = peer.getOutputStream();
        out.write(new byte[] {'Z', 0, 0, 0, 5, (byte) status});
        out.flush();
    }

    private byte next() throws InterruptedException {
        Byte status = received.poll(10, TimeUnit.SECONDS);
        assertTrue(status != null, "nothing read within 10 s");
        return status;
    }

    private void onLoop(Runnable action) throws Exception {
        onLoop(() -> {
            action.run();
            return null;
        });
    }

    private <T> T onLoop(Callable<T> action) throws Exception {
        return channel.eventLoop().submit(action).get(10, TimeUnit.SECONDS);
    }
}
