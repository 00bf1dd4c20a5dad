package io.pgmux.proxy.protocol;

import io.netty.handler.codec.DecoderException;

/**
 * The peer broke the wire protocol: a bad length, an unknown message type, a malformed body. The only
 * exception the decoders and message parsers throw for bad input. The connection cannot be trusted
 * afterwards; answer with {@link #toErrorResponse()} (FATAL 08P01, as PostgreSQL and PgBouncer do) and close.
 */
public final class ProtocolViolationException extends DecoderException {
    private static final long serialVersionUID = 1L;

    public ProtocolViolationException(String message) {
        super(message);
    }

    /** The FATAL 08P01 error to send to the peer before closing. */
    public ErrorResponse toErrorResponse() {
        return ErrorResponse.fatal(SqlState.PROTOCOL_VIOLATION, getMessage());
    }
}
