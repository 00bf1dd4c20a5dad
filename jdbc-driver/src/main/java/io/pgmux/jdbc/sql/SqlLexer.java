package io.pgmux.jdbc.sql;

/**
 * Splits SQL text into tokens following PostgreSQL's lexical structure (the "Lexical Structure"
 * chapter of the PostgreSQL documentation, and {@code scan.l}): whitespace and comments are skipped,
 * literals and quoted identifiers become single tokens so nothing inside them is ever mistaken for a
 * keyword. Tokens are reported as offsets into the text; nothing is copied.
 *
 * <p>Standard-conforming strings are assumed (the server default since PostgreSQL 9.1): backslashes
 * escape only inside {@code E'...'}. Unterminated literals, quoted identifiers and comments run to the
 * end of the range and never throw.
 *
 * <p>A Unicode-escaped identifier or string ({@code U&"\0073et_config"}, {@code U&'...'}, each with an
 * optional {@code UESCAPE 'c'}) is one token whose name is the decoded one, as the server reads it: a
 * name spelt with escapes must not pass for another. It is the one token that allocates (its decoded
 * text), and such tokens are rare.
 */
final class SqlLexer {

    static final int EOF = 0;
    /** An unquoted name or keyword; compared ASCII-case-insensitively, as the server folds it. */
    static final int IDENTIFIER = 1;
    /** {@code "name"}; content is compared exactly. */
    static final int QUOTED_IDENTIFIER = 2;
    /** {@code '...'}, {@code E'...'}, {@code $tag$...$tag$}; content excludes the delimiters. */
    static final int STRING = 3;
    static final int NUMBER = 4;
    /** {@code $1} or a JDBC {@code ?} placeholder. */
    static final int PARAMETER = 5;
    /** {@code ::}. */
    static final int CAST = 6;
    /** Any other single character: punctuation or one character of an operator. */
    static final int SYMBOL = 7;

    private final String sql;
    private final int limit;
    private int pos;

    int type;
    int start;
    int end;
    int contentStart;
    int contentEnd;
    boolean unterminated;
    /** The prefix of a {@link #STRING} or {@link #QUOTED_IDENTIFIER}: 0, {@code 'E'} or {@code 'U'} (Unicode escapes). */
    char prefix;
    /** The decoded content of a {@code U&} token, else null. */
    String decoded;

    SqlLexer(String sql, int from, int to) {
        this.sql = sql;
        this.pos = from;
        this.limit = to;
    }

    int next() {
        skipWhitespaceAndComments();
        unterminated = false;
        prefix = 0;
        decoded = null;
        start = pos;
        if (pos >= limit) {
            end = pos;
            return type = EOF;
        }
        char c = sql.charAt(pos);
        if (isIdentifierStart(c)) {
            if ((c == 'e' || c == 'E') && pos + 1 < limit && sql.charAt(pos + 1) == '\'') {
                pos++;
                prefix = 'E';
                return quoted('\'', true, STRING);
            }
            if ((c == 'u' || c == 'U') && pos + 2 < limit && sql.charAt(pos + 1) == '&'
                    && (sql.charAt(pos + 2) == '"' || sql.charAt(pos + 2) == '\'')) {
                return unicodeEscaped();
            }
            pos++;
            while (pos < limit && isIdentifierPart(sql.charAt(pos))) {
                pos++;
            }
            return token(IDENTIFIER);
        }
        switch (c) {
            case '\'':
                return quoted('\'', false, STRING);
            case '"':
                return quoted('"', false, QUOTED_IDENTIFIER);
            case '$':
                return dollar();
            case '?':
                pos++;
                return token(PARAMETER);
            case ':':
                if (pos + 1 < limit && sql.charAt(pos + 1) == ':') {
                    pos += 2;
                    return token(CAST);
                }
                pos++;
                return token(SYMBOL);
            default:
                if (isDigit(c) || (c == '.' && pos + 1 < limit && isDigit(sql.charAt(pos + 1)))) {
                    return number();
                }
                pos++;
                return token(SYMBOL);
        }
    }

    /** The text the tokens are offsets into. */
    String text() {
        return sql;
    }

