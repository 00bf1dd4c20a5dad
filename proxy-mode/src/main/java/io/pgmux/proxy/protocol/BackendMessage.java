package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * One typed message from a server, framed but not parsed: {@link #content()} is the whole message as it
 * arrived (type byte, length, body), a retained slice of the receive buffer. Relay it by writing
 * {@code content()} (ownership moves with the write); parse the few types the pooler must understand with
 * their message class ({@link ReadyForQuery#decode}, {@link ErrorResponse#decode}, …) over {@link #body()}.
 * <p>
 * A <em>run</em> is several consecutive messages in one slice, so that a result relays with one write: the
 * decoder makes them only when asked to (see {@link BackendMessageDecoder#relayRuns}). {@link #type()} and
 * {@link #body()} are then the last message's; {@link #isRun()} tells a reader that needs to see every message
 * to walk the frames of {@code content()} (each a type byte and an int32 length that counts itself).
 * <p>
 * A decoder that {@link BackendMessageDecoder#reuseHolder reuses its holder} hands every read that is one message
 * or run over in the same holder, valid during the call that passes it on: a reader that keeps a message past it
 * (hands it to another thread) keeps {@link #keep()}, a holder of its own.
 */
public final class BackendMessage extends FramedMessage<BackendMessage> {
    public static final byte AUTHENTICATION = 'R';
    public static final byte BACKEND_KEY_DATA = 'K';
    public static final byte BIND_COMPLETE = '2';
    public static final byte CLOSE_COMPLETE = '3';
    public static final byte COMMAND_COMPLETE = 'C';
    public static final byte COPY_BOTH_RESPONSE = 'W';
    public static final byte COPY_DATA = 'd';
    public static final byte COPY_DONE = 'c';
    public static final byte COPY_IN_RESPONSE = 'G';
    public static final byte COPY_OUT_RESPONSE = 'H';
    public static final byte DATA_ROW = 'D';
    public static final byte EMPTY_QUERY_RESPONSE = 'I';
    public static final byte ERROR_RESPONSE = 'E';
    public static final byte FUNCTION_CALL_RESPONSE = 'V';
    public static final byte NEGOTIATE_PROTOCOL_VERSION = 'v';
    public static final byte NO_DATA = 'n';
    public static final byte NOTICE_RESPONSE = 'N';
    public static final byte NOTIFICATION_RESPONSE = 'A';
    public static final byte PARAMETER_DESCRIPTION = 't';
    public static final byte PARAMETER_STATUS = 'S';
    public static final byte PARSE_COMPLETE = '1';
    public static final byte PORTAL_SUSPENDED = 's';
    public static final byte READY_FOR_QUERY = 'Z';
    public static final byte ROW_DESCRIPTION = 'T';

    private byte type;
    /** Where the last message starts, from content()'s reader index; 0 for a single message. */
    private int lastOffset;

    public BackendMessage(byte type, ByteBuf frame) {
        this(type, frame, 0);
    }

    /** A run whose last message, of type {@code type}, starts {@code lastOffset} bytes into {@code frames}. */
    public BackendMessage(byte type, ByteBuf frames, int lastOffset) {
        super(frames);
        this.type = type;
        this.lastOffset = lastOffset;
    }

    /** The decoder's holder, empty until {@link #hold}. */
    BackendMessage() {
        this((byte) 0, Unpooled.EMPTY_BUFFER, 0);
    }

    /** The decoder's holder takes the next message or run (see {@link #BackendMessage(byte, ByteBuf, int)}). */
    BackendMessage hold(byte type, ByteBuf frames, int lastOffset) {
        this.type = type;
        this.frames = frames;
        this.lastOffset = lastOffset;
        return this;
    }

    /** A holder of its own for the message (its content moves to it), for a reader that keeps it past the call. */
    public BackendMessage keep() {
        return new BackendMessage(type, frames, lastOffset);
    }

    public byte type() {
        return type;
    }

    /** Whether {@link #content()} holds more than one message. */
    public boolean isRun() {
        return lastOffset != 0;
    }

    /** Where the last message starts, counted from {@code content()}'s reader index: 0 for a single message. */
    public int lastOffset() {
        return lastOffset;
    }

    /**
     * The (last) message's body without its five header bytes; a view that shares {@link #content()}'s
     * reference count.
     */
    public ByteBuf body() {
        ByteBuf frames = content();
        int start = frames.readerIndex() + lastOffset + Wire.HEADER_LENGTH;
        return frames.slice(start, frames.writerIndex() - start);
    }

    @Override
    public BackendMessage replace(ByteBuf content) {
        return new BackendMessage(type, content, lastOffset);
    }

    /** Type and size only: bodies can hold passwords and query parameters. */
    @Override
    public String toString() {
        return "BackendMessage('" + (char) type + "', " + content().readableBytes() + " bytes"
                + (isRun() ? ", run)" : ")");
    }
}
