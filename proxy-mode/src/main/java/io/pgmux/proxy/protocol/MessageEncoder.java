package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Encodes every {@link EncodableMessage} written to the channel; buffers written directly (relayed
 * {@code content()} of a {@link FrontendMessage} or {@link BackendMessage}) pass through untouched.
 * Stateless, so one instance serves all channels.
 */
@Sharable
public final class MessageEncoder extends MessageToByteEncoder<EncodableMessage> {
    public static final MessageEncoder INSTANCE = new MessageEncoder();

    private MessageEncoder() {
        super(EncodableMessage.class);
    }

    /**
     * Where bytes already encoded (a relayed message) are written and flushed in {@code channel}'s pipeline: the
     * encoder's own context, from which they go on towards the socket without the hops from the pipeline's tail
     * and the encoder's type check on the way; the channel itself where it has no encoder.
     */
    public static ChannelOutboundInvoker encodedOut(Channel channel) {
        ChannelHandlerContext encoder = channel.pipeline().context(INSTANCE);
        return encoder != null ? encoder : channel;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, EncodableMessage msg, ByteBuf out) {
        msg.encode(out);
    }
}
