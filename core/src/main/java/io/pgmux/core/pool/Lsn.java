package io.pgmux.core.pool;

import java.util.Locale;

/**
 * A WAL position ({@code pg_lsn}) as a long: PostgreSQL writes it as two hexadecimal halves, {@code 16/B374D848}.
 * Positions compare unsigned; 0 is PostgreSQL's invalid position, which every position has reached.
 */
public final class Lsn {
    private Lsn() {
    }

    /**
     * The position {@code text} writes; 0 for null (a standby that has replayed nothing yet, a primary's
     * {@code pg_last_wal_replay_lsn()}).
     *
     * @throws IllegalArgumentException when the text is not a pg_lsn
     */
    public static long parse(String text) {
        if (text == null) {
            return 0;
        }
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("not a WAL position: " + text);
        }
        long high = Long.parseLong(text, 0, slash, 16);
        long low = Long.parseLong(text, slash + 1, text.length(), 16);
        if (high >>> 32 != 0 || low >>> 32 != 0) {
            throw new IllegalArgumentException("not a WAL position: " + text);
        }
        return high << 32 | low;
    }

    public static String format(long lsn) {
        return Long.toHexString(lsn >>> 32).toUpperCase(Locale.ROOT) + "/"
                + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase(Locale.ROOT);
    }

    /** Whether {@code position} is at or past {@code wanted}. */
    public static boolean reached(long position, long wanted) {
        return Long.compareUnsigned(position, wanted) >= 0;
    }

    /** The later of two positions. */
    public static long later(long a, long b) {
        return reached(a, b) ? a : b;
    }
}
