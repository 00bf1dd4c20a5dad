package io.pgmux.proxy.protocol;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/** Records every buffer a channel allocates and the largest capacity asked for, to prove bounds and releases. */
final class TrackingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> allocated = new ArrayList<>();
    private int largestRequest;

    TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity), initialCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity), initialCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** Leak-aware too, so PARANOID detection also watches what the decoders allocate. */
    private ByteBuf track(ByteBuf buf, int initialCapacity) {
        ByteBuf tracked = toLeakAwareBuffer(buf);
        allocated.add(tracked);
        largestRequest = Math.max(largestRequest, initialCapacity);
        return tracked;
    }

    int largestRequest() {
        return largestRequest;
    }

    /** Buffers still referenced: after a channel is finished and its output released, there must be none. */
    long unreleased() {
        return allocated.stream().filter(buf -> buf.refCnt() != 0).count();
    }
}
