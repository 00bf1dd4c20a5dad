package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * How large a buffer each read of a socket gets: Netty's adaptive rule (its {@code AdaptiveRecvByteBufAllocator}'s,
 * which this replaces) over sizes that are powers of two, from {@code minimum} up to {@code maximum}: four sizes up
 * after a read that filled its buffer, one size down after two read loops in a row that would have fit in the next
 * size down. Each socket keeps its state in one 40-byte handle; Netty's own handle is three objects of 112 bytes in
 * all, which every idle client held, a tenth of its Netty objects.
 */
final class ReceiveSizes implements MaxMessagesRecvByteBufAllocator {
    private static final int STEPS_UP = 4;
    private static final int SHIFT = 0x7f;
    private static final int SHRINK_NEXT = 0x80;

    private final int minimum;
    private final int maxShift;
    private volatile int maxMessagesPerRead = 16;

    /**
     * @param minimum the smallest buffer, a power of two of at least 1 KB
     * @param maximum the largest, a power of two not below {@code minimum}
     */
    ReceiveSizes(int minimum, int maximum) {
        if (Integer.bitCount(minimum) != 1 || minimum < 1024 || Integer.bitCount(maximum) != 1 || maximum < minimum) {
            throw new IllegalArgumentException("sizes must be powers of two, 1024 <= minimum <= maximum: " + minimum
                    + ", " + maximum);
        }
        this.minimum = minimum;
        this.maxShift = Integer.numberOfTrailingZeros(maximum) - Integer.numberOfTrailingZeros(minimum);
    }

    /** The size of the next read's buffer of a socket whose sizing state is {@code state}. */
    int size(byte state) {
        return minimum << (state & SHIFT);
    }

    /**
     * The sizing state after a read loop that read {@code bytes}, or a read that filled its buffer: four sizes up when
     * they filled the size, one down after the second loop in a row that would have fit in the size below.
     */
    byte next(byte state, int bytes) {
        int shift = state & SHIFT;
        int smaller = shift == 0 ? minimum >>> 1 : minimum << (shift - 1);
        if (bytes <= smaller) {
            return (byte) ((state & SHRINK_NEXT) != 0 ? Math.max(shift - 1, 0) : shift | SHRINK_NEXT);
        }
        if (bytes >= minimum << shift) {
            return (byte) Math.min(shift + STEPS_UP, maxShift);
        }
        return state;
    }

    @Override
    public Handle newHandle() {
        return new SizeHandle(this);
    }

    @Override
    public int maxMessagesPerRead() {
        return maxMessagesPerRead;
    }

    /** Reads per read loop while autoRead is on (Netty's {@code MAX_MESSAGES_PER_READ}); at most 32,767. */
    @Override
    public ReceiveSizes maxMessagesPerRead(int maxMessagesPerRead) {
        if (maxMessagesPerRead <= 0 || maxMessagesPerRead > Short.MAX_VALUE) {
            throw new IllegalArgumentException("maxMessagesPerRead: " + maxMessagesPerRead);
        }
        this.maxMessagesPerRead = maxMessagesPerRead;
        return this;
    }

    /** One socket's: the read loop's counts, and its next size with the pending step down in one byte. */
    private static final class SizeHandle implements RecvByteBufAllocator.ExtendedHandle {
        private final ReceiveSizes sizes;
        private ChannelConfig config;
        private int attempted;
        private int last;
        /** Bytes read in this loop; negative once past Integer.MAX_VALUE, as Netty's count. */
        private int total;
        private short reads;
        /** The next size's shift above the minimum, and {@link #SHRINK_NEXT} after one small loop. */
        private byte state;

        SizeHandle(ReceiveSizes sizes) {
            this.sizes = sizes;
        }

        @Override
        @SuppressWarnings("deprecation")
        public ByteBuf allocate(ByteBufAllocator alloc) {
            // the loop's own buffer when it is free (ReadBuffers): every socket of the loop reads into it in turn
            return ReadBuffers.take(guess());
        }

        @Override
        @SuppressWarnings("deprecation")
        public int guess() {
            return sizes.size(state);
        }

        @Override
        public void reset(ChannelConfig config) {
            this.config = config;
            reads = 0;
            total = 0;
        }

        @Override
        public void incMessagesRead(int messages) {
            reads = (short) Math.min(reads + messages, Short.MAX_VALUE);
        }

        @Override
        public void lastBytesRead(int bytes) {
            if (bytes == attempted) {
                // a full buffer: more may wait, so grow before the next read rather than after the loop
                record(bytes);
            }
            last = bytes;
            if (bytes > 0) {
                total += bytes;
            }
        }

        @Override
        public int lastBytesRead() {
            return last;
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            attempted = bytes;
        }

        @Override
        public int attemptedBytesRead() {
            return attempted;
        }

        @Override
        public boolean continueReading() {
            return config.isAutoRead() && attempted == last && reads < sizes.maxMessagesPerRead && total > 0;
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return config.isAutoRead() && maybeMoreDataSupplier.get() && reads < sizes.maxMessagesPerRead
                    && total > 0;
        }

        @Override
        public void readComplete() {
            record(total < 0 ? Integer.MAX_VALUE : total);
        }

        private void record(int bytes) {
            state = sizes.next(state, bytes);
        }
    }
}
