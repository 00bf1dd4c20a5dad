package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * The buffers sockets read into: each event loop's own one whenever nothing read into it before is still held, a
 * pooled one otherwise. A relayed message is written on and released within the pass of the loop that read it, so
 * the next read, of any socket of that loop, finds the loop's buffer free again: reads cost no allocation and no
 * release to the pool, and land in memory the loop touched a moment ago, where a pooled buffer per read was a line
 * of memory gone cold while dozens of other clients were served. The reference count says whether it is free: the
 * loop keeps one reference, and every holder of bytes read into it (a message, its slice, a decoder's partial
 * message) holds another, so bytes still held are never overwritten. What is kept for long (a request waiting for a
 * server, a request kept to send again) is copied out ({@link #holds}), so that it does not keep the loop on pooled
 * buffers meanwhile.
 */
public final class ReadBuffers {
    /** As large as any read's buffer ({@code Transport.RECEIVE_BUFFER_MAXIMUM}), so that every read may use it. */
    static final int CAPACITY = Transport.RECEIVE_BUFFER_MAXIMUM;

    private static final FastThreadLocal<ByteBuf> LOOP = new FastThreadLocal<>() {
        @Override
        protected ByteBuf initialValue() {
            return ByteBufAllocator.DEFAULT.directBuffer(CAPACITY, CAPACITY);
        }

        /** The loop's thread ends: its buffer goes back to the pool once the last holder releases it. */
        @Override
        protected void onRemoval(ByteBuf buffer) {
            buffer.release();
        }
    };

    private ReadBuffers() {
    }

    /**
     * A buffer for a read of up to {@code size} bytes, empty, on the calling event loop: the loop's own when nothing
     * holds it (with room for more than {@code size}), else a pooled one of {@code size}. The caller releases it
     * as any buffer it got from an allocator.
     */
    static ByteBuf take(int size) {
        ByteBuf own = LOOP.get();
        if (own.refCnt() == 1) {
            return own.clear().retain();
        }
        return ByteBufAllocator.DEFAULT.directBuffer(size);
    }

    /** Whether {@code frames} lie in the calling loop's own read buffer: a holder that keeps them long copies them. */
    public static boolean holds(ByteBuf frames) {
        ByteBuf own = LOOP.getIfExists();
        if (own == null || !frames.hasMemoryAddress()) {
            return false;
        }
        long offset = frames.memoryAddress() - own.memoryAddress();
        return offset >= 0 && offset < CAPACITY;
    }
}
