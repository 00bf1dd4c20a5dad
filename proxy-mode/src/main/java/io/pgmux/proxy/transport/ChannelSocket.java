package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.pgmux.proxy.protocol.EncodedOut;
import io.pgmux.proxy.protocol.MessageCodec;
import java.net.SocketAddress;
import javax.net.ssl.SSLSession;

/**
 * A client's or server's socket carried by its Netty channel, whose codec is {@code codec}: each call is the
 * channel's own, and relayed bytes go past the codec ({@link MessageCodec#encodedOut}). A channel with no codec (a
 * cancel's connection, which the log tells of) has a null one.
 */
public final class ChannelSocket implements ConnectionSocket {
    private final Channel channel;
    private final MessageCodec codec;
    /**
     * The socket serving the channel's descriptor since it left the channel ({@link ChannelTakeOver#takeOver}), or
     * null: what is still asked of this one (by whoever kept it from before) goes there, as the channel's writes and
     * close would reach the descriptor under it.
     */
    private volatile ConnectionSocket successor;

    public ChannelSocket(Channel channel, MessageCodec codec) {
        this.channel = channel;
        this.codec = codec;
    }

    /** From now on {@code socket} serves the channel's descriptor. */
    void succeededBy(ConnectionSocket socket) {
        successor = socket;
    }

    /** The channel, for the login's steps that change its pipeline (TLS, the console's hand-over). */
    public Channel channel() {
        return channel;
    }

    @Override
    public EventLoop eventLoop() {
        return channel.eventLoop();
    }

    @Override
    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    @Override
    public SocketAddress localAddress() {
        return channel.localAddress();
    }

    @Override
    public int descriptor() {
        ConnectionSocket next = successor;
        if (next != null) {
            return next.descriptor();
        }
        return Transport.descriptor(channel);
    }

    @Override
    public long pendingWriteBytes() {
        ConnectionSocket next = successor;
        if (next != null) {
            return next.pendingWriteBytes();
        }
        return Transport.pendingWriteBytes(channel);
    }

    @Override
    public SSLSession tlsSession() {
        return Transport.tlsSession(channel);
    }

    @Override
    public int peerPid() {
        return Transport.peerPid(channel);
    }

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    @Override
    public boolean isOpen() {
        ConnectionSocket next = successor;
        return next != null ? next.isOpen() : channel.isActive();
    }

    @Override
    public boolean isWritable() {
        ConnectionSocket next = successor;
        return next != null ? next.isWritable() : channel.isWritable();
    }

    @Override
    public void write(Object message) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.write(message);
            return;
        }
        channel.write(message, channel.voidPromise());
    }

    @Override
    public void writeAndFlush(Object message) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.writeAndFlush(message);
            return;
        }
        channel.writeAndFlush(message, channel.voidPromise());
    }

    @Override
    public void flush() {
        ConnectionSocket next = successor;
        if (next != null) {
            next.flush();
            return;
        }
        channel.flush();
    }

    @Override
    public EncodedOut encodedOut() {
        ConnectionSocket next = successor;
        return next != null ? next.encodedOut() : MessageCodec.encodedOut(channel);
    }

    @Override
    public void close() {
        ConnectionSocket next = successor;
        if (next != null) {
            next.close();
            return;
        }
        channel.close();
    }

    @Override
    public void closeAfter(Object message) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.closeAfter(message);
            return;
        }
        channel.writeAndFlush(message).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void whenFlushed(Runnable done) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.whenFlushed(done);
            return;
        }
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> done.run());
    }

    @Override
    public void whenClosed(Runnable done) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.whenClosed(done);
            return;
        }
        channel.closeFuture().addListener(closed -> done.run());
    }

    @Override
    public void pauseReads(int reason, boolean paused) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.pauseReads(reason, paused);
            return;
        }
        ReadPauses.change(channel, reason, paused);
    }

    @Override
    public boolean isReading() {
        ConnectionSocket next = successor;
        return next != null ? next.isReading() : ReadPauses.isReading(channel);
    }

    @Override
    public void resumeReads(int reasons) {
        ConnectionSocket next = successor;
        if (next != null) {
            next.resumeReads(reasons);
            return;
        }
        if (codec == null) {
            ReadPauses.resume(channel, reasons);
        } else {
            ReadPauses.resume(codec, channel, reasons);
        }
    }

    @Override
    public String toString() {
        return "socket " + channel;
    }
}
