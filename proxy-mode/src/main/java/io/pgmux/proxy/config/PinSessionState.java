package io.pgmux.proxy.config;

import java.util.Locale;

/**
 * pgmux's pin_session_state: what transaction and statement pooling do with session state a transaction leaves on
 * its server (LISTEN, session advisory locks, temporary tables, WITH HOLD cursors, SQL PREPARE, LOAD).
 */
public enum PinSessionState {
    /** The client keeps its server until the state is gone, as on a direct connection. */
    ON("on"),
    /** PgBouncer's behaviour: nothing is watched, the server goes back with the state on it. */
    OFF("off"),
    /** The transaction's last statement gets 0A000 and the server is closed, taking the state with it. */
    ERROR("error");

    private final String configName;

    PinSessionState(String configName) {
        this.configName = configName;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static PinSessionState fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (PinSessionState mode : values()) {
            if (mode.configName.equals(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("pin_session_state must be on, off or error, not \"" + value + "\"");
    }

    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
