package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.unix.Socket;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;

/**
 * The relayed buffer an event loop holds until its channel's flush, then writes to the socket's descriptor itself:
 * a relayed message's write and flush through Netty's outbound buffer (an entry, the pending-bytes accounting on
 * add and removal, the flush loop) cost it more than the pipeline does. Held only on an epoll stream socket whose
 * outbound buffer is empty and whose codec is its first handler (no TLS), so that the bytes are in their place.
 * Anything else written on the channel before that flush, through its codec ({@link MessageCodec}: a write, a
 * close, the codec's removal), sends the held buffer on to the outbound buffer first; so does a relayed write for
 * another channel of the loop, as the loop holds one buffer at a time. What the socket does not take follows in the
 * outbound buffer. One holder per loop rather than a field per codec: an idle client's codec stays as small.
 */
final class HeldWrite {
    private static final FastThreadLocal<HeldWrite> LOOPS = new FastThreadLocal<>() {
        @Override
        protected HeldWrite initialValue() {
            return new HeldWrite();
        }
    };

    /** The codec's context the buffer is for; null when the loop holds none. */
    private ChannelHandlerContext context;
    private ByteBuf bytes;

    private HeldWrite() {
    }

    /** Where relayed bytes are written past the codec at {@code codec}, holding them where it can. */
    static EncodedOut pastCodec(ChannelHandlerContext codec) {
        return new EncodedOut() {
            @Override
            public void writeEncoded(ByteBuf relayed) {
                write(codec, relayed);
            }

            @Override
            public void flushEncoded() {
                if (codec.executor().inEventLoop()) {
                    flush(codec);
                } else {
                    codec.channel().flush();
                }
            }
        };
    }

    private static void write(ChannelHandlerContext ctx, ByteBuf relayed) {
        if (!ctx.executor().inEventLoop()) {
            // through the pipeline, so that the codec sees it on the loop
            ctx.channel().write(relayed, ctx.voidPromise());
            return;
        }
        HeldWrite held = LOOPS.get();
        ChannelHandlerContext holder = held.context;
        if (holder != null) {
            held.sendOn();
            if (holder == ctx) {
                // a second buffer before the flush: both go the outbound buffer's way, in order
                ctx.write(relayed, ctx.voidPromise());
                return;
            }
        }
        if (nothingWaits(ctx)) {
            held.context = ctx;
            held.bytes = relayed;
        } else {
            ctx.write(relayed, ctx.voidPromise());
        }
    }

    /** On the loop: the channel's flush, writing the buffer held for it to its socket first. */
    static void flush(ChannelHandlerContext ctx) {
        HeldWrite held = LOOPS.get();
        if (held.context == ctx) {
            ByteBuf relayed = held.take();
            if (writtenDirectly(ctx, relayed)) {
                return;
            }
            ctx.write(relayed, ctx.voidPromise());
        }
        ctx.flush();
    }

    /** On the loop: something else is written on the channel (or it closes): a buffer held for it goes first. */
    static void sendOn(ChannelHandlerContext ctx) {
        HeldWrite held = LOOPS.get();
        if (held.context == ctx) {
            held.sendOn();
        }
    }

    /** On the loop: the channel is closed, and a buffer held for it is released unsent, as the outbound buffer's. */
    static void drop(ChannelHandlerContext ctx) {
        HeldWrite held = LOOPS.get();
        if (held.context == ctx) {
            held.take().release();
        }
    }

    private void sendOn() {
        ChannelHandlerContext ctx = context;
        ctx.write(take(), ctx.voidPromise());
    }

    private ByteBuf take() {
        ByteBuf relayed = bytes;
        context = null;
        bytes = null;
        return relayed;
    }

    private static boolean nothingWaits(ChannelHandlerContext ctx) {
        if (!(ctx.channel() instanceof AbstractEpollStreamChannel) || ctx.pipeline().firstContext() != ctx) {
            return false;
        }
        ChannelOutboundBuffer pending = ctx.channel().unsafe().outboundBuffer();
        return pending != null && pending.totalPendingWriteBytes() == 0 && ctx.channel().isActive();
    }

    /**
     * Writes {@code relayed} to the socket; true when all went, and it is released. What the socket did not take (its
     * buffer is full) is left for the outbound buffer, which waits for the socket to drain; an error is left for it
     * too, whose own write then meets it and closes the channel as for any write.
     */
    private static boolean writtenDirectly(ChannelHandlerContext ctx, ByteBuf relayed) {
        // a closed channel's descriptor number may already be another connection's: only an open one is written to;
        // and only while no handler (TLS) came between the codec and the socket since the buffer was held
        if (!relayed.hasMemoryAddress() || !ctx.channel().isActive() || ctx.pipeline().firstContext() != ctx) {
            return false;
        }
        try {
            Socket socket = (Socket) ((AbstractEpollStreamChannel) ctx.channel()).fd();
            int written = socket.writeAddress(relayed.memoryAddress(), relayed.readerIndex(), relayed.writerIndex());
            if (written == relayed.readableBytes()) {
                relayed.release();
                return true;
            }
            relayed.skipBytes(written);
        } catch (IOException | RuntimeException e) {
            // the outbound buffer's write reports it
        }
        return false;
    }
}
