package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * NoticeResponse: a message that does not end the command (WARNING, NOTICE, INFO, LOG, DEBUG), with the same
 * fields as an ErrorResponse.
 */
public final class NoticeResponse extends FieldMessage {
    public static final String WARNING = "WARNING";
    public static final String NOTICE = "NOTICE";

    private NoticeResponse(Map<Character, String> fields) {
        super(BackendMessage.NOTICE_RESPONSE, fields);
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
}
