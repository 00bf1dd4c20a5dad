package io.pgmux.jdbc.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What one statement declares about read-only work, for read routing: a transaction it opens read-only
 * ({@code BEGIN READ ONLY}, {@code START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY}), or the
 * session's default it sets ({@code SET default_transaction_read_only = on}, {@code SET SESSION CHARACTERISTICS
 * AS TRANSACTION READ ONLY}, their {@code off}/{@code READ WRITE}, {@code DEFAULT} and {@code RESET} forms).
 * Anything the grammar below does not recognise whole is {@link #NONE}: when in doubt, the primary.
 * {@code SET TRANSACTION … READ ONLY} declares the transaction it runs in read-only: it routes only as that
 * transaction's first statement, before the transaction has its server.
 */
public enum ReadIntent {
    NONE,
    /** A transaction block opened read-only. */
    READ_ONLY_TRANSACTION,
    /** The transaction this statement runs in is read-only ({@code SET TRANSACTION READ ONLY}). */
    READ_ONLY_THIS_TRANSACTION,
    /** The session's transactions are read-only from now on. */
    READ_ONLY_SESSION,
    /** The session's transactions are read-write from now on. */
    READ_WRITE_SESSION,
    /** The session's default comes back: the pool's {@code readOnly} setting. */
    DEFAULT_SESSION;

    private static final Set<String> ON = Set.of("on", "true", "yes", "1");
    private static final Set<String> OFF = Set.of("off", "false", "no", "0");
    private static final String GUC = "default_transaction_read_only";
    /** Longer statements are not one of the forms above. */
    private static final int MAX_TOKENS = 16;

    /** Whether this intent outlives its transaction: the session's default, which the logical connection keeps. */
    public boolean sessionWide() {
        return this == READ_ONLY_SESSION || this == READ_WRITE_SESSION || this == DEFAULT_SESSION;
    }

    /**
     * Whether {@code sql} may be a SET, allocating nothing: the statements that neither open a transaction nor pin
     * are lexed for an intent only then. Leading comments make it false: when in doubt, the primary.
     */
    public static boolean startsWithSet(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return i + 3 < n && sql.regionMatches(true, i, "set", 0, 3) && Character.isWhitespace(sql.charAt(i + 3));
    }

    /** The intent {@code sql}, a single statement, declares. */
    public static ReadIntent of(String sql) {
        List<String> t = tokens(sql);
        if (t == null || t.isEmpty()) {
            return NONE;
        }
        switch (t.get(0)) {
            case "begin":
                return transactionModes(t, t.size() > 1 && (t.get(1).equals("work") || t.get(1).equals("transaction"))
                        ? 2 : 1);
            case "start":
                return t.size() > 1 && t.get(1).equals("transaction") ? transactionModes(t, 2) : NONE;
            case "reset":
                return t.size() == 2 && t.get(1).equals(GUC) ? DEFAULT_SESSION : NONE;
            case "set":
                return set(t);
            default:
                return NONE;
        }
    }

    /** The tokens of {@code sql} folded to lower case, a final semicolon dropped; null when too many. */
    private static List<String> tokens(String sql) {
        SqlLexer lexer = new SqlLexer(sql, 0, sql.length());
        List<String> tokens = new ArrayList<>();
        for (int type = lexer.next(); type != SqlLexer.EOF; type = lexer.next()) {
            if (tokens.size() == MAX_TOKENS || lexer.unterminated) {
                return null;
            }
            switch (type) {
                case SqlLexer.IDENTIFIER:
                case SqlLexer.NUMBER:
                    tokens.add(sql.substring(lexer.start, lexer.end).toLowerCase(Locale.ROOT));
                    break;
                case SqlLexer.STRING:
                    if (lexer.prefix != 0) {
                        return null;
                    }
                    // a quoted value ('on') reads as the word; a quoted keyword position never matches one
                    tokens.add("'" + sql.substring(lexer.contentStart, lexer.contentEnd).toLowerCase(Locale.ROOT));
                    break;
                case SqlLexer.SYMBOL:
                    tokens.add(sql.substring(lexer.start, lexer.end));
                    break;
                default:
                    return null;
            }
        }
        if (!tokens.isEmpty() && tokens.get(tokens.size() - 1).equals(";")) {
            tokens.remove(tokens.size() - 1);
        }
        return tokens;
    }

    /**
     * BEGIN's and START TRANSACTION's modes from {@code i}: READ ONLY among ISOLATION LEVEL …, [NOT] DEFERRABLE,
     * separated by commas or spaces, and no READ WRITE.
     */
    private static ReadIntent transactionModes(List<String> t, int i) {
        boolean readOnly = false;
        while (i < t.size()) {
            String w = t.get(i);
            if (w.equals(",")) {
                i++;
            } else if (w.equals("read") && i + 1 < t.size() && t.get(i + 1).equals("only")) {
                readOnly = true;
                i += 2;
            } else if (w.equals("deferrable")) {
                i++;
            } else if (w.equals("not") && i + 1 < t.size() && t.get(i + 1).equals("deferrable")) {
                i += 2;
            } else if (w.equals("isolation") && i + 2 < t.size() && t.get(i + 1).equals("level")) {
                String level = t.get(i + 2);
                if (level.equals("serializable")) {
                    i += 3;
                } else if ((level.equals("repeatable") || level.equals("read")) && i + 3 < t.size()) {
                    i += 4;
                } else {
                    return NONE;
                }
            } else {
                return NONE;
            }
        }
        return readOnly ? READ_ONLY_TRANSACTION : NONE;
    }

    /**
     * SET [SESSION] default_transaction_read_only {TO | =} value; SET SESSION CHARACTERISTICS AS TRANSACTION …;
     * SET TRANSACTION with BEGIN's modes.
     */
    private static ReadIntent set(List<String> t) {
        if (t.size() > 1 && t.get(1).equals("transaction")) {
            return transactionModes(t, 2) == READ_ONLY_TRANSACTION ? READ_ONLY_THIS_TRANSACTION : NONE;
        }
        int i = 1;
        if (t.size() > i && t.get(i).equals("session")) {
            i++;
        }
        if (t.size() == i + 5 && t.get(i).equals("characteristics") && t.get(i + 1).equals("as")
                && t.get(i + 2).equals("transaction") && t.get(i + 3).equals("read")) {
            String mode = t.get(i + 4);
            return mode.equals("only") ? READ_ONLY_SESSION : mode.equals("write") ? READ_WRITE_SESSION : NONE;
        }
        if (t.size() != i + 3 || !t.get(i).equals(GUC) || !(t.get(i + 1).equals("to") || t.get(i + 1).equals("="))) {
            return NONE;
        }
        String value = t.get(i + 2);
        if (value.equals("default")) {
            return DEFAULT_SESSION;
        }
        String word = value.startsWith("'") ? value.substring(1) : value;
        return ON.contains(word) ? READ_ONLY_SESSION : OFF.contains(word) ? READ_WRITE_SESSION : NONE;
    }
}
