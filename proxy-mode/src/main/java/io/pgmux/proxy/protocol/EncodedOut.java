package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/** Where a connection's relayed bytes, already encoded, are written and flushed ({@link MessageCodec#encodedOut}). */
public interface EncodedOut {
    /** Writes {@code bytes} (taking them over), to go out at the next flush. */
    void writeEncoded(ByteBuf bytes);

    void flushEncoded();

    default void writeAndFlushEncoded(ByteBuf bytes) {
        writeEncoded(bytes);
        flushEncoded();
    }

    /** Written through {@code channel}'s pipeline, for a channel without a codec. */
    static EncodedOut of(Channel channel) {
        return new EncodedOut() {
            @Override
            public void writeEncoded(ByteBuf bytes) {
                channel.write(bytes, channel.voidPromise());
            }

            @Override
            public void flushEncoded() {
                channel.flush();
            }
        };
    }
}
