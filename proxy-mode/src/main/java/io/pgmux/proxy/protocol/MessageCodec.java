package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.unix.Socket;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.EncoderException;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * A connection's one protocol handler: frames what comes in (a subclass's {@link #decode}) and encodes every
 * {@link EncodableMessage} written to the channel; buffers written directly (relayed bytes) pass through untouched.
 * One handler where a decoder and an encoder would be two, since each handler costs a connection a context of its
 * own (64 B for every idle client) and a hop on every read.
 */
public abstract class MessageCodec extends ByteToMessageDecoder implements ChannelOutboundHandler, EncodedOut {
    private ChannelHandlerContext context;
    /**
     * Relayed bytes written while nothing else waited to go out, not flushed yet: at the flush they are written to
     * the socket straight away, without a trip through the channel's outbound buffer (its entry, its pending-bytes
     * accounting, its removal), which costs a relay's message more than the pipeline does. Anything else written
     * before that flush, by any path, sends them on to the outbound buffer first, so the order never changes.
     */
    private ByteBuf held;

    /**
     * Where bytes already encoded (a relayed message) are written and flushed in {@code channel}'s pipeline: the
     * codec itself, from whose place they go on towards the socket without the hops from the pipeline's tail and the
     * codec's type check on the way; the channel itself where it has no codec.
     */
    public static EncodedOut encodedOut(Channel channel) {
        ChannelHandlerContext codec = channel.pipeline().context(MessageCodec.class);
        return codec != null ? (MessageCodec) codec.handler() : EncodedOut.of(channel);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        context = ctx;
        super.handlerAdded(ctx);
    }

    /** Writes relayed bytes, which pass the codec untouched; from another thread, on the channel's loop. */
    @Override
    public void writeEncoded(ByteBuf bytes) {
        ChannelHandlerContext ctx = context;
        if (!ctx.executor().inEventLoop()) {
            // through the pipeline, so that write() below sees it on the loop
            ctx.channel().write(bytes, ctx.voidPromise());
            return;
        }
        if (held != null) {
            sendHeldOn(ctx);
        } else if (nothingWaits(ctx)) {
            held = bytes;
            return;
        }
        ctx.write(bytes, ctx.voidPromise());
    }

    /** Flushes what was written; from another thread, on the channel's loop. */
    @Override
    public void flushEncoded() {
        ChannelHandlerContext ctx = context;
        if (!ctx.executor().inEventLoop()) {
            ctx.channel().flush();
            return;
        }
        ByteBuf bytes = held;
        if (bytes != null) {
            held = null;
            if (writtenDirectly(bytes)) {
                return;
            }
            ctx.write(bytes, ctx.voidPromise());
        }
        ctx.flush();
    }

    /**
     * Whether the channel is an epoll stream socket (whose descriptor can be written to) with an empty outbound
     * buffer and no handler (TLS) between the codec and the socket, so that bytes written to the socket now are in
     * their place.
     */
    private static boolean nothingWaits(ChannelHandlerContext ctx) {
        if (!(ctx.channel() instanceof AbstractEpollStreamChannel) || ctx.pipeline().firstContext() != ctx) {
            return false;
        }
        ChannelOutboundBuffer pending = ctx.channel().unsafe().outboundBuffer();
        return pending != null && pending.totalPendingWriteBytes() == 0 && ctx.channel().isActive();
    }

    /**
     * Writes {@code bytes} to the socket; true when all went, and they are released. What the socket did not take
     * (its buffer is full) is left for the outbound buffer, which waits for the socket to drain; an error is left
     * for it too, whose own write then meets it and closes the channel as for any write.
     */
    private boolean writtenDirectly(ByteBuf bytes) {
        // a closed channel's descriptor number may already be another connection's: only an open one is written to
        if (!bytes.hasMemoryAddress() || !context.channel().isActive()) {
            return false;
        }
        try {
            Socket socket = (Socket) ((AbstractEpollStreamChannel) context.channel()).fd();
            int written = socket.writeAddress(bytes.memoryAddress(), bytes.readerIndex(), bytes.writerIndex());
            if (written == bytes.readableBytes()) {
                bytes.release();
                return true;
            }
            bytes.skipBytes(written);
        } catch (IOException e) {
            // the outbound buffer's write reports it
        }
        return false;
    }

    /** Something else is written: the held bytes go to the outbound buffer before it. */
    private void sendHeldOn(ChannelHandlerContext ctx) {
        ByteBuf bytes = held;
        held = null;
        ctx.write(bytes, ctx.voidPromise());
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (held != null) {
            sendHeldOn(ctx);
        }
        if (!(msg instanceof EncodableMessage message)) {
            ctx.write(msg, promise);
            return;
        }
        ByteBuf out = ctx.alloc().ioBuffer();
        try {
            message.encode(out);
        } catch (RuntimeException e) {
            out.release();
            throw new EncoderException(e);
        }
        ctx.write(out, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (held != null) {
            flushEncoded();
        } else {
            ctx.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseHeld();
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        if (held != null) {
            sendHeldOn(ctx);
        }
        super.handlerRemoved0(ctx);
    }

    private void releaseHeld() {
        ByteBuf bytes = held;
        if (bytes != null) {
            held = null;
            bytes.release();
        }
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        ctx.read();
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
        ctx.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
            ChannelPromise promise) {
        ctx.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (held != null) {
            sendHeldOn(ctx);
        }
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (held != null) {
            sendHeldOn(ctx);
        }
        ctx.close(promise);
    }

    @Override
    public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (held != null) {
            sendHeldOn(ctx);
        }
        ctx.deregister(promise);
    }
}
