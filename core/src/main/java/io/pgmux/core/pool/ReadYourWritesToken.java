package io.pgmux.core.pool;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The text of a read-your-writes token: {@code ryw1.<system identifier>.<timeline>.<WAL position>.<check>}, all
 * hexadecimal, the check a CRC-32 of what precedes it, so that a token garbled on its way is refused rather than
 * read as another position. Not a secret and not signed: a token made up by hand can ask only for reads fresher
 * (they wait, or run on the primary) or staler than the bearer's own writes, which only the bearer sees. Both faces
 * make and read the same text, so a token crosses from the driver to the proxy and back.
 */
public record ReadYourWritesToken(long systemIdentifier, int timeline, long lsn) {
    private static final String VERSION = "ryw1";

    public String text() {
        String body = VERSION + "." + Long.toHexString(systemIdentifier) + "." + Integer.toHexString(timeline) + "."
                + Long.toHexString(lsn);
        return body + "." + check(body);
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code text} */
    public static ReadYourWritesToken parse(String text) {
        if (text == null) {
            throw invalid("null");
        }
        String[] parts = text.trim().split("\\.", -1);
        if (parts.length != 5 || !parts[0].equals(VERSION)) {
            throw invalid("not a token of this version (" + VERSION + ".<system>.<timeline>.<lsn>.<check>)");
        }
        int last = text.trim().lastIndexOf('.');
        if (!check(text.trim().substring(0, last)).equals(parts[4])) {
            throw invalid("its check does not match: it was changed on its way");
        }
        try {
            return new ReadYourWritesToken(Long.parseUnsignedLong(parts[1], 16), Integer.parseUnsignedInt(parts[2], 16),
                    Long.parseUnsignedLong(parts[3], 16));
        } catch (NumberFormatException e) {
            throw invalid("a field is not hexadecimal");
        }
    }

    private static IllegalArgumentException invalid(String why) {
        return new IllegalArgumentException(why);
    }

    private static String check(String body) {
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.US_ASCII));
        return Long.toHexString(crc.getValue());
    }

    @Override
    public String toString() {
        return text() + " (" + Lsn.format(lsn) + ")";
    }
}
