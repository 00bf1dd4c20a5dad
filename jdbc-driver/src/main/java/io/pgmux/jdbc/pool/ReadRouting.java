package io.pgmux.jdbc.pool;

import java.util.Locale;

/** Where a pool's read-only transactions run: the {@code readRouting} setting. */
public enum ReadRouting {
    /** On the server the URL finds, as every other transaction: pgjdbc's own host list semantics. */
    OFF,
    /** On a standby of the URL's host list when one is usable, else on the primary. */
    REPLICAS;

    /** @throws IllegalArgumentException naming the values it takes */
    public static ReadRouting parse(String text) {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "off":
                return OFF;
            case "replicas":
                return REPLICAS;
            default:
                throw new IllegalArgumentException("must be off or replicas");
        }
    }
}
