package io.pgmux.proxy.protocol;

import io.netty.handler.codec.DecoderException;

/**
 * The peer broke the wire protocol: a bad length, an unknown message type, a malformed body. The only
 * exception the decoders and message parsers throw for bad input. The connection cannot be trusted
 * afterwards; answer with {@link #toErrorResponse()} (FATAL 08P01, as PostgreSQL and PgBouncer do) and close.
 */
public final class ProtocolViolationException extends DecoderException {
    private static final long serialVersionUID = 1L;

    /** What exactly was wrong, when the message is PgBouncer's terse text; or null. */
    private final String detail;

    public ProtocolViolationException(String message) {
        this(message, null);
    }

    /** With PgBouncer's text as {@code message}, and what exactly was wrong as {@code detail}. */
    public ProtocolViolationException(String message, String detail) {
        super(message);
        this.detail = detail;
    }

    /** What exactly was wrong, or null. */
    public String detail() {
        return detail;
    }

    /** The FATAL 08P01 error to send to the peer before closing. */
    public ErrorResponse toErrorResponse() {
        ErrorResponse error = ErrorResponse.fatal(SqlState.PROTOCOL_VIOLATION, getMessage());
        return detail == null ? error : error.withDetail(detail);
    }
}