    /** The symbol character of a {@link #SYMBOL} token. */
    boolean isSymbol(char c) {
        return type == SYMBOL && sql.charAt(start) == c;
    }

    /** Whether this is the unquoted keyword {@code lowerCaseKeyword} (given in lower case, ASCII). */
    boolean isKeyword(String lowerCaseKeyword) {
        return type == IDENTIFIER && foldedEquals(start, end, lowerCaseKeyword);
    }

    /** Whether this token names {@code lowerCaseName}: unquoted in any case, or quoted (or decoded) exactly. */
    boolean isName(String lowerCaseName) {
        if (type == IDENTIFIER) {
            return foldedEquals(start, end, lowerCaseName);
        }
        if (type != QUOTED_IDENTIFIER || unterminated) {
            return false;
        }
        if (decoded != null) {
            return decoded.equals(lowerCaseName);
        }
        return sql.regionMatches(contentStart, lowerCaseName, 0, lowerCaseName.length())
                && contentEnd - contentStart == lowerCaseName.length();
    }

    /** Length of the name a {@link #IDENTIFIER} or {@link #QUOTED_IDENTIFIER} stands for, else -1. */
    int nameLength() {
        if (type == IDENTIFIER) {
            return end - start;
        }
        if (type != QUOTED_IDENTIFIER) {
            return -1;
        }
        return decoded != null ? decoded.length() : contentEnd - contentStart;
    }

    /**
     * The value of a {@link #STRING} token as the server reads it: doubled quotes undone, {@code E'...'}
     * backslash escapes and {@code U&'...'} Unicode escapes decoded. Allocates; for the few places where a
     * literal's text is itself SQL (a {@code DO} body).
     */
    String stringValue() {
        if (decoded != null) {
            return decoded;
        }
        if (sql.charAt(start) == '$') {
            return sql.substring(contentStart, contentEnd);
        }
        return prefix == 'E' ? EscapeStrings.decodeBackslashes(sql, contentStart, contentEnd)
                : EscapeStrings.undoubled(sql, contentStart, contentEnd, '\'');
    }

