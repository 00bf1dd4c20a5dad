package io.pgmux.proxy.config;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * PgBouncer's {@code key=value key='quoted value'} lists, the values of {@code [databases]} and {@code [users]}
 * entries; a quote inside a quoted value is written twice. A key given twice keeps the last value.
 *
 * <p>An error never quotes the text: a {@code [databases]} entry holds a password, and the error reaches the log
 * and RELOAD's DETAIL. It names the key it is at, or the one before, and the character.
 */
public final class ConnectString {
    private ConnectString() {
    }

    /**
     * @param owner what the list belongs to, for messages ("database app", "user bob")
     * @throws IllegalArgumentException at text that is no key=value pair, a quoted value without its closing quote
     *     (which would swallow the keys after it), or a connection URI
     */
    public static Map<String, String> parse(String owner, String s) {
        String start = s.stripLeading().toLowerCase(Locale.ROOT);
        if (start.startsWith("postgresql://") || start.startsWith("postgres://")) {
            throw new IllegalArgumentException(owner + ": a connection URI is not taken here (as in PgBouncer):"
                    + " write its parts as key=value pairs (host, port, dbname, user, password)");
        }
        Map<String, String> pairs = new LinkedHashMap<>();
        String previous = null;
        int i = 0;
        while (i < s.length()) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i == s.length()) {
                break;
            }
            int keyStart = i;
            while (i < s.length() && isKeyCharacter(s.charAt(i))) {
                i++;
            }
            String key = s.substring(keyStart, i);
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (key.isEmpty() || i == s.length() || s.charAt(i) != '=') {
                throw new IllegalArgumentException(owner + ": expected key=value at character " + (keyStart + 1)
                        + (previous == null ? "" : ", after " + previous)
                        + " (a value with spaces is quoted: key='a value')");
            }
            StringBuilder value = new StringBuilder();
            i++;
            // as PgBouncer's loader: spaces after '=' too (puser1 = max_user_connections = 1)
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i < s.length() && s.charAt(i) == '\'') {
                i++;
                while (true) {
                    if (i == s.length()) {
                        throw new IllegalArgumentException(owner + ": the quoted value of " + key + " has no"
                                + " closing quote (a quote inside is written twice: '')");
                    }
                    char c = s.charAt(i++);
                    if (c != '\'') {
                        value.append(c);
                    } else if (i < s.length() && s.charAt(i) == '\'') {
                        value.append('\'');
                        i++;
                    } else {
                        break;
                    }
                }
                if (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                    throw new IllegalArgumentException(owner + ": expected a space after the quoted value of " + key
                            + " at character " + (i + 1));
                }
            } else {
                while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                    value.append(s.charAt(i++));
                }
            }
            pairs.put(key, value.toString());
            previous = key;
        }
        return pairs;
    }

    /** A key is a word, as PgBouncer's keys are; an error may then name it without quoting anything else. */
    private static boolean isKeyCharacter(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '_');
    }
}
