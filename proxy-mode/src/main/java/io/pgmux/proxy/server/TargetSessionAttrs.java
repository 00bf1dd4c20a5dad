package io.pgmux.proxy.server;

import java.util.Locale;

/**
 * pgmux's target_session_attrs, with libpq's values and meanings: which servers of a host list a new server
 * connection may stay on, checked once per connection after its login. A failover (a standby promoted, the
 * primary stopped) then moves new connections of a {@code read-write} or {@code primary} database to the
 * promoted standby.
 */
public enum TargetSessionAttrs {
    /** Any server that accepts the login. */
    ANY("any"),
    /** A server whose sessions are read-write by default ({@code transaction_read_only} off). */
    READ_WRITE("read-write"),
    /** A server whose sessions are read-only by default ({@code transaction_read_only} on). */
    READ_ONLY("read-only"),
    /** A server not in recovery. */
    PRIMARY("primary"),
    /** A server in recovery (a hot standby). */
    STANDBY("standby"),
    /** A standby if any of the list is one, else any server. */
    PREFER_STANDBY("prefer-standby");

    /** What a new connection reads to decide: one round trip. */
    public static final String CHECK_QUERY =
            "SELECT pg_catalog.pg_is_in_recovery(), pg_catalog.current_setting('transaction_read_only')";

    private final String configName;

    TargetSessionAttrs(String configName) {
        this.configName = configName;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static TargetSessionAttrs fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (TargetSessionAttrs attrs : values()) {
            if (attrs.configName.equals(name)) {
                return attrs;
            }
        }
        throw new IllegalArgumentException("unsupported target_session_attrs \"" + value
                + "\": use any, read-write, read-only, primary, standby or prefer-standby");
    }

    /** Whether a server with this recovery state and default read-only setting will do. */
    public boolean accepts(boolean inRecovery, boolean readOnly) {
        return switch (this) {
            case ANY -> true;
            case READ_WRITE -> !readOnly;
            case READ_ONLY -> readOnly;
            case PRIMARY -> !inRecovery;
            case STANDBY, PREFER_STANDBY -> inRecovery;
        };
    }

    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
