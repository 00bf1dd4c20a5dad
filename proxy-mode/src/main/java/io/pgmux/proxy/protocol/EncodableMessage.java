package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** A message the pooler originates. Write it to a channel whose pipeline has a
 * {@link MessageCodec}. */
public interface EncodableMessage {

    /** Appends the complete message, header included, to {@code out}. */
    void encode(ByteBuf out);

    /** The message in a new buffer, for callers outside a pipeline. */
    default ByteBuf encode(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer();
        try {
            encode(out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }
}