    /**
     * Whether this string literal spells one of PostgreSQL's boolean inputs for the given value:
     * {@code true/yes/on/1} or {@code false/no/off/0}, any unique prefix of the words, any case,
     * surrounding whitespace ignored.
     */
    boolean isBooleanLiteral(boolean value) {
        if (type != STRING || unterminated) {
            return false;
        }
        int from = contentStart;
        int to = contentEnd;
        while (from < to && isSpace(sql.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(sql.charAt(to - 1))) {
            to--;
        }
        int length = to - from;
        if (length == 0) {
            return false;
        }
        if (value) {
            return prefixOf(from, to, "true", 1) || prefixOf(from, to, "yes", 1)
                    || foldedEquals(from, to, "on") || foldedEquals(from, to, "1");
        }
        return prefixOf(from, to, "false", 1) || prefixOf(from, to, "no", 1)
                || prefixOf(from, to, "off", 2) || foldedEquals(from, to, "0");
    }

    private boolean prefixOf(int from, int to, String word, int minimum) {
        int length = to - from;
        return length >= minimum && length <= word.length() && foldedMatches(from, length, word);
    }

    private boolean foldedEquals(int from, int to, String lowerCase) {
        int length = to - from;
        return length == lowerCase.length() && foldedMatches(from, length, lowerCase);
    }

    private boolean foldedMatches(int from, int length, String lowerCase) {
        for (int i = 0; i < length; i++) {
            char c = sql.charAt(from + i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != lowerCase.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private int token(int tokenType) {
        end = pos;
        return type = tokenType;
    }

    /** A literal or identifier closed by {@code quote}, where a doubled quote stands for itself. */
    private int quoted(char quote, boolean backslashEscapes, int tokenType) {
        pos++;
        contentStart = pos;
        while (pos < limit) {
            char c = sql.charAt(pos);
            if (backslashEscapes && c == '\\') {
                pos += 2;
            } else if (c == quote) {
                if (pos + 1 < limit && sql.charAt(pos + 1) == quote) {
                    pos += 2;
                } else {
                    contentEnd = pos;
                    pos++;
                    return token(tokenType);
                }
            } else {
                pos++;
            }
        }
        pos = limit;
        contentEnd = limit;
        unterminated = true;
        return token(tokenType);
    }

    /**
     * {@code U&"..."} or {@code U&'...'}, with the {@code UESCAPE 'c'} clause that may follow it (after
     * whitespace or comments, as the server's grammar takes it), decoded with that escape character.
     */
    private int unicodeEscaped() {
        char quote = sql.charAt(pos + 2);
        pos += 2;
        int tokenType = quote == '"' ? QUOTED_IDENTIFIER : STRING;
        quoted(quote, false, tokenType);
        prefix = 'U';
        char escape = '\\';
        int afterToken = pos;
        skipWhitespaceAndComments();
        if (pos + 7 <= limit && sql.regionMatches(true, pos, "uescape", 0, 7)
                && (pos + 7 == limit || !isIdentifierPart(sql.charAt(pos + 7)))) {
            pos += 7;
            skipWhitespaceAndComments();
            if (pos + 2 < limit && sql.charAt(pos) == '\'' && sql.charAt(pos + 2) == '\'') {
                escape = sql.charAt(pos + 1);
                pos += 3;
            } else {
                pos = afterToken;
            }
        } else {
            pos = afterToken;
        }
        decoded = EscapeStrings.decodeUnicode(sql, contentStart, contentEnd, quote, escape);
        return token(tokenType);
    }

    /** {@code $n}, a dollar-quoted string, or a lone {@code $}. */
    private int dollar() {
        int tagStart = pos;
        int p = pos + 1;
        if (p < limit && isDigit(sql.charAt(p))) {
            while (p < limit && isDigit(sql.charAt(p))) {
                p++;
            }
            pos = p;
            return token(PARAMETER);
        }
        if (p < limit && isIdentifierStart(sql.charAt(p))) {
            p++;
            while (p < limit && isTagPart(sql.charAt(p))) {
                p++;
            }
        }
        if (p >= limit || sql.charAt(p) != '$') {
            pos++;
            return token(SYMBOL);
        }
        int tagLength = p + 1 - tagStart;
        contentStart = p + 1;
        for (int close = contentStart; close + tagLength <= limit; close++) {
            if (sql.charAt(close) == '$' && sql.regionMatches(close, sql, tagStart, tagLength)) {
                contentEnd = close;
                pos = close + tagLength;
                return token(STRING);
            }
        }
        contentEnd = limit;
        pos = limit;
        unterminated = true;
        return token(STRING);
    }

    /** Digits, letters, {@code _} and {@code .}: enough to keep numbers from posing as names; a sign is a symbol. */
    private int number() {
        pos++;
        while (pos < limit && (isTagPart(sql.charAt(pos)) || sql.charAt(pos) == '.')) {
            pos++;
        }
        return token(NUMBER);
    }

    private void skipWhitespaceAndComments() {
        while (pos < limit) {
            char c = sql.charAt(pos);
            if (isSpace(c)) {
                pos++;
            } else if (c == '-' && pos + 1 < limit && sql.charAt(pos + 1) == '-') {
                pos += 2;
                while (pos < limit && sql.charAt(pos) != '\n' && sql.charAt(pos) != '\r') {
                    pos++;
                }
            } else if (c == '/' && pos + 1 < limit && sql.charAt(pos + 1) == '*') {
                skipBlockComment();
            } else {
                return;
            }
        }
    }

    /** Block comments nest in PostgreSQL, unlike the SQL standard's. */
    private void skipBlockComment() {
        int depth = 0;
        while (pos < limit) {
            char c = sql.charAt(pos);
            if (c == '/' && pos + 1 < limit && sql.charAt(pos + 1) == '*') {
                depth++;
                pos += 2;
            } else if (c == '*' && pos + 1 < limit && sql.charAt(pos + 1) == '/') {
                pos += 2;
                if (--depth == 0) {
                    return;
                }
            } else {
                pos++;
            }
        }
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isIdentifierStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= '\u0080';
    }

    private static boolean isTagPart(char c) {
        return isIdentifierStart(c) || isDigit(c);
    }

    private static boolean isIdentifierPart(char c) {
        return isTagPart(c) || c == '$';
    }
}
