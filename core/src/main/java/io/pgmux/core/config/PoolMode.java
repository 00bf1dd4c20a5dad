package io.pgmux.core.config;

import java.util.Locale;

/** When a client gives its server connection back to the pool (PgBouncer's {@code pool_mode}). */
public enum PoolMode {
    /** At client disconnect (or logical connection close). */
    SESSION,
    /** When the server reports the transaction idle. */
    TRANSACTION,
    /** After every statement; multi-statement transactions are refused. */
    STATEMENT;

    /** The lower-case name PgBouncer uses in its ini file and in SHOW POOLS. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static PoolMode parse(String text) {
        for (PoolMode mode : values()) {
            if (mode.configName().equalsIgnoreCase(text.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException("must be one of session, transaction, statement");
    }
}
