package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One typed message from a client, framed but not parsed: {@link #content()} is the whole message as it
 * arrived (type byte, length, body), a retained slice of the receive buffer. Forward it by writing
 * {@code content()} (ownership moves with the write); parse the few types the pooler must understand with
 * their message class ({@link Parse#decode}, {@link Bind#decode}, …) over {@link #body()}.
 */
public final class FrontendMessage extends DefaultByteBufHolder {
    public static final byte BIND = 'B';
    public static final byte CLOSE = 'C';
    public static final byte COPY_DATA = 'd';
    public static final byte COPY_DONE = 'c';
    public static final byte COPY_FAIL = 'f';
    public static final byte DESCRIBE = 'D';
    public static final byte EXECUTE = 'E';
    public static final byte FLUSH = 'H';
    public static final byte FUNCTION_CALL = 'F';
    public static final byte PARSE = 'P';
    /** PasswordMessage, SASLInitialResponse, SASLResponse and GSSResponse share this type; context tells them apart. */
    public static final byte PASSWORD = 'p';
    public static final byte QUERY = 'Q';
    public static final byte SYNC = 'S';
    public static final byte TERMINATE = 'X';
    /**
     * Not a message type of the protocol: more bytes of the streamed message before it, to pass on as they are
     * (see {@link FrontendMessageDecoder}); {@link #body()} means nothing for it.
     */
    public static final byte CONTINUATION = 0;
    /** The type byte and the int32 length in front of a message's body. */
    public static final int HEADER_LENGTH = Wire.HEADER_LENGTH;

    private final byte type;

    public FrontendMessage(byte type, ByteBuf frame) {
        super(frame);
        this.type = type;
    }

    public byte type() {
        return type;
    }

    /** The body without the five header bytes; a view that shares {@link #content()}'s reference count. */
    public ByteBuf body() {
        ByteBuf frame = content();
        return frame.slice(frame.readerIndex() + Wire.HEADER_LENGTH, frame.readableBytes() - Wire.HEADER_LENGTH);
    }

    @Override
    public FrontendMessage replace(ByteBuf content) {
        return new FrontendMessage(type, content);
    }

    @Override
    public FrontendMessage copy() {
        return replace(content().copy());
    }

    @Override
    public FrontendMessage duplicate() {
        return replace(content().duplicate());
    }

    @Override
    public FrontendMessage retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    @Override
    public FrontendMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public FrontendMessage retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public FrontendMessage touch() {
        super.touch();
        return this;
    }

    @Override
    public FrontendMessage touch(Object hint) {
        super.touch(hint);
        return this;
    }

    /** Type and size only: bodies can hold passwords and query parameters. */
    @Override
    public String toString() {
        return "FrontendMessage('" + (char) type + "', " + content().readableBytes() + " bytes)";
    }
}
