package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * ErrorResponse: severity, SQLSTATE, message and the optional fields, keyed by their protocol field codes
 * ({@code 'S'}, {@code 'V'}, {@code 'C'}, {@code 'M'}, {@code 'D'}, {@code 'H'}, …). After a FATAL the
 * sender closes the connection; after an ERROR a ReadyForQuery follows.
 */
public final class ErrorResponse extends FieldMessage {
    public static final String FATAL = "FATAL";
    public static final String ERROR = "ERROR";
    public static final String PANIC = "PANIC";

    private ErrorResponse(Map<Character, String> fields) {
        super(BackendMessage.ERROR_RESPONSE, fields);
    }

    public static ErrorResponse fatal(String sqlState, String message) {
        return new ErrorResponse(NoticeFields.of(FATAL, sqlState, message));
    }

    public static ErrorResponse error(String sqlState, String message) {
        return new ErrorResponse(NoticeFields.of(ERROR, sqlState, message));
    }

    public static ErrorResponse decode(ByteBuf body) {
        return new ErrorResponse(NoticeFields.decode(body, "ErrorResponse"));
    }

    public ErrorResponse withDetail(String detail) {
        return new ErrorResponse(NoticeFields.with(fields, NoticeFields.DETAIL, detail));
    }

    public ErrorResponse withHint(String hint) {
        return new ErrorResponse(NoticeFields.with(fields, NoticeFields.HINT, hint));
    }

    public boolean isFatal() {
        return FATAL.equals(severity()) || PANIC.equals(severity());
    }
}
