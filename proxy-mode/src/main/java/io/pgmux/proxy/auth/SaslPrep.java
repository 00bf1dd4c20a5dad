package io.pgmux.proxy.auth;

import java.text.Normalizer;

/**
 * SASLprep (RFC 4013) of a SCRAM password, with PostgreSQL's leniency: a password that SASLprep would reject
 * is used as it is, so it still works as long as both sides derive keys the same way (PostgreSQL's
 * {@code pg_saslprep} callers do exactly this).
 *
 * <p>Simplification: RFC 4013 is defined on Unicode 3.2; this uses the JDK's Unicode version for NFKC and for
 * "unassigned code point" (RFC 3454 table A.1), and {@link Character#getDirectionality} for the bidi rule.
 * Pure-ASCII passwords, by far the common case, are returned unchanged exactly as PostgreSQL does; the
 * mapping tables B.1 and C.1.2 and the prohibited tables C.2–C.9 are applied in full. A password whose
 * characters were assigned after Unicode 3.2 may therefore be normalized here where PostgreSQL keeps it raw.
 */
final class SaslPrep {

    private SaslPrep() {
    }

    static String prepare(String password) {
        if (isAscii(password)) {
            return password;
        }
        StringBuilder mapped = new StringBuilder(password.length());
        password.codePoints().forEach(cp -> {
            if (isNonAsciiSpace(cp)) {
                mapped.append(' ');
            } else if (!isMappedToNothing(cp)) {
                mapped.appendCodePoint(cp);
            }
        });
        String normalized = Normalizer.normalize(mapped, Normalizer.Form.NFKC);
        if (normalized.isEmpty() || !isAllowed(normalized)) {
            return password;
        }
        return normalized;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAllowed(String s) {
        boolean hasRandAL = false;
        boolean hasL = false;
        int[] cps = s.codePoints().toArray();
        for (int cp : cps) {
            if (isProhibited(cp) || !Character.isDefined(cp)) {
                return false;
            }
            hasRandAL |= isRandAL(cp);
            hasL |= Character.getDirectionality(cp) == Character.DIRECTIONALITY_LEFT_TO_RIGHT;
        }
        // RFC 3454 §6: right-to-left text must not mix in left-to-right characters and must start and end RTL.
        return !hasRandAL || (!hasL && isRandAL(cps[0]) && isRandAL(cps[cps.length - 1]));
    }

    private static boolean isRandAL(int cp) {
        byte d = Character.getDirectionality(cp);
        return d == Character.DIRECTIONALITY_RIGHT_TO_LEFT || d == Character.DIRECTIONALITY_RIGHT_TO_LEFT_ARABIC;
    }

    /** RFC 3454 table B.1, "commonly mapped to nothing". */
    private static boolean isMappedToNothing(int cp) {
        return cp == 0x00AD || cp == 0x034F || cp == 0x1806 || (cp >= 0x180B && cp <= 0x180D)
                || (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || (cp >= 0xFE00 && cp <= 0xFE0F)
                || cp == 0xFEFF;
    }

    /** RFC 3454 table C.1.2, non-ASCII space characters (mapped to SPACE by RFC 4013 §2.1). */
    private static boolean isNonAsciiSpace(int cp) {
        return cp == 0x00A0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0x205F
                || cp == 0x3000;
    }

    /** RFC 4013 §2.3: tables C.1.2 and C.2.1 to C.9. */
    private static boolean isProhibited(int cp) {
        return isNonAsciiSpace(cp)
                || cp < 0x20 || cp == 0x7F                                              // C.2.1
                || (cp >= 0x80 && cp <= 0x9F) || cp == 0x06DD || cp == 0x070F || cp == 0x180E
                || cp == 0x200C || cp == 0x200D || cp == 0x2028 || cp == 0x2029
                || (cp >= 0x2060 && cp <= 0x2063) || (cp >= 0x206A && cp <= 0x206F) || cp == 0xFEFF
                || (cp >= 0xFFF9 && cp <= 0xFFFC) || (cp >= 0x1D173 && cp <= 0x1D17A)  // C.2.2
                || (cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xF0000 && cp <= 0xFFFFD)
                || (cp >= 0x100000 && cp <= 0x10FFFD)                                   // C.3
                || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE            // C.4
                || (cp >= 0xD800 && cp <= 0xDFFF)                                       // C.5
                || (cp >= 0xFFF9 && cp <= 0xFFFD)                                       // C.6
                || (cp >= 0x2FF0 && cp <= 0x2FFB)                                       // C.7
                || cp == 0x0340 || cp == 0x0341 || cp == 0x200E || cp == 0x200F
                || (cp >= 0x202A && cp <= 0x202E)                                       // C.8
                || cp == 0xE0001 || (cp >= 0xE0020 && cp <= 0xE007F);                   // C.9
    }
}
