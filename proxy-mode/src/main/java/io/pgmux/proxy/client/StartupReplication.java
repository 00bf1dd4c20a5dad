package io.pgmux.proxy.client;

import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.SqlState;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The startup packet's {@code replication} parameter, read as PostgreSQL and PgBouncer 1.23+ read it: {@code
 * database} asks for a logical walsender, a true boolean for a physical one, a false boolean (or none) for an
 * ordinary session; any other value gets PostgreSQL's own refusal.
 */
enum StartupReplication {
    NONE(null, "no"),
    LOGICAL("database", "database"),
    PHYSICAL("true", "yes");

    static final String PARAMETER = "replication";

    /** What the client's own server connection is opened with; null for an ordinary session. */
    final String serverValue;
    /** PgBouncer's word in its {@code login attempt} line. */
    final String logWord;

    StartupReplication(String serverValue, String logWord) {
        this.serverValue = serverValue;
        this.logWord = logWord;
    }

    /** SHOW CLIENTS' and SHOW SERVERS' word: none, logical or physical. */
    String shown() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * What the client's own server connection logs in with beyond the pool's login: the client's startup
     * parameters {@code sent}, this kind of walsender asked for.
     */
    Map<String, String> serverStartup(Map<String, String> sent) {
        Map<String, String> own = new LinkedHashMap<>();
        sent.forEach((name, value) -> {
            if (!name.equals("user") && !name.equals("database") && !name.equals(PARAMETER)
                    && !name.startsWith("_pq_.")) {
                own.put(name, value);
            }
        });
        own.put(PARAMETER, serverValue);
        return own;
    }

    /** The kind of session {@code value} asks for; null when it is no value PostgreSQL takes. */
    static StartupReplication of(String value) {
        if (value == null) {
            return NONE;
        }
        if (value.equals("database")) {
            return LOGICAL;
        }
        Boolean walsender = parseBool(value);
        return walsender == null ? null : walsender ? PHYSICAL : NONE;
    }

    /** PostgreSQL's refusal of a value {@link #of} does not take. */
    static ErrorResponse refusal(String value) {
        return ErrorResponse.fatal(SqlState.INVALID_PARAMETER_VALUE, "invalid value for parameter \""
                + PARAMETER + "\": \"" + value + "\"")
                .withHint("Valid values are: \"false\", 0, \"true\", 1, \"database\".");
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
