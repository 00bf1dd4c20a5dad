package io.pgmux.proxy.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The connection behind its codec: a handler right behind it in the pipeline, handed what it reads through the
 * pipeline or, once the codec was told ({@link MessageCodec#readBy}), by the codec itself: a whole message or run of
 * one read, and the end of a batch of reads that left nothing half framed; or the codec's own connection, in no
 * pipeline ({@link MessageCodec#serve}), handed those and its channel's events by the codec. Netty's way there, a look for the next context that reads and a call
 * through it, is one more object of each connection touched on every read, which with many connections is a cache
 * line missed (the relay's profiles at TPC-B with 8 and 64 clients: 4–5 % of the event loop's user samples).
 */
public abstract class MessageReader extends ChannelInboundHandlerAdapter {
    /** A message, whichever way it came; may throw as {@code channelRead} may, to the same exceptionCaught. */
    public abstract void messageRead(Object message);

    /** The end of a batch of reads, whichever way it came. */
    public abstract void readEnded();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        messageRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readEnded();
    }
}
