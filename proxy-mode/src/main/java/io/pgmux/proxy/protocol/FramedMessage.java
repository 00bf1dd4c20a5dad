package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.util.IllegalReferenceCountException;

/**
 * What a client's and a server's message share as holders of their frames: reference counts and copies go to the
 * frames, as with Netty's {@code DefaultByteBufHolder}, whose content is final; here a decoder's reused holder takes
 * the next read's frames.
 */
abstract class FramedMessage<M extends FramedMessage<M>> implements ByteBufHolder {
    /** The message or run as it arrived; replaced only in a decoder's reused holder. */
    ByteBuf frames;

    FramedMessage(ByteBuf frames) {
        this.frames = frames;
    }

    @SuppressWarnings("unchecked")
    private M self() {
        return (M) this;
    }

    /** The frames; a holder whose frames were released (a reused holder passed on) fails at once. */
    @Override
    public ByteBuf content() {
        int count = frames.refCnt();
        if (count <= 0) {
            throw new IllegalReferenceCountException(count);
        }
        return frames;
    }

    @Override
    public int refCnt() {
        return frames.refCnt();
    }

    @Override
    public boolean release() {
        return frames.release();
    }

    @Override
    public boolean release(int decrement) {
        return frames.release(decrement);
    }

    @Override
    public abstract M replace(ByteBuf content);

    @Override
    public M copy() {
        return replace(content().copy());
    }

    @Override
    public M duplicate() {
        return replace(content().duplicate());
    }

    @Override
    public M retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    @Override
    public M retain() {
        frames.retain();
        return self();
    }

    @Override
    public M retain(int increment) {
        frames.retain(increment);
        return self();
    }

    @Override
    public M touch() {
        frames.touch();
        return self();
    }

    @Override
    public M touch(Object hint) {
        frames.touch(hint);
        return self();
    }
}
