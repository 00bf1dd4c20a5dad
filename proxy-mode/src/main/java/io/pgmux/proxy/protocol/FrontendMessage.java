package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
 * <p>
 * A decoder that {@link FrontendMessageDecoder#reuseHolder reuses its holder} hands every read that is one message
 * or run over in the same holder, valid during the call that passes it on: a reader that keeps a message past it
 * (holds it for a server, keeps it to send again, hands it to another thread) keeps {@link #keep()}, a holder of its
 * own. Once the call returns, the decoder's holder holds a released buffer, so that a use it missed fails at once.
 */
public final class FrontendMessage extends FramedMessage<FrontendMessage> {
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

    /** What the decoder's holder holds between two calls: a released buffer, which nothing can read or release. */
    private static final ByteBuf PASSED_ON = releasedBuffer();

    private byte type;
    private boolean run;
    /** The decoder's holder, which {@link #keep()} copies. */
    private final boolean reused;

    public FrontendMessage(byte type, ByteBuf frame) {
        this(type, frame, false);
    }

    /** A run of messages when {@code run}, the first of type {@code type}. */
    public FrontendMessage(byte type, ByteBuf frames, boolean run) {
        this(type, frames, run, false);
    }

    private FrontendMessage(byte type, ByteBuf frames, boolean run, boolean reused) {
        super(frames);
        this.type = type;
        this.run = run;
        this.reused = reused;
    }

    /** The decoder's holder, holding nothing until {@link #hold}. */
    static FrontendMessage reusedHolder() {
        return new FrontendMessage(CONTINUATION, PASSED_ON, false, true);
    }

    /** The decoder's holder takes the next message or run (see {@link #FrontendMessage(byte, ByteBuf, boolean)}). */
    FrontendMessage hold(byte type, ByteBuf frames, boolean run) {
        this.type = type;
        this.frames = frames;
        this.run = run;
        return this;
    }

    /**
     * A holder of a reader's own that it reuses as the decoder reuses its holder, for messages it keeps past their call
     * ({@link #keepIn}), so that keeping one costs no holder: holding nothing until then.
     */
    public static FrontendMessage ownHolder() {
        return reusedHolder();
    }

    /**
     * A reused holder was passed on and the call it was passed on in returned: it no longer refers to the buffer, which
     * is the reader's, so that a use it missed fails at once; a reader's own holder may then take the next message.
     */
    public void passedOn() {
        hold(CONTINUATION, PASSED_ON, false);
    }

    private static ByteBuf releasedBuffer() {
        ByteBuf released = Unpooled.wrappedBuffer(new byte[1]);
        released.release();
        return released;
    }

    /**
     * A holder the reader may keep past the call that passed it (its content moves to it): a new one for the
     * decoder's reused holder, this one otherwise.
     */
    public FrontendMessage keep() {
        return reused ? new FrontendMessage(type, content(), run) : this;
    }

    /**
     * {@link #keep()}, into {@code own}, an {@link #ownHolder()} of the reader's that holds nothing, when this is a
     * reused holder (this one otherwise). The content moves to it as it is; {@code own} stays a reused holder, so that
     * whoever it is passed on to keeps it past that call with {@code keep()}, and its reader hands it back with
     * {@link #passedOn()} once the call it passed it on in returned.
     */
    public FrontendMessage keepIn(FrontendMessage own) {
        if (!reused) {
            return this;
        }
        if (!own.reused || own.frames != PASSED_ON || own == this) {
            throw new IllegalStateException("a holder that is not an own holder holding nothing: " + own);
        }
        return own.hold(type, content(), run);
    }

    /**
     * Moves a kept message's frames to a buffer of their own, a copy, and releases the one they lay in: a message
     * kept for long would otherwise keep a whole read's buffer, shared with what else that read brought, from being
     * used again. Only for a holder the caller keeps ({@link #keep()}, {@link #keepIn}).
     */
    public void detach() {
        ByteBuf shared = content();
        int bytes = shared.readableBytes();
        ByteBuf own = shared.alloc().directBuffer(bytes);
        own.writeBytes(shared, shared.readerIndex(), bytes);
        frames = own;
        shared.release();
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

    /** Type and size only: bodies can hold passwords and query parameters. */
    @Override
    public String toString() {
        return "FrontendMessage('" + (char) type + "', " + frames.readableBytes() + " bytes"
                + (run ? ", run)" : ")");
    }
}
