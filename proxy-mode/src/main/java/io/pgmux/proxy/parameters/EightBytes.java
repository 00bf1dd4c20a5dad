package io.pgmux.proxy.parameters;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of a text read as one long, for looks that test eight positions at once: the byte at a position is the
 * long's lowest, the next one above it, and a long with a byte in every place marks which of eight bytes match it.
 */
public final class EightBytes {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101_0101_0101_0101L;
    /** OR-ed into a letter, gives its lower case; only the letter's two cases give that byte. */
    private static final long CASE = ONES * 0x20;

    private EightBytes() {
    }

    /** The bytes of {@code text} from {@code at} to {@code at + 7}. */
    public static long at(byte[] text, int at) {
        return (long) LONGS.get(text, at);
    }

    /** The same with each letter in lower case (and other bytes with 0x20 set, which matches no letter). */
    public static long lowerAt(byte[] text, int at) {
        return (long) LONGS.get(text, at) | CASE;
    }

    /** {@code b} in each of the eight places. */
    public static long each(char b) {
        return ONES * b;
    }

    /**
     * A flag (0x80) in each byte of {@code word} that is zero, and maybe in bytes above one that is: the lowest flag
     * always marks a zero byte.
     */
    public static long zeroBytes(long word) {
        return (word - ONES) & ~word & (ONES << 7);
    }
}
