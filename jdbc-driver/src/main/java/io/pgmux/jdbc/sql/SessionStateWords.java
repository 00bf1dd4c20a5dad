package io.pgmux.jdbc.sql;

/**
 * Words in SQL text that hint at session state the analyzer cannot see: SQL run from a literal by a function
 * ({@code SELECT run('CREATE TEMP TABLE t ...')}), or a function named for what it does
 * ({@code take_advisory_lock(1)}). As the proxy's trigger words: one pass, no allocation; a false hint costs
 * one check query after the transaction, never a pin.
 */
final class SessionStateWords {
    private SessionStateWords() {
    }

    /**
     * Whether {@code sql} holds, anywhere, {@code advisory_} not followed by {@code xact_}, or the word
     * {@code temp} or {@code temporary} (any case; {@code pg_temp} counts, as a word begins after any character
     * but a letter): the proxy's triggers.
     */
    static boolean mentioned(String sql) {
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            if ((c == 'a' || c == 'A') && matches(sql, i, "advisory_") && !matches(sql, i + 9, "xact_")) {
                return true;
            }
            if ((c == 't' || c == 'T') && wordStart(sql, i) && (word(sql, i, "temp") || word(sql, i, "temporary"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the literal text {@code sql[from, to)} holds the word {@code listen}, {@code hold} or
     * {@code prepare}: in a literal, it may be SQL that a function runs. Outside literals these are names
     * ({@code on_hold}) or statements the analyzer reads itself.
     */
    static boolean commandInLiteral(String sql, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = sql.charAt(i);
            if ((c == 'l' || c == 'L' || c == 'h' || c == 'H' || c == 'p' || c == 'P') && wordStart(sql, i)
                    && (wordBefore(sql, i, to, "listen") || wordBefore(sql, i, to, "hold")
                    || wordBefore(sql, i, to, "prepare"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean wordStart(String sql, int at) {
        return at == 0 || !isLetter(sql.charAt(at - 1));
    }

    private static boolean word(String sql, int at, String word) {
        return wordBefore(sql, at, sql.length(), word);
    }

    private static boolean wordBefore(String sql, int at, int limit, String word) {
        int end = at + word.length();
        return end <= limit && matches(sql, at, word) && (end == limit || !isLetter(sql.charAt(end)));
    }

    private static boolean matches(String sql, int at, String lowerCase) {
        return sql.regionMatches(true, at, lowerCase, 0, lowerCase.length());
    }

    private static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
}
