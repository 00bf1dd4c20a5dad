package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.pgmux.core.pool.ServerGoingAway;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * ErrorResponse: severity, SQLSTATE, message and the optional fields, keyed by their protocol field codes
 * ({@code 'S'}, {@code 'V'}, {@code 'C'}, {@code 'M'}, {@code 'D'}, {@code 'H'}, …). After a FATAL the
 * sender closes the connection; after an ERROR a ReadyForQuery follows.
 */
public final class ErrorResponse extends FieldMessage {
    public static final String FATAL = "FATAL";
    public static final String ERROR = "ERROR";
    public static final String PANIC = "PANIC";

    /** Position, internal position, internal query, context: where in a statement the error arose. */
    private static final Set<Character> STATEMENT_FIELDS = Set.of('P', 'p', 'q', 'W');

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

    /**
     * This error of a statement as the FATAL that ends a login: what PostgreSQL sends for a startup setting it
     * refuses, with the same SQLSTATE, message, detail and hint, without the statement's position or context.
     */
    public ErrorResponse asFatal() {
        Map<Character, String> fatal = new LinkedHashMap<>(fields);
        fatal.put(NoticeFields.SEVERITY_LOCALIZED, FATAL);
        fatal.put(NoticeFields.SEVERITY, FATAL);
        fatal.keySet().removeAll(STATEMENT_FIELDS);
        return new ErrorResponse(Collections.unmodifiableMap(fatal));
    }

    public boolean isFatal() {
        return FATAL.equals(severity()) || PANIC.equals(severity());
    }

    /** A FATAL saying the server goes away (a shutdown, pg_terminate_backend): nothing sent after it runs there. */
    public boolean saysServerGoesAway() {
        return isFatal() && ServerGoingAway.means(sqlState());
    }
}
