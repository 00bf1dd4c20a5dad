package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.EncoderException;
import java.net.SocketAddress;

/**
 * A connection's one protocol handler: frames what comes in (a subclass's {@link #decode}) and encodes every
 * {@link EncodableMessage} written to the channel; buffers written directly (relayed bytes) pass through untouched.
 * One handler where a decoder and an encoder would be two, since each handler costs a connection a context of its
 * own (64 B for every idle client) and a hop on every read.
 */
public abstract class MessageCodec extends ByteToMessageDecoder implements ChannelOutboundHandler {

    /**
     * Where bytes already encoded (a relayed message) are written and flushed in {@code channel}'s pipeline: the
     * codec's own context, from which they go on towards the socket without the hops from the pipeline's tail
     * and the codec's type check on the way; the channel itself where it has no codec.
     */
    public static ChannelOutboundInvoker encodedOut(Channel channel) {
        ChannelHandlerContext codec = channel.pipeline().context(MessageCodec.class);
        return codec != null ? codec : channel;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
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
        ctx.flush();
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
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.close(promise);
    }

    @Override
    public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.deregister(promise);
    }
}
