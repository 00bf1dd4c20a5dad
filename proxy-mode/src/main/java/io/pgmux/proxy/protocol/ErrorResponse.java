package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * ErrorResponse: severity, SQLSTATE, message and the optional fields, keyed by their protocol field codes
 * ({@code 'S'}, {@code 'V'}, {@code 'C'}, {@code 'M'}, {@code 'D'}, {@code 'H'}, …). After a FATAL the
 * sender closes the connection; after an ERROR a ReadyForQuery follows.
 */
public final class ErrorResponse implements EncodableMessage {
    public static final String FATAL = "FATAL";
    public static final String ERROR = "ERROR";
    public static final String PANIC = "PANIC";

    private final Map<Character, String> fields;

    private ErrorResponse(Map<Character, String> fields) {
        this.fields = fields;
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

    /** FATAL, PANIC, ERROR; the untranslated {@code 'V'} field when present. */
    public String severity() {
        return NoticeFields.severity(fields);
    }

    public boolean isFatal() {
        return FATAL.equals(severity()) || PANIC.equals(severity());
    }

    public String sqlState() {
        return fields.get(NoticeFields.CODE);
    }

    public String message() {
        return fields.get(NoticeFields.MESSAGE);
    }

    /** Null when absent. */
    public String detail() {
        return fields.get(NoticeFields.DETAIL);
    }

    /** Null when absent. */
    public String hint() {
        return fields.get(NoticeFields.HINT);
    }

    /** Every field, in the order received, keyed by protocol field code. */
    public Map<Character, String> fields() {
        return fields;
    }

    @Override
    public void encode(ByteBuf out) {
        NoticeFields.encode(out, BackendMessage.ERROR_RESPONSE, fields);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ErrorResponse other && other.fields.equals(fields);
    }

    @Override
    public int hashCode() {
        return fields.hashCode();
    }

    @Override
    public String toString() {
        return severity() + " " + sqlState() + " " + message();
    }
}
