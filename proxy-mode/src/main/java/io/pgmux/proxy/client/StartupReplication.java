package io.pgmux.proxy.client;

import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.SqlState;
import java.util.Locale;

/**
 * The startup packet's {@code replication} parameter. pgmux serves no replication connection yet: one that asks
 * for a walsender ({@code database}, or a true boolean) is refused at login with the FATAL a PgBouncer that serves
 * none gave ({@code unsupported startup parameter: replication}, before 1.23), rather than handed an ordinary
 * session on which {@code IDENTIFY_SYSTEM} is a syntax error. A false boolean is an ordinary session, as on
 * PostgreSQL; any other value gets PostgreSQL's own refusal.
 */
final class StartupReplication {
    static final String PARAMETER = "replication";

    private StartupReplication() {
    }

    /** Why a client sending {@code replication = value} is refused; null when it may log in (no value, or false). */
    static ErrorResponse refusal(String value) {
        if (value == null) {
            return null;
        }
        if (value.equals("database")) {
            return PoolerError.unsupportedStartupParameter(PARAMETER);
        }
        Boolean walsender = parseBool(value);
        if (walsender == null) {
            return ErrorResponse.fatal(SqlState.INVALID_PARAMETER_VALUE, "invalid value for parameter \""
                    + PARAMETER + "\": \"" + value + "\"")
                    .withHint("Valid values are: \"false\", 0, \"true\", 1, \"database\".");
        }
        return walsender ? PoolerError.unsupportedStartupParameter(PARAMETER) : null;
    }

    /** PostgreSQL's parse_bool: a prefix of true, false, yes or no, on, of or off, 1 or 0, in any case. */
    private static Boolean parseBool(String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (v.isEmpty()) {
            return null;
        }
        if ("true".startsWith(v) || "yes".startsWith(v) || v.equals("on") || v.equals("1")) {
            return Boolean.TRUE;
        }
        if ("false".startsWith(v) || "no".startsWith(v) || v.equals("of") || v.equals("off") || v.equals("0")) {
            return Boolean.FALSE;
        }
        return null;
    }
}
