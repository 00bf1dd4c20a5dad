package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import java.util.ArrayList;
import java.util.List;

/**
 * One typed message from a client, framed but not parsed: {@link #content()} is the whole message as it
 * arrived (type byte, length, body), a retained slice of the receive buffer. Forward it by writing
 * {@code content()} (ownership moves with the write); parse the few types the pooler must understand with
 * their message class ({@link Parse#decode}, {@link Bind#decode}, …) over {@link #body()}.
 * <p>
 * A <em>run</em> is several complete messages of one read in one slice, forwarded with one write: the decoder
 * makes them only when asked to (see {@link FrontendMessageDecoder#relayRuns}). {@link #type()} is then the first
 * message's; {@link #isRun()} tells a reader to walk the frames of {@code content()} (each a type byte and an int32
 * length that counts itself), or to {@link #split()} the run where it needs one message at a time.
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
    private final boolean run;

    public FrontendMessage(byte type, ByteBuf frame) {
        this(type, frame, false);
    }

    /** A run of messages when {@code run}, the first of type {@code type}. */
    public FrontendMessage(byte type, ByteBuf frames, boolean run) {
        super(frames);
        this.type = type;
        this.run = run;
    }

    public byte type() {
        return type;
    }

    /** Whether {@link #content()} holds more than one message. */
    public boolean isRun() {
        return run;
    }

    /** Picks a message of a run by where it lies: its type byte at {@code start}, its end at {@code end}. */
    @FunctionalInterface
    public interface Picker {
        boolean picks(ByteBuf frames, int start, int end);
    }

    /** The run's messages one by one, each its own retained slice; the run is released. */
    public List<FrontendMessage> split() {
        return split((frames, start, end) -> true);
    }

    /**
     * The run cut around each message {@code alone} picks, the messages between staying together as (shorter) runs;
     * each piece its own retained slice; the run is released.
     */
    public List<FrontendMessage> split(Picker alone) {
        ByteBuf frames = content();
        List<FrontendMessage> pieces = new ArrayList<>();
        try {
            int piece = frames.readerIndex();
            int count = 0;
            for (int at = piece, end = frames.writerIndex(); at < end; ) {
                int next = at + 1 + frames.getInt(at + 1);
                if (alone.picks(frames, at, next)) {
                    if (count > 0) {
                        pieces.add(piece(frames, piece, at, count));
                    }
                    pieces.add(piece(frames, at, next, 1));
                    piece = next;
                    count = 0;
                } else {
                    count++;
                }
                at = next;
            }
            if (count > 0) {
                pieces.add(piece(frames, piece, frames.writerIndex(), count));
            }
        } finally {
            release();
        }
        return pieces;
    }

    private static FrontendMessage piece(ByteBuf frames, int start, int end, int messages) {
        return new FrontendMessage(frames.getByte(start), frames.retainedSlice(start, end - start), messages > 1);
    }

    /** The body without the five header bytes; a view that shares {@link #content()}'s reference count. */
    public ByteBuf body() {
        ByteBuf frame = content();
        return frame.slice(frame.readerIndex() + Wire.HEADER_LENGTH, frame.readableBytes() - Wire.HEADER_LENGTH);
    }

    @Override
    public FrontendMessage replace(ByteBuf content) {
        return new FrontendMessage(type, content, run);
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
        return "FrontendMessage('" + (char) type + "', " + content().readableBytes() + " bytes"
                + (run ? ", run)" : ")");
    }
}
