package io.pgmux.proxy.parameters;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads in a Query or Parse text which custom settings ({@code prefix.name}) it may set for the session, which
 * PostgreSQL lists nowhere: {@code SET [SESSION|LOCAL] a.b …}, {@code RESET a.b}, {@code set_config('a.b', …)},
 * also inside strings and function bodies ({@code EXECUTE 'SET a.b = 1'}, {@code DO $$ … set_config(…) $$}). A
 * name found is handed to the client's {@link ClientParameters}, whose read of the session's settings then
 * includes it. Where the text sets a setting whose name it does not show ({@code set_config($1, …)}, {@code SET}
 * followed by a string or a {@code U&""} identifier, as when a statement is built at run time) the result says so,
 * and the client must keep its server.
 *
 * <p>Strings and comments are not skipped, since a lexer that guessed standard_conforming_strings wrong could hide
 * a real SET inside what it took for a string: a word in a string costs at most a name read for nothing. The
 * common text that contains no {@code set} at all is passed over in one walk that allocates nothing.
 */
public final class SettingStatements {
    /**
     * The text calls set_config or sets a custom setting: settings may change under a command tag other than SET
     * (SELECT, DO).
     */
    public static final int SETS_SETTINGS = 1;
    /** The text sets a setting whose name it does not show. */
    public static final int UNKNOWN_NAME = 2;

