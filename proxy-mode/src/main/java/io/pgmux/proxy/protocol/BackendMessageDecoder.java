package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Splits what a server sends into {@link BackendMessage}s (type byte + int32 length), each a retained slice of
 * the receive buffer, so relaying to the client copies nothing. The length is checked against the maximum as
 * soon as the header is in. Before an SSLRequest is written, {@link #expectSslResponse()} makes the next byte
 * decode as the unframed {@link SslResponse}. A violation throws {@link ProtocolViolationException}; all later
 * input is discarded.
 * <p>
 * While {@link #relayRuns} says so, consecutive complete messages come out as one run (see
 * {@link BackendMessage}): a result of many rows is relayed with one write instead of one per row. A run ends
 * with a ReadyForQuery or ParameterStatus, the messages the server connection itself reads, so those are always
 * the last of theirs.
 */
public final class BackendMessageDecoder extends MessageCodec {
    /** A DataRow may hold a 1 GB field plus its framing. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = Integer.MAX_VALUE;

    private enum Phase { SSL_RESPONSE, MESSAGES, DISCARD }

    private final int maxMessageLength;
    private Phase phase = Phase.MESSAGES;
    private BooleanSupplier runs = () -> false;
    /** The holder every whole read is handed over in, once {@link #reuseHolder()} was called; null until then. */
    private BackendMessage holder;

    public BackendMessageDecoder() {
        this(DEFAULT_MAX_MESSAGE_LENGTH);
    }

    /** @param maxMessageLength the largest length field accepted (it counts itself and the body) */
    public BackendMessageDecoder(int maxMessageLength) {
        if (maxMessageLength < 4) {
            throw new IllegalArgumentException("maxMessageLength must be at least 4, not " + maxMessageLength);
        }
        this.maxMessageLength = maxMessageLength;
    }

    /** Asked before each message: whether it may start a run, true only while every reader walks runs. */
    public void relayRuns(BooleanSupplier whether) {
        this.runs = whether;
    }

    /**
     * From now on, a read that is one message or run (see {@link #channelRead}) is handed over in one holder this
     * decoder reuses, so that relaying a short answer allocates none: the reader gets a message valid during its
     * channelRead only, and keeps {@link BackendMessage#keep()} to use it later.
     */
    public void reuseHolder() {
        holder = new BackendMessage();
    }

    /** The next byte answers an SSLRequest: call before writing one. */
    public void expectSslResponse() {
        if (phase == Phase.MESSAGES) {
            phase = Phase.SSL_RESPONSE;
        }
    }

    /**
     * A read that holds exactly one message, or one run, with nothing left from the read before (a query's whole
     * answer, as a short one comes): passed on as it is, with no slice of it and no reference count taken and given
     * back. Anything else is framed as usual.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (phase == Phase.MESSAGES && msg instanceof ByteBuf in && !internalBuffer().isReadable()) {
            BackendMessage whole = whole(in);
            if (whole != null) {
                try {
                    passOn(ctx, whole);
                } finally {
                    if (whole == holder) {
                        // the buffer is the reader's now: the holder keeps no reference to it
                        holder.hold((byte) 0, Unpooled.EMPTY_BUFFER, 0);
                    }
                }
                return;
            }
        }
        super.channelRead(ctx, msg);
    }

    /** A server's answer sent before it hung up reaches its client, as over a channel. */
    @Override
    public boolean readsPastHangUp() {
        return true;
    }

    @Override
    public boolean frameRead(ByteBuf in, boolean fresh, List<Object> out) {
        if (fresh && phase == Phase.MESSAGES) {
            BackendMessage whole = whole(in);
            if (whole != null) {
                try {
                    passOn(null, whole);
                } catch (Throwable failure) {
                    failServed(failure);
                } finally {
                    if (whole == holder) {
                        holder.hold((byte) 0, Unpooled.EMPTY_BUFFER, 0);
                    }
                }
                return true;
            }
        }
        frameEach(in, out);
        return false;
    }

    /** The message or run {@code in} holds, ending where it ends; null when it holds anything else. */
    private BackendMessage whole(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int length = completeFrame(in, start, end, false);
        if (length < 0) {
            return null;
        }
        byte type = in.getByte(start);
        int last = start;
        int next = start + length;
        if (type != BackendMessage.READY_FOR_QUERY && type != BackendMessage.PARAMETER_STATUS
                && runs.getAsBoolean()) {
            while (next < end) {
                length = completeFrame(in, next, end, false);
                if (length < 0) {
                    return null;
                }
                last = next;
                next += length;
                type = in.getByte(last);
                if (type == BackendMessage.READY_FOR_QUERY || type == BackendMessage.PARAMETER_STATUS) {
                    break;
                }
            }
        }
        if (next != end) {
            return null;
        }
        return holder != null ? holder.hold(type, in, last - start) : new BackendMessage(type, in, last - start);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        switch (phase) {
            case SSL_RESPONSE -> decodeSslResponse(in, out);
            case MESSAGES -> decodeMessage(in, out);
            case DISCARD -> in.skipBytes(in.readableBytes());
        }
        handToServed(ctx, out);
    }

    /**
     * A server that does not know SSLRequest answers with a framed ErrorResponse instead, which is decoded as
     * a message. Bytes behind an {@code 'S'} were not protected by TLS (CVE-2021-23222) and are refused.
     */
    private void decodeSslResponse(ByteBuf in, List<Object> out) {
        byte code = in.getByte(in.readerIndex());
        if (code == BackendMessage.ERROR_RESPONSE) {
            phase = Phase.MESSAGES;
            decodeMessage(in, out);
            return;
        }
        SslResponse response;
        if (code == SslResponse.ACCEPTED.code()) {
            response = SslResponse.ACCEPTED;
        } else if (code == SslResponse.REJECTED.code()) {
            response = SslResponse.REJECTED;
        } else {
            throw violation(in, "invalid response to SSL negotiation: " + (code & 0xFF));
        }
        if (response == SslResponse.ACCEPTED && in.readableBytes() > 1) {
            throw violation(in, "received unencrypted data after SSL response");
        }
        in.skipBytes(1);
        phase = Phase.MESSAGES;
        out.add(response);
    }

    private void decodeMessage(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int frameLength = completeFrame(in, start, end, true);
        if (frameLength < 0) {
            return;
        }
        byte type = in.getByte(start);
        if (type == BackendMessage.READY_FOR_QUERY || type == BackendMessage.PARAMETER_STATUS
                || !runs.getAsBoolean()) {
            out.add(new BackendMessage(type, in.readRetainedSlice(frameLength)));
            return;
        }
        int last = start;
        int next = start + frameLength;
        while (true) {
            int length = completeFrame(in, next, end, false);
            if (length < 0) {
                break;
            }
            last = next;
            next += length;
            type = in.getByte(last);
            if (type == BackendMessage.READY_FOR_QUERY || type == BackendMessage.PARAMETER_STATUS) {
                break;
            }
        }
        out.add(new BackendMessage(type, in.readRetainedSlice(next - start), last - start));
    }

    /**
     * The length of the whole message (type byte included) at {@code at}, or -1 when it is not all in; a bad
     * length throws when {@code first}, else ends the run before it (the next call throws).
     */
    private int completeFrame(ByteBuf in, int at, int end, boolean first) {
        if (end - at < Wire.HEADER_LENGTH) {
            return -1;
        }
        int length = in.getInt(at + 1);
        if (length < 4 || length > maxMessageLength) {
            if (!first) {
                return -1;
            }
            throw violation(in, "invalid message length " + length + " for server message type "
                    + (in.getByte(at) & 0xFF) + " (limit " + maxMessageLength + ")");
        }
        return end - at - 1 < length ? -1 : length + 1;
    }

    private ProtocolViolationException violation(ByteBuf in, String message) {
        phase = Phase.DISCARD;
        in.skipBytes(in.readableBytes());
        return new ProtocolViolationException(message);
    }
}
