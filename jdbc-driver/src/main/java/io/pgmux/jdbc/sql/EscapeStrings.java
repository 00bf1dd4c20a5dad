package io.pgmux.jdbc.sql;

/**
 * The server's reading of escaped literal text: {@code E'...'} backslash escapes and {@code U&} Unicode
 * escapes (the "String Constants with C-Style Escapes" and "with Unicode Escapes" sections of the
 * PostgreSQL documentation). An escape the server would refuse is kept as written: such text fails there
 * and leaves no state.
 */
final class EscapeStrings {
    private EscapeStrings() {
    }

    /** The content with each doubled {@code quote} read as one. */
    static String undoubled(String sql, int from, int to, char quote) {
        StringBuilder out = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = sql.charAt(i);
            out.append(c);
            if (c == quote && i + 1 < to && sql.charAt(i + 1) == quote) {
                i++;
            }
        }
        return out.toString();
    }

    /** {@code U&} content: doubled quotes undone, then {@code <escape>XXXX}, {@code <escape>+XXXXXX} and a doubled escape. */
    static String decodeUnicode(String sql, int from, int to, char quote, char escape) {
        String text = undoubled(sql, from, to, quote);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != escape || i + 1 >= text.length()) {
                out.append(c);
            } else if (text.charAt(i + 1) == escape) {
                out.append(escape);
                i++;
            } else if (text.charAt(i + 1) == '+' && hexDigits(text, i + 2, 6)) {
                appendCodePoint(out, Integer.parseInt(text, i + 2, i + 8, 16));
                i += 7;
            } else if (hexDigits(text, i + 1, 4)) {
                out.append((char) Integer.parseInt(text, i + 1, i + 5, 16));
                i += 4;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * {@code E'...'} content: a backslash before b, f, n, r, t, up to three octal digits, x and up to two hex
     * digits, u and four, U and eight; before any other character, that character.
     */
    static String decodeBackslashes(String sql, int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = sql.charAt(i);
            if (c == '\'' && i + 1 < to && sql.charAt(i + 1) == '\'') {
                out.append('\'');
                i++;
                continue;
            }
            if (c != '\\' || i + 1 >= to) {
                out.append(c);
                continue;
            }
            char e = sql.charAt(++i);
            switch (e) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'x' -> {
                    int n = hexRun(sql, i + 1, to, 2);
                    if (n == 0) {
                        out.append(e);
                    } else {
                        out.append((char) Integer.parseInt(sql, i + 1, i + 1 + n, 16));
                        i += n;
                    }
                }
                case 'u', 'U' -> {
                    int digits = e == 'u' ? 4 : 8;
                    if (hexRun(sql, i + 1, to, digits) == digits) {
                        appendCodePoint(out, (int) Long.parseLong(sql, i + 1, i + 1 + digits, 16));
                        i += digits;
                    } else {
                        out.append(e);
                    }
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int end = i + 1;
                        while (end < to && end < i + 3 && sql.charAt(end) >= '0' && sql.charAt(end) <= '7') {
                            end++;
                        }
                        out.append((char) (Integer.parseInt(sql, i, end, 8) & 0xFF));
                        i = end - 1;
                    } else {
                        out.append(e);
                    }
                }
            }
        }
        return out.toString();
    }

    private static void appendCodePoint(StringBuilder out, int codePoint) {
        if (Character.isValidCodePoint(codePoint)) {
            out.appendCodePoint(codePoint);
        }
    }

    private static boolean hexDigits(String text, int from, int count) {
        return hexRun(text, from, text.length(), count) == count;
    }

    /** How many hex digits, at most {@code max}, start at {@code from}. */
    private static int hexRun(String text, int from, int to, int max) {
        int n = 0;
        while (n < max && from + n < to && isHexDigit(text.charAt(from + n))) {
            n++;
        }
        return n;
    }

    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
