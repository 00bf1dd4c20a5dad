package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * NoticeResponse: a message that does not end the command (WARNING, NOTICE, INFO, LOG, DEBUG), with the same
 * fields as an ErrorResponse.
 */
public final class NoticeResponse implements EncodableMessage {
    public static final String WARNING = "WARNING";
    public static final String NOTICE = "NOTICE";

    private final Map<Character, String> fields;

    private NoticeResponse(Map<Character, String> fields) {
        this.fields = fields;
    }

    public static NoticeResponse warning(String sqlState, String message) {
        return new NoticeResponse(NoticeFields.of(WARNING, sqlState, message));
    }

    public static NoticeResponse notice(String sqlState, String message) {
        return new NoticeResponse(NoticeFields.of(NOTICE, sqlState, message));
    }

    public static NoticeResponse decode(ByteBuf body) {
        return new NoticeResponse(NoticeFields.decode(body, "NoticeResponse"));
    }

    public NoticeResponse withDetail(String detail) {
        return new NoticeResponse(NoticeFields.with(fields, NoticeFields.DETAIL, detail));
    }

    public NoticeResponse withHint(String hint) {
        return new NoticeResponse(NoticeFields.with(fields, NoticeFields.HINT, hint));
    }

    /** WARNING, NOTICE, INFO, LOG, DEBUG; the untranslated {@code 'V'} field when present. */
    public String severity() {
        return NoticeFields.severity(fields);
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
        NoticeFields.encode(out, BackendMessage.NOTICE_RESPONSE, fields);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NoticeResponse other && other.fields.equals(fields);
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
