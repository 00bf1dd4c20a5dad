package io.pgmux.jdbc.sql;

/**
 * Words in SQL text, wherever they stand (literals, comments, names), that hint at session state the analyzer
 * cannot see: SQL run from a literal by a function ({@code SELECT run('CREATE TEMP TABLE t ...')}), or a
 * function named for what it does ({@code take_advisory_lock(1)}). As the proxy's trigger words: one pass,
 * a false hint costs one check query after the transaction, never a pin.
 */
final class SessionStateWords {
    private SessionStateWords() {
    }

    /**
     * Whether {@code sql} holds {@code advisory_} not followed by {@code xact_}, or one of the words
     * {@code temp}, {@code temporary}, {@code listen}, {@code hold}, {@code prepare} (any case; {@code pg_temp}
     * counts, as a word begins after any character but a letter).
     */
    static boolean mentioned(String sql) {
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = lower(sql.charAt(i));
            if (c == 'a' && matches(sql, i, "advisory_") && !matches(sql, i + 9, "xact_")) {
                return true;
            }
            if ((c == 't' || c == 'l' || c == 'h' || c == 'p') && (i == 0 || !isLetter(sql.charAt(i - 1)))
                    && (word(sql, i, "temp") || word(sql, i, "temporary") || word(sql, i, "listen")
                    || word(sql, i, "hold") || word(sql, i, "prepare"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean word(String sql, int at, String word) {
        int end = at + word.length();
        return matches(sql, at, word) && (end == sql.length() || !isLetter(sql.charAt(end)));
    }

    private static boolean matches(String sql, int at, String lowerCase) {
        return sql.regionMatches(true, at, lowerCase, 0, lowerCase.length());
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    private static boolean isLetter(char c) {
        char l = lower(c);
        return l >= 'a' && l <= 'z';
    }
}
