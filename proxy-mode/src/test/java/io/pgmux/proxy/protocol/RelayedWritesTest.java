package io.pgmux.proxy.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Relayed bytes written through {@link MessageCodec#encodedOut} over a real epoll socket, written to it directly
 * when nothing else waits to go out ({@link HeldWrite}): whatever path the other writes take, the peer gets
 * everything in the order it was written, also when the socket's buffer is full or another channel of the loop
 * relays at the same time, and nothing is written to a closed socket.
 */
class RelayedWritesTest {
    private EventLoopGroup group;
    private ServerSocket listener;
    private Channel channel;
    private Socket peer;
    private EncodedOut out;

    @BeforeEach
    void connect() throws Exception {
        assumeTrue(Epoll.isAvailable(), "the direct write is epoll's");
        // one loop: every channel of the test is on it
        group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        listener = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        // a small receive buffer, so that a few megabytes fill the socket
        listener.setReceiveBufferSize(4096);
        channel = open();
        peer = listener.accept();
        peer.setSoTimeout(10_000);
        out = MessageCodec.encodedOut(channel);
    }

    private Channel open() throws InterruptedException {
        // a small send buffer too, whatever the host's tcp_wmem
        return new Bootstrap().group(group).channel(EpollSocketChannel.class)
                .option(ChannelOption.SO_SNDBUF, 4096)
                .handler(new BackendMessageDecoder())
                .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()))
                .sync().channel();
    }

    @AfterEach
    void close() throws Exception {
        if (group == null) {
            return;
        }
        channel.close().sync();
        peer.close();
        listener.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void bytesWrittenAndFlushedOnTheLoopArrive() throws Exception {
        ByteBuf relayed = bytes(100, 1);
        onLoop(() -> {
            out.writeEncoded(relayed);
            out.flushEncoded();
            return null;
        });
        assertArrayEquals(content(100, 1), read(100));
        assertEquals(0, relayed.refCnt(), "released once written");
    }

    @Test
    void aMessageWrittenThroughThePipelineBeforeTheFlushFollowsTheRelayedBytes() throws Exception {
        ParameterStatus own = new ParameterStatus("a", "b");
        onLoop(() -> {
            out.writeEncoded(bytes(50, 7));
            channel.write(own, channel.voidPromise());
            out.flushEncoded();
            return null;
        });
        assertArrayEquals(concat(content(50, 7), encoded(own)), read(50 + encoded(own).length));
    }

    @Test
    void twoRelayedWritesBeforeAFlushArriveInOrder() throws Exception {
        onLoop(() -> {
            out.writeEncoded(bytes(30, 1));
            out.writeEncoded(bytes(40, 2));
            out.flushEncoded();
            return null;
        });
        assertArrayEquals(concat(content(30, 1), content(40, 2)), read(70));
    }

    @Test
    void anotherChannelsRelayedWriteBeforeTheFlushLosesAndReordersNothing() throws Exception {
        Channel second = open();
        try (Socket secondPeer = listener.accept()) {
            secondPeer.setSoTimeout(10_000);
            EncodedOut secondOut = MessageCodec.encodedOut(second);
            onLoop(() -> {
                out.writeEncoded(bytes(25, 1));
                secondOut.writeEncoded(bytes(35, 2));
                out.writeEncoded(bytes(45, 3));
                secondOut.flushEncoded();
                out.flushEncoded();
                return null;
            });
            assertArrayEquals(concat(content(25, 1), content(45, 3)), read(70));
            byte[] got = secondPeer.getInputStream().readNBytes(35);
            assertArrayEquals(content(35, 2), got);
        } finally {
            second.close().sync();
        }
    }

    @Test
    void bytesWrittenFromAnotherThreadArriveInOrder() throws Exception {
        out.writeEncoded(bytes(20, 3));
        out.writeEncoded(bytes(20, 4));
        out.flushEncoded();
        assertArrayEquals(concat(content(20, 3), content(20, 4)), read(40));
    }

    @Test
    void whatAFullSocketDidNotTakeGoesOutBeforeWhatIsWrittenNext() throws Exception {
        int big = 8 << 20;
        onLoop(() -> {
            out.writeEncoded(bytes(big, 5));
            out.flushEncoded();
            return null;
        });
        assertTrue(onLoop(() -> channel.unsafe().outboundBuffer().totalPendingWriteBytes() > 0),
                "the peer reads nothing yet: the socket cannot have taken " + big + " bytes");
        onLoop(() -> {
            out.writeEncoded(bytes(10, 6));
            out.flushEncoded();
            return null;
        });
        assertArrayEquals(concat(content(big, 5), content(10, 6)), read(big + 10));
    }

    @Test
    void bytesHeldForAFlushAreReleasedAndNotSentWhenTheChannelCloses() throws Exception {
        ByteBuf relayed = bytes(64, 9);
        onLoop(() -> {
            out.writeEncoded(relayed);
            channel.close();
            out.flushEncoded();
            return null;
        });
        assertEquals(0, relayed.refCnt());
        assertEquals(-1, peer.getInputStream().read(), "the peer sees the end, none of the bytes");
    }

    @Test
    void aChannelWithoutACodecIsWrittenThroughItsPipeline() {
        EmbeddedChannel plain = new EmbeddedChannel();
        EncodedOut direct = MessageCodec.encodedOut(plain);
        direct.writeAndFlushEncoded(bytes(5, 1));
        ByteBuf sent = plain.readOutbound();
        assertArrayEquals(content(5, 1), ByteBufUtil.getBytes(sent));
        sent.release();
        plain.finishAndReleaseAll();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return channel.eventLoop().submit(task).get(10, TimeUnit.SECONDS);
    }

    /** {@code length} bytes counting up from {@code seed}, in a direct buffer as a server's read gives them. */
    private ByteBuf bytes(int length, int seed) {
        ByteBuf buf = channel.alloc().directBuffer(length);
        buf.writeBytes(content(length, seed));
        return buf;
    }

    private static byte[] content(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    private static byte[] encoded(EncodableMessage message) {
        ByteBuf buf = Unpooled.buffer();
        message.encode(buf);
        byte[] b = ByteBufUtil.getBytes(buf);
        buf.release();
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private byte[] read(int length) throws Exception {
        InputStream in = peer.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream(length);
        byte[] chunk = new byte[65536];
        while (got.size() < length) {
            int n = in.read(chunk, 0, Math.min(chunk.length, length - got.size()));
            if (n < 0) {
                break;
            }
            got.write(chunk, 0, n);
        }
        return got.toByteArray();
    }
}
