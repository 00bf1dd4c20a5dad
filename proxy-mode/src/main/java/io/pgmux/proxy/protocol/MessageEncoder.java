package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
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

    @Override
    protected void encode(ChannelHandlerContext ctx, EncodableMessage msg, ByteBuf out) {
        msg.encode(out);
    }
}
