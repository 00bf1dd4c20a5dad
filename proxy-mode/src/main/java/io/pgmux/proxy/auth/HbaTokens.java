package io.pgmux.proxy.auth;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of an hba or ident file split as PgBouncer's hba.c does: fields separated by white space, each field a
 * comma-separated list (spaces around the commas allowed) of words or double-quoted strings ({@code ""} is one quote), {@code #} starting a
 * comment. A quoted word is never a keyword ({@code "all"} is a database named all).
 */
final class HbaTokens {
    /** One word of a field; {@code quoted} words are names, never keywords. */
    record Word(String text, boolean quoted) {
        boolean is(String keyword) {
            return !quoted && text.equals(keyword);
        }
    }

    private HbaTokens() {
    }

    /**
     * The fields of {@code line}, each the words of its comma-separated list.
     *
     * @throws IllegalArgumentException for an unterminated quote or a list ending in a comma
     */
    static List<List<Word>> fields(String line) {
        List<List<Word>> fields = new ArrayList<>();
        List<Word> field = null;
        boolean afterComma = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '#') {
                break;
            }
            if (Character.isWhitespace(c)) {
                i++;
                // a list may have spaces around its commas ("user1,user2 , user3"), as PgBouncer reads it
                if (!afterComma && !commaFollows(line, i)) {
                    field = null;
                }
                continue;
            }
            if (c == ',') {
                if (field == null || afterComma) {
                    throw new IllegalArgumentException("a comma without a name before it");
                }
                afterComma = true;
                i++;
                continue;
            }
            StringBuilder word = new StringBuilder();
            boolean quoted = c == '"';
            if (quoted) {
                i++;
                while (true) {
                    if (i >= line.length()) {
                        throw new IllegalArgumentException("unterminated quoted name");
                    }
                    char q = line.charAt(i++);
                    if (q != '"') {
                        word.append(q);
                    } else if (i < line.length() && line.charAt(i) == '"') {
                        word.append('"');
                        i++;
                    } else {
                        break;
                    }
                }
            } else {
                while (i < line.length() && ",#\"".indexOf(line.charAt(i)) < 0
                        && !Character.isWhitespace(line.charAt(i))) {
                    word.append(line.charAt(i++));
                }
            }
            if (field == null) {
                field = new ArrayList<>();
                fields.add(field);
            }
            field.add(new Word(word.toString(), quoted));
            afterComma = false;
        }
        if (afterComma) {
            throw new IllegalArgumentException("a list ends with a comma");
        }
        return fields;
    }

    /** Whether the next character of {@code line} after white space from {@code i} is a comma. */
    private static boolean commaFollows(String line, int i) {
        while (i < line.length() && Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        return i < line.length() && line.charAt(i) == ',';
    }
}
