package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Frames what a client sends, in three phases:
 * <ol>
 *   <li><b>startup</b>: untyped, length-prefixed packets, decoded to {@link StartupMessage}, {@link SslRequest},
 *       {@link GssEncRequest} or {@link CancelRequest}. After SSLRequest/GSSENCRequest the phase stays, since
 *       the client sends another startup packet once answered: write {@link SslResponse#ACCEPTED} and add the
 *       {@code SslHandler} in front of this decoder, or write {@link SslResponse#REJECTED} and carry on in
 *       plain text. After StartupMessage comes login.</li>
 *   <li><b>login</b>: typed messages, only {@code 'p'} (password/SASL) and {@code 'X'}, at most
 *       {@link #MAX_LOGIN_MESSAGE_LENGTH} long, so an unauthenticated peer cannot make us buffer much.
 *       The handler calls {@link #loginComplete()} when authentication succeeds.</li>
 *   <li><b>ready</b>: typed messages of any frontend type but password up to the configured maximum, passed on as
 *       {@link FrontendMessage} holding a retained slice of the whole message (no copy). Once
 *       {@link #streamLargeMessages()} was called, a Query, FunctionCall or CopyData longer than
 *       {@link #STREAM_THRESHOLD} whose end is not in yet is passed on in pieces as its bytes arrive, as
 *       PgBouncer streams large packets: its start (header included) under its own type, the rest as
 *       {@link FrontendMessage#CONTINUATION}s, so a client declaring a huge message makes the proxy hold no more
 *       than what one read brings. While {@link #relayRuns} says so, consecutive complete Parse, Bind, Describe,
 *       Execute and Sync messages come out as one run (see {@link FrontendMessage}): an extended-protocol batch
 *       is forwarded with one write instead of one per message.</li>
 * </ol>
 * Every length is checked against its limit as soon as the header is in, before any body byte is waited
 * for; Flush, Sync, CopyDone and Terminate must have no body. A violation throws {@link ProtocolViolationException} (which travels to {@code exceptionCaught}) with
 * PgBouncer 1.25's text ({@code bad packet header: '…'}, {@code unknown pkt}, …) and the exact reason as its
 * detail; from then on, and after a CancelRequest, all further input is discarded. What the pooler writes to the
 * client it encodes ({@link MessageCodec}).
 */
public final class FrontendMessageDecoder extends MessageCodec {
    /** PostgreSQL's MAX_STARTUP_PACKET_LENGTH. */
    public static final int MAX_STARTUP_PACKET_LENGTH = 10_000;
    /**
     * The bound on authentication messages: twice PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH, so that a password longer
     * than any user has (PgBouncer stores up to 65530 bytes) is read and refused as a wrong one, as PgBouncer
     * refuses it, rather than as a bad packet.
     */
    public static final int MAX_LOGIN_MESSAGE_LENGTH = 2 * 65_535;
    /** PostgreSQL's PQ_LARGE_MESSAGE_LIMIT: the largest message a server accepts. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 0x3FFF_FFFE;
    /** Messages longer than this (PgBouncer's default pkt_buf times 16) may be streamed once logged in. */
    public static final int STREAM_THRESHOLD = 64 * 1024;

    private static final int V2_PROTOCOL = 2 << 16;
    /** PgBouncer shows at most this many bytes of a header it cannot read. */
    private static final int SHOWN_HEADER_BYTES = 8;
    private static final boolean[] FRONTEND_TYPES = new boolean[256];
    /**
     * Types whose only valid length is 4. PostgreSQL answers a Flush with a body with an error and then ignores
     * everything until a Sync, which the relay could not know: the next client of that server would hang.
     */
    private static final boolean[] BODILESS_TYPES = new boolean[256];
    /** The types a run may hold: requests of the extended protocol the relay reads in place. */
    private static final boolean[] RUN_TYPES = new boolean[256];

    static {
        for (byte type : new byte[] {
                FrontendMessage.BIND, FrontendMessage.CLOSE, FrontendMessage.COPY_DATA, FrontendMessage.COPY_DONE,
                FrontendMessage.COPY_FAIL, FrontendMessage.DESCRIBE, FrontendMessage.EXECUTE, FrontendMessage.FLUSH,
                FrontendMessage.FUNCTION_CALL, FrontendMessage.PARSE, FrontendMessage.PASSWORD,
                FrontendMessage.QUERY, FrontendMessage.SYNC, FrontendMessage.TERMINATE}) {
            FRONTEND_TYPES[type & 0xFF] = true;
        }
        for (byte type : new byte[] {
                FrontendMessage.FLUSH, FrontendMessage.SYNC, FrontendMessage.COPY_DONE, FrontendMessage.TERMINATE}) {
            BODILESS_TYPES[type & 0xFF] = true;
        }
        for (byte type : new byte[] {
                FrontendMessage.PARSE, FrontendMessage.BIND, FrontendMessage.DESCRIBE, FrontendMessage.EXECUTE,
                FrontendMessage.SYNC}) {
            RUN_TYPES[type & 0xFF] = true;
        }
    }

    // the phases, as bytes rather than an enum: the field is one byte of every idle client's decoder, not four
    private static final byte STARTUP = 0;
    private static final byte LOGIN = 1;
    private static final byte READY = 2;
    private static final byte DISCARD = 3;

    private final int maxMessageLength;
    private byte phase = STARTUP;
    private boolean streaming;
    /** Bytes of the message being streamed that are still to come. */
    private int streamRemaining;
    private BooleanSupplier runs = () -> false;
    /**
     * The holder every whole read is handed over in, once {@link #reuseHolder()} was called; null until then, and
     * while it is being passed on, so that a read that comes meanwhile gets a holder of its own.
     */
    private FrontendMessage holder;
    /** A read is being framed message by message: a message handed over may have more of its read after it. */
    private boolean framing;
    /** The bytes {@link #frameRead} frames, for {@link #readGoesOn}; null outside it. */
    private ByteBuf framedRead;

    public FrontendMessageDecoder() {
        this(DEFAULT_MAX_MESSAGE_LENGTH);
    }

    /** @param maxMessageLength the largest length field accepted once logged in (it counts itself and the body) */
    public FrontendMessageDecoder(int maxMessageLength) {
        if (maxMessageLength < 4) {
            throw new IllegalArgumentException("maxMessageLength must be at least 4, not " + maxMessageLength);
        }
        this.maxMessageLength = maxMessageLength;
    }

    /** Authentication succeeded: accept every message type up to the configured maximum from now on. */
    public void loginComplete() {
        if (phase == LOGIN) {
            phase = READY;
        }
    }

    /**
     * The messages go to a server as they are (a pool client, not the admin console): large ones may be passed on
     * in pieces from now on.
     */
    public void streamLargeMessages() {
        streaming = true;
    }

    /** Asked before each message once logged in: whether it may start a run, true only while the reader walks runs. */
    public void relayRuns(BooleanSupplier whether) {
        this.runs = whether;
    }

    /**
     * From now on, a read that is one message or run (see {@link #channelRead}) is handed over in one holder this
     * decoder reuses, so that relaying a request allocates none: the reader gets a message valid during its
     * channelRead only, and keeps {@link FrontendMessage#keep()} to use it later.
     */
    public void reuseHolder() {
        holder = FrontendMessage.reusedHolder();
    }

    /**
     * A read that holds exactly one message, or one run, with nothing left from the read before (a client's request
     * and its answer, turn by turn): passed on as it is, with no slice of it and no reference count taken and given
     * back. Anything else is framed as usual.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (phase == READY && streamRemaining == 0 && msg instanceof ByteBuf in && !internalBuffer().isReadable()) {
            FrontendMessage whole = whole(in);
            if (whole == null) {
                frame(ctx, msg);
            } else {
                passWhole(ctx, whole);
            }
            return;
        }
        frame(ctx, msg);
    }

    private void passWhole(ChannelHandlerContext ctx, FrontendMessage whole) {
        if (whole != holder) {
            passOn(ctx, whole);
            return;
        }
        holder = null;
        try {
            passOn(ctx, whole);
        } finally {
            // the buffer is the reader's now: a reader that kept the holder itself fails when it uses it
            whole.passedOn();
            holder = whole;
        }
    }

    @Override
    public boolean frameRead(ByteBuf in, boolean fresh, List<Object> out) {
        if (fresh && phase == READY && streamRemaining == 0) {
            FrontendMessage whole = whole(in);
            if (whole != null) {
                try {
                    passWhole(null, whole);
                } catch (Throwable failure) {
                    failServed(failure);
                }
                return true;
            }
        }
        framing = true;
        framedRead = in;
        try {
            frameEach(in, out);
        } finally {
            framing = false;
            framedRead = null;
        }
        return false;
    }

    private void frame(ChannelHandlerContext ctx, Object msg) throws Exception {
        framing = true;
        try {
            super.channelRead(ctx, msg);
        } finally {
            framing = false;
        }
    }

    /**
     * Whether bytes of the read being framed follow the message being handed over: the messages they complete reach
     * the reader before the read's {@code channelReadComplete}. False outside a read, for the read's last message,
     * and for a read handed over whole.
     */
    public boolean readGoesOn() {
        return framing && (framedRead != null ? framedRead : internalBuffer()).isReadable();
    }

    /** The message or run {@code in} holds, ending where it ends; null when it holds anything else. */
    private FrontendMessage whole(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        if (end - start < Wire.HEADER_LENGTH) {
            return null;
        }
        byte type = in.getByte(start);
        int length = in.getInt(start + 1);
        if (length < 4 || length > maxMessageLength || !FRONTEND_TYPES[type & 0xFF] || type == FrontendMessage.PASSWORD
                || length != 4 && BODILESS_TYPES[type & 0xFF] || end - start - 1 < length) {
            return null;
        }
        int next = start + length + 1;
        boolean run = next != end;
        if (run && !(RUN_TYPES[type & 0xFF] && runs.getAsBoolean() && runEnd(in, next, end, maxMessageLength) == end)) {
            return null;
        }
        return holder != null ? holder.hold(type, in, run) : new FrontendMessage(type, in, run);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        switch (phase) {
            case STARTUP -> decodeStartupPacket(in, out);
            case LOGIN -> decodeMessage(in, out, Math.min(MAX_LOGIN_MESSAGE_LENGTH, maxMessageLength));
            case READY -> {
                if (streamRemaining > 0) {
                    decodeContinuation(in, out);
                } else {
                    decodeMessage(in, out, maxMessageLength);
                }
            }
            case DISCARD -> in.skipBytes(in.readableBytes());
        }
        handToServed(ctx, out);
    }

    private void decodeStartupPacket(ByteBuf in, List<Object> out) {
        if (in.readableBytes() < 4) {
            return;
        }
        int start = in.readerIndex();
        if (in.getByte(start) != 0) {
            refuseTypedMessageAtStartup(in);
            return;
        }
        int length = in.getInt(start);
        if (length < 8 || length > MAX_STARTUP_PACKET_LENGTH) {
            throw badHeader(in, "invalid length of startup packet");
        }
        if (in.readableBytes() < 8) {
            return;
        }
        int code = in.getInt(start + 4);
        int major = code >>> 16;
        if (code != SslRequest.CODE && code != GssEncRequest.CODE && code != CancelRequest.CODE
                && code != V2_PROTOCOL && major != 3) {
            throw badHeader(in, "unsupported frontend protocol " + major + "." + (code & 0xFFFF)
                    + ": server supports 3.0 to 3.2");
        }
        if (in.readableBytes() < length) {
            return;
        }
        ByteBuf body = in.slice(start + 8, length - 8);
        Object message;
        try {
            message = switch (code) {
                case SslRequest.CODE -> encryptionRequest(in, length, SslRequest.INSTANCE, "SSL request");
                case GssEncRequest.CODE -> encryptionRequest(in, length, GssEncRequest.INSTANCE,
                        "GSSAPI encryption request");
                case CancelRequest.CODE -> cancelRequest(body);
                default -> startupMessage(code, body);
            };
        } catch (ProtocolViolationException e) {
            throw violation(in, e.getMessage());
        }
        in.skipBytes(length);
        out.add(message);
    }

    /**
     * A typed message where a startup packet belongs. PgBouncer names a password message; anything else it would
     * buffer up to max_packet_size before closing without a word, where this refuses it at once.
     */
    private void refuseTypedMessageAtStartup(ByteBuf in) {
        if (in.readableBytes() < Wire.HEADER_LENGTH) {
            return;
        }
        int start = in.readerIndex();
        int length = in.getInt(start + 1);
        if (in.getByte(start) == FrontendMessage.PASSWORD && length >= 4 && length <= MAX_LOGIN_MESSAGE_LENGTH) {
            throw violation(in, "client password pkt before startup packet");
        }
        throw badHeader(in, "expected a startup packet");
    }

    /**
     * Anything already buffered behind an SSLRequest was sent before the client saw our answer: bytes that would
     * bypass TLS once the handshake starts (CVE-2021-23214), so it is refused, in PgBouncer's words.
     */
    private Object encryptionRequest(ByteBuf in, int length, Object request, String name) {
        if (length != 8) {
            throw new ProtocolViolationException("invalid length of " + request + " packet");
        }
        if (in.readableBytes() > length) {
            throw new ProtocolViolationException("received unencrypted data after " + name);
        }
        return request;
    }

    private Object cancelRequest(ByteBuf body) {
        int keyLength = body.readableBytes() - 4;
        if (keyLength < BackendKeyData.KEY_LENGTH_3_0 || keyLength > BackendKeyData.MAX_KEY_LENGTH) {
            throw new ProtocolViolationException("invalid length of cancel request packet");
        }
        int processId = body.readInt();
        byte[] key = new byte[keyLength];
        body.readBytes(key);
        phase = DISCARD;
        return new CancelRequest(processId, key);
    }

    private Object startupMessage(int protocolVersion, ByteBuf body) {
        if (protocolVersion == V2_PROTOCOL) {
            throw new ProtocolViolationException("old V2 protocol not supported");
        }
        StartupMessage message = StartupMessage.decode(protocolVersion, body);
        phase = LOGIN;
        return message;
    }

    private void decodeMessage(ByteBuf in, List<Object> out, int limit) {
        if (in.readableBytes() < Wire.HEADER_LENGTH) {
            return;
        }
        int start = in.readerIndex();
        byte type = in.getByte(start);
        if (type == 0 && phase == LOGIN) {
            throw violation(in, "client re-sent startup pkt");
        }
        int length = in.getInt(start + 1);
        if (length < 4 || length > limit) {
            throw badHeader(in, "invalid message length " + length
                    + " for message type " + (type & 0xFF) + " (limit " + limit + ")");
        }
        // a password message has no meaning once logged in: PgBouncer refuses it, where a server would end the
        // session and the pooler lose that server connection
        if (!FRONTEND_TYPES[type & 0xFF] || phase == READY && type == FrontendMessage.PASSWORD) {
            throw violation(in, "unknown pkt", "invalid frontend message type " + (type & 0xFF));
        }
        if (phase == LOGIN && type != FrontendMessage.PASSWORD && type != FrontendMessage.TERMINATE) {
            throw violation(in, "expected password response, got message type " + (type & 0xFF));
        }
        if (length != 4 && BODILESS_TYPES[type & 0xFF]) {
            throw badHeader(in, "invalid message length " + length + " for message type " + (type & 0xFF)
                    + ", which has no body");
        }
        int available = in.readableBytes();
        if (available - 1 < length) {
            if (streams(type, length)) {
                streamRemaining = length + 1 - available;
                out.add(new FrontendMessage(type, in.readRetainedSlice(available)));
            }
            return;
        }
        int next = start + length + 1;
        if (phase == READY && RUN_TYPES[type & 0xFF] && runs.getAsBoolean()) {
            int end = runEnd(in, next, in.writerIndex(), limit);
            if (end > next) {
                out.add(new FrontendMessage(type, in.readRetainedSlice(end - start), true));
                return;
            }
        }
        out.add(new FrontendMessage(type, in.readRetainedSlice(length + 1)));
    }

    /**
     * Where a run that goes on at {@code at} ends: before the first message that is not all in, not of a run's type
     * or of a bad length (the next call refuses that one as usual).
     */
    private static int runEnd(ByteBuf in, int at, int end, int limit) {
        while (end - at >= Wire.HEADER_LENGTH) {
            int type = in.getByte(at) & 0xFF;
            int length = in.getInt(at + 1);
            if (!RUN_TYPES[type] || length < 4 || length > limit || length != 4 && BODILESS_TYPES[type]
                    || end - at - 1 < length) {
                break;
            }
            at += length + 1;
        }
        return at;
    }

    /** Only messages the pooler passes on unread may go in pieces. */
    private boolean streams(byte type, int length) {
        return streaming && phase == READY && length > STREAM_THRESHOLD
                && (type == FrontendMessage.QUERY || type == FrontendMessage.COPY_DATA
                        || type == FrontendMessage.FUNCTION_CALL);
    }

    private void decodeContinuation(ByteBuf in, List<Object> out) {
        if (!in.isReadable()) {
            return;
        }
        int piece = Math.min(in.readableBytes(), streamRemaining);
        streamRemaining -= piece;
        out.add(new FrontendMessage(FrontendMessage.CONTINUATION, in.readRetainedSlice(piece)));
    }

    private ProtocolViolationException violation(ByteBuf in, String message) {
        return violation(in, message, null);
    }

    private ProtocolViolationException violation(ByteBuf in, String message, String detail) {
        phase = DISCARD;
        in.skipBytes(in.readableBytes());
        return new ProtocolViolationException(message, detail);
    }

    /** PgBouncer's refusal of a header it cannot read, showing its first bytes in hex; {@code detail} says why. */
    private ProtocolViolationException badHeader(ByteBuf in, String detail) {
        String shown = ByteBufUtil.hexDump(in, in.readerIndex(), Math.min(SHOWN_HEADER_BYTES, in.readableBytes()));
        return violation(in, "bad packet header: '" + shown + "'", detail);
    }
}
