package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * A Query's or Parse's bytes copied once into an array of its event loop's, so that the scans the relay runs over
 * the text (the pin check, the settings scan) read an array rather than the buffer byte by byte, each read through
 * the buffer's bounds check and its kind's accessor.
 */
final class MessageText {
    /** Longer messages are scanned in their buffer. */
    static final int MAX_LENGTH = 8 * 1024;

    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[MAX_LENGTH];
        }
    };

    private MessageText() {
    }

    /**
     * The bytes of {@code frames} from {@code start} to {@code end} at the start of this thread's array, valid until
     * the thread's next call; null when they are longer than {@link #MAX_LENGTH}.
     */
    static byte[] copy(ByteBuf frames, int start, int end) {
        int length = end - start;
        if (length > MAX_LENGTH) {
            return null;
        }
        byte[] bytes = SCRATCH.get();
        frames.getBytes(start, bytes, 0, length);
        return bytes;
    }
}