    private static final long LOWER_S = EightBytes.each('s');
    private static final long LOWER_E = EightBytes.each('e');
    private static final long LOWER_T = EightBytes.each('t');
    private static final long AMPERSANDS = EightBytes.each('&');
    private static final long QUOTES = EightBytes.each('"');

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)+");

    /** What {@link #qualifiedName} returns for a name without a dot, which is no custom setting. */
    private static final String PLAIN = "";

    private final ClientParameters into;
    /** The text scanned now: the event loop's copy of the message, or the bytes of a text too long for one. */
    private byte[] text;
    private int from;
    private int end;
    private int at;
    private int result;

    /** A scanner for one client's texts: the custom names it finds go to {@code into}. Not thread-safe. */
    public SettingStatements(ClientParameters into) {
        this.into = into;
    }

    /**
     * Scans {@code text} from {@code from} to {@code to}. Returns {@link #SETS_SETTINGS} and {@link #UNKNOWN_NAME}
     * flags.
     */
    public int scan(ByteBuf text, int from, int to) {
        return scan(text, from, to, null, 0);
    }

    /**
     * The same, with the bytes of {@code text} from {@code copyStart} on also in {@code copy} (or null): most texts
     * set nothing, which the copy tells without reading the buffer byte by byte.
     */
    public int scan(ByteBuf text, int from, int to, byte[] copy, int copyStart) {
        int first;
        // the closer look reads an array: the copy, or for a text too long for one (rare) its own bytes
        if (copy != null) {
            first = nextCandidate(copy, from - copyStart, to - copyStart);
            if (first < 0) {
                return 0;
            }
            this.text = copy;
            this.from = from - copyStart;
            this.end = to - copyStart;
        } else {
            if (!containsSet(text, from, to)) {
                return 0;
            }
            this.text = ByteBufUtil.getBytes(text, from, to - from);
            this.from = 0;
            this.end = to - from;
            first = nextCandidate(this.text, 0, this.end);
        }
        this.at = this.from;
        this.result = 0;
        try {
            run(first);
            return result;
        } finally {
            this.text = null;
        }
    }

    /**
     * Whether the bytes hold {@code set} in any case, or the {@code &"} of a {@code U&""} identifier, which may
     * spell it with escapes: the only texts worth a closer look.
     */
    private static boolean containsSet(ByteBuf text, int from, int to) {
        for (int i = from; i + 1 < to; i++) {
            byte b = text.getByte(i + 1);
            if (b == '"' && text.getByte(i) == '&') {
                return true;
            }
            // one byte read per position: the middle of "set", or the quote of U&"
            if ((b | 0x20) == 'e' && i + 2 < to && (text.getByte(i + 2) | 0x20) == 't'
                    && (text.getByte(i) | 0x20) == 's') {
                return true;
            }
        }
        return false;
    }

    /**
     * Where the first {@code set} (any case) or {@code &"} at or after {@code from} starts, as
     * {@link #containsSet(ByteBuf, int, int)} looks for them; -1 when there is none.
     */
    private static int nextCandidate(byte[] text, int from, int to) {
        int i = from;
        // eight positions at a time, from three overlapping longs: the bytes at each position, one and two after it
        for (; i + Long.BYTES + 2 <= to; i += Long.BYTES) {
            long set = (EightBytes.lowerAt(text, i) ^ LOWER_S) | (EightBytes.lowerAt(text, i + 1) ^ LOWER_E)
                    | (EightBytes.lowerAt(text, i + 2) ^ LOWER_T);
            long quote = (EightBytes.at(text, i) ^ AMPERSANDS) | (EightBytes.at(text, i + 1) ^ QUOTES);
            long found = EightBytes.zeroBytes(set) | EightBytes.zeroBytes(quote);
            if (found != 0) {
                // the lowest flag marks a real match: a false one only ever lies above a real one of the same kind
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i + 1 < to; i++) {
            byte b = text[i + 1];
            if (b == '"' && text[i] == '&') {
                return i;
            }
            if ((b | 0x20) == 'e' && i + 2 < to && (text[i + 2] | 0x20) == 't' && (text[i] | 0x20) == 's') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Where the word holding {@code candidate} starts (the {@code re} of {@code reset}, the {@code U} of
     * {@code U&"}), or its opening quote ({@code "set_config"}); never before {@link #at}.
     */
    private int wordStart(int candidate) {
        int start = candidate;
        while (start > at && isIdentifierPart(text[start - 1])) {
            start--;
        }
        return start > at && text[start - 1] == '"' ? start - 1 : start;
    }

    /**
     * Reads the words that may set something: each step starts at the next word holding {@code set} or {@code &"}
     * (the words between set nothing), so an {@code UPDATE … SET …} is not read word by word; {@code first} is the
     * first such word's candidate, which the look before found.
     */
    private void run(int first) {
        int candidate = first;
        at = Math.max(at, wordStart(first));
        while (at < end) {
            if (candidate < at) {
                candidate = nextCandidate(text, at, end);
                if (candidate < 0) {
                    return;
                }
                at = Math.max(at, wordStart(candidate));
            }
            byte b = text[at];
            if (isIdentifierStart(b) && (at == from || !isIdentifierPart(text[at - 1]))) {
                int wordStart = at;
                skipWord();
                if (isWord(wordStart, "set")) {
                    afterSet(true);
                } else if (isWord(wordStart, "reset")) {
                    afterSet(false);
                } else if (isWord(wordStart, "set_config")) {
                    afterSetConfig();
                } else if ((b | 0x20) == 'u' && at - wordStart == 1 && at + 1 < end && text[at] == '&'
                        && text[at + 1] == '"') {
                    // U&"…" may spell set_config or a name with escapes: what it names is not read here
                    result |= UNKNOWN_NAME;
                }
            } else if (b == '"' && at + 11 < end && isQuoted("\"set_config\"")) {
                at += 12;
                afterSetConfig();
            } else {
                at++;
            }
        }
    }

    /** After SET or RESET: an optional SESSION or LOCAL, then the setting's name. */
    private void afterSet(boolean set) {
        int spaceStart = at;
        skipSpace();
        int nameStart = at;
        if (set && at < end && isIdentifierStart(text[at])) {
            skipWord();
            if (isWord(nameStart, "session") || isWord(nameStart, "local")) {
                skipSpace();
                if (at < end && text[at] != '.') {
                    nameStart = at;
                }
            }
            at = nameStart;
        }
        if (at >= end) {
            return;
        }
        byte b = text[at];
        // a statement built at run time: EXECUTE 'SET ' || name, format('SET %I …'), a placeholder
        if (b == '%' || b == '$' || b == ':' || b == '\'' && at > spaceStart) {
            result |= UNKNOWN_NAME;
            return;
        }
        if (b != '"' && !isIdentifierStart(b)) {
            // UPDATE t SET (a, b) = …, ALTER TABLE t SET (…), the end of a statement: no setting named
            return;
        }
        String name = qualifiedName();
        if (name == null) {
            result |= UNKNOWN_NAME;
            return;
        }
        if (name == PLAIN) {
            if (!set && isWordAt(nameStart, "all")) {
                into.resetSeen(null);
            }
        } else {
            result |= SETS_SETTINGS;
            if (!into.watch(name)) {
                result |= UNKNOWN_NAME;
            }
            if (!set || isDefault()) {
                into.resetSeen(name);
            }
        }
    }

    /** After a SET's name: {@code TO DEFAULT} or {@code = DEFAULT}, which is a RESET. */
    private boolean isDefault() {
        skipSpace();
        if (at < end && text[at] == '=') {
            at++;
        } else if (at + 1 < end && (text[at] | 0x20) == 't' && (text[at + 1] | 0x20) == 'o') {
            at += 2;
        } else {
            return false;
        }
        skipSpace();
        int word = at;
        skipWord();
        return isWord(word, "default");
    }

    /** After set_config: the name must be a plain literal, else it is unknown. */
    private void afterSetConfig() {
        skipSpace();
        if (at >= end || text[at] != '(') {
            return;
        }
        result |= SETS_SETTINGS;
        at++;
        skipSpace();
        if (at >= end || text[at] != '\'') {
            result |= UNKNOWN_NAME;
            return;
        }
        int start = at + 1;
        int close = start;
        while (close < end && text[close] != '\'' && text[close] != '\\') {
            close++;
        }
        if (close >= end || close == start || text[close] == '\\'
                || close + 1 < end && text[close + 1] == '\'') {
            result |= UNKNOWN_NAME;
            return;
        }
        String name = new String(text, start, close - start, StandardCharsets.UTF_8)
                .toLowerCase(Locale.ROOT);
        at = close + 1;
        if (name.indexOf('.') > 0) {
            if (NAME.matcher(name).matches()) {
                into.watch(name);
            } else {
                result |= UNKNOWN_NAME;
            }
        }
    }

    /**
     * A name of plain or quoted identifiers joined by dots ({@code app.tenant}, {@code "App" . tenant}), as
     * PostgreSQL folds it; null for anything else, or a name the pooler cannot read back.
     */
    private String qualifiedName() {
        int start = at;
        boolean dotted = false;
        while (true) {
            if (at >= end) {
                return null;
            }
            byte b = text[at];
            if (b == '"') {
                at++;
                while (at < end && text[at] != '"') {
                    dotted |= text[at] == '.';
                    at++;
                }
                if (at >= end || at + 1 < end && text[at + 1] == '"') {
                    return null;
                }
                at++;
            } else if (isIdentifierStart(b) && !((b | 0x20) == 'u' && at + 1 < end && text[at + 1] == '&')) {
                skipWord();
            } else {
                return null;
            }
            skipSpace();
            if (at < end && text[at] == '.') {
                dotted = true;
                at++;
                skipSpace();
                continue;
            }
            if (!dotted) {
                // UPDATE t SET col = …: read without a string
                return PLAIN;
            }
            at = start;
            return dottedName();
        }
    }

    /** The name {@link #qualifiedName} found to hold a dot, read again into a string. */
    private String dottedName() {
        StringBuilder name = new StringBuilder();
        while (true) {
            if (at >= end) {
                return null;
            }
            byte b = text[at];
            if (b == '"') {
                int start = ++at;
                while (at < end && text[at] != '"') {
                    at++;
                }
                if (at >= end || at + 1 < end && text[at + 1] == '"') {
                    return null;
                }
                name.append(new String(text, start, at - start, StandardCharsets.UTF_8));
                at++;
            } else if (isIdentifierStart(b) && !((b | 0x20) == 'u' && at + 1 < end && text[at + 1] == '&')) {
                int start = at;
                skipWord();
                name.append(new String(text, start, at - start, StandardCharsets.UTF_8)
                        .toLowerCase(Locale.ROOT));
            } else {
                return null;
            }
            skipSpace();
            if (at < end && text[at] == '.') {
                at++;
                skipSpace();
                name.append('.');
                continue;
            }
            String qualified = name.toString().toLowerCase(Locale.ROOT);
            // GUC names compare case-insensitively; one the pooler cannot quote back is unknown to it
            return NAME.matcher(qualified).matches() ? qualified : null;
        }
    }

    /** Whitespace and comments, nested ones included. */
    private void skipSpace() {
        while (at < end) {
            byte b = text[at];
            if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == 0x0B) {
                at++;
            } else if (b == '-' && at + 1 < end && text[at + 1] == '-') {
                while (at < end && text[at] != '\n') {
                    at++;
                }
            } else if (b == '/' && at + 1 < end && text[at + 1] == '*') {
                int depth = 0;
                while (at < end) {
                    if (text[at] == '/' && at + 1 < end && text[at + 1] == '*') {
                        depth++;
                        at += 2;
                    } else if (text[at] == '*' && at + 1 < end && text[at + 1] == '/') {
                        at += 2;
                        if (--depth == 0) {
                            break;
                        }
                    } else {
                        at++;
                    }
                }
            } else {
                return;
            }
        }
    }

    private void skipWord() {
        while (at < end && isIdentifierPart(text[at])) {
            at++;
        }
    }

    private boolean isWord(int start, String word) {
        if (at - start != word.length()) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if ((text[start + i] | 0x20) != word.charAt(i) && text[start + i] != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the word {@code word}, in any case, starts at {@code start} and ends there. */
    private boolean isWordAt(int start, String word) {
        int after = start + word.length();
        if (after > end || after < end && isIdentifierPart(text[after])) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if ((text[start + i] | 0x20) != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean isQuoted(String quoted) {
        for (int i = 0; i < quoted.length(); i++) {
            if (text[at + i] != quoted.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIdentifierStart(byte b) {
        return (b | 0x20) >= 'a' && (b | 0x20) <= 'z' || b == '_' || b < 0;
    }

    private static boolean isIdentifierPart(byte b) {
        return isIdentifierStart(b) || b >= '0' && b <= '9' || b == '$';
    }
}
