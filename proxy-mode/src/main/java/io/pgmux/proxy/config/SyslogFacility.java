package io.pgmux.proxy.config;

import java.util.Locale;

/** The facilities PgBouncer's syslog_facility names, with their syslog(3) codes. */
public enum SyslogFacility {
    AUTH(4), AUTHPRIV(10), DAEMON(3), USER(1),
    LOCAL0(16), LOCAL1(17), LOCAL2(18), LOCAL3(19), LOCAL4(20), LOCAL5(21), LOCAL6(22), LOCAL7(23);

    private final int code;

    SyslogFacility(int code) {
        this.code = code;
    }

    /** The facility's number, as the {@code <PRI>} of a message carries it ({@code code * 8 + severity}). */
    public int code() {
        return code;
    }

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The facility of this name. PgBouncer logs under daemon for a name it does not know; pgmux refuses it, so
     * that a mistyped facility does not send the lines where nobody looks.
     *
     * @throws IllegalArgumentException naming the facilities there are
     */
    public static SyslogFacility fromConfig(String name) {
        String wanted = name.strip().toLowerCase(Locale.ROOT);
        for (SyslogFacility f : values()) {
            if (f.configName().equals(wanted)) {
                return f;
            }
        }
        throw new IllegalArgumentException("syslog_facility must be auth, authpriv, daemon, user or local0 to local7,"
                + " not \"" + name + "\"");
    }
}
