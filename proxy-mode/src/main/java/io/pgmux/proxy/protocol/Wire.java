package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/** Bounds-checked reads and the framing arithmetic every message class shares. */
final class Wire {
    /** Type byte plus the int32 length. */
    static final int HEADER_LENGTH = 5;

    private Wire() {
    }

    /** Reads a NUL-terminated UTF-8 string; a missing terminator is a protocol violation, never an index error. */
    static String readCString(ByteBuf in, String what) {
        int nul = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        if (nul < 0) {
            throw new ProtocolViolationException("invalid message format: unterminated " + what);
        }
        String value = in.toString(in.readerIndex(), nul - in.readerIndex(), StandardCharsets.UTF_8);
        in.readerIndex(nul + 1);
        return value;
    }

    static int readInt(ByteBuf in, String what) {
        if (in.readableBytes() < 4) {
            throw new ProtocolViolationException("invalid message format: truncated " + what);
        }
        return in.readInt();
    }

    static short readShort(ByteBuf in, String what) {
        if (in.readableBytes() < 2) {
            throw new ProtocolViolationException("invalid message format: truncated " + what);
        }
        return in.readShort();
    }

    static byte readByte(ByteBuf in, String what) {
        if (!in.isReadable()) {
            throw new ProtocolViolationException("invalid message format: truncated " + what);
        }
        return in.readByte();
    }

    static byte[] readBytes(ByteBuf in, int length, String what) {
        if (length < 0 || in.readableBytes() < length) {
            throw new ProtocolViolationException("invalid message format: truncated " + what);
        }
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }

    static byte[] readRemaining(ByteBuf in) {
        return readBytes(in, in.readableBytes(), "data");
    }

    /** PostgreSQL's pq_getmsgend: a message with bytes left over is malformed. */
    static void expectEnd(ByteBuf in, String message) {
        if (in.isReadable()) {
            throw new ProtocolViolationException("invalid message format: trailing bytes in " + message);
        }
    }

    static void writeCString(ByteBuf out, String value) {
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a protocol string cannot contain a NUL character");
        }
        ByteBufUtil.writeUtf8(out, value);
        out.writeByte(0);
    }

    /** Writes the type byte and a placeholder length; returns where the length goes. */
    static int beginMessage(ByteBuf out, byte type) {
        out.writeByte(type);
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        return lengthIndex;
    }

    /** Fills in the length written by {@link #beginMessage}: it counts itself and the body, not the type. */
    static void endMessage(ByteBuf out, int lengthIndex) {
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex);
    }

    static void writeEmptyMessage(ByteBuf out, byte type) {
        out.writeByte(type);
        out.writeInt(4);
    }

    /**
     * What a renamed message may hold beyond its leading strings for the whole to be copied into one buffer: below
     * it a copy costs less than a composite buffer, which the native transports write through a JDK ByteBuffer per
     * component and an array of them, each made anew per write.
     */
    private static final int COPIED_REST_LIMIT = 8 * 1024;

    /**
     * Appends {@code length} bytes of {@code from} at {@code index} to {@code to}, read from one into the other rather
     * than written from one to the other: the adaptive allocator's buffers take another buffer's bytes through a JDK
     * ByteBuffer made for each of them.
     */
    static ByteBuf copy(ByteBuf from, int index, int length, ByteBuf to) {
        to.ensureWritable(length);
        from.getBytes(index, to, to.writerIndex(), length);
        return to.writerIndex(to.writerIndex() + length);
    }

    /**
     * A copy of {@code frame} (a whole typed message) with its {@code fieldIndex}-th leading C string replaced.
     * Only the header and the leading strings are written anew; the rest is copied when short, else a retained
     * slice of the original, so parameters and query text are forwarded byte for byte. The caller still owns
     * {@code frame}.
     */
    static ByteBuf replaceLeadingCString(ByteBufAllocator alloc, ByteBuf frame, int fieldIndex, String value) {
        int start = frame.readerIndex();
        int bodyStart = start + HEADER_LENGTH;
        int end = frame.writerIndex();
        int fieldStart = bodyStart;
        for (int i = 0; i < fieldIndex; i++) {
            int nul = frame.indexOf(fieldStart, end, (byte) 0);
            if (nul < 0) {
                throw new ProtocolViolationException("invalid message format: unterminated string");
            }
            fieldStart = nul + 1;
        }
        int fieldEnd = frame.indexOf(fieldStart, end, (byte) 0);
        if (fieldEnd < 0) {
            throw new ProtocolViolationException("invalid message format: unterminated string");
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a protocol string cannot contain a NUL character");
        }
        int restLength = end - fieldEnd - 1;
        boolean copied = restLength <= COPIED_REST_LIMIT;
        ByteBuf head = alloc.buffer(HEADER_LENGTH + (fieldStart - bodyStart) + ByteBufUtil.utf8MaxBytes(value) + 1
                + (copied ? restLength : 0));
        head.writeByte(frame.getByte(start));
        head.writeInt(0);
        copy(frame, bodyStart, fieldStart - bodyStart, head);
        writeCString(head, value);
        head.setInt(1, head.readableBytes() - 1 + restLength);
        if (copied) {
            return copy(frame, fieldEnd + 1, restLength, head);
        }
        return alloc.compositeBuffer(2).addComponents(true, head, frame.retainedSlice(fieldEnd + 1, restLength));
    }
}
