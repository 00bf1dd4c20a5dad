package io.pgmux.proxy.admin;

import java.util.Locale;

/**
 * One console command as typed: its verb and argument, upper-cased for matching, the argument also as typed
 * (database names are case-sensitive). Commands are single statements; a trailing semicolon is allowed.
 *
 * @param verb      e.g. {@code SHOW}, {@code PAUSE}
 * @param argument  the upper-cased word after the verb, or empty
 * @param name      the word after the verb as typed, or empty
 * @param extra     whatever follows that word, as typed, or empty
 * @param text      the whole command as typed, without the trailing semicolon
 * @param query     the query string as received, which error messages quote as PgBouncer's do
 */
record AdminCommand(String verb, String argument, String name, String extra, String text, String query) {

    /** Null for a blank query. */
    static AdminCommand parse(String sql) {
        String text = sql.strip();
        while (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).stripTrailing();
        }
        if (text.isEmpty()) {
            return null;
        }
        String[] parts = text.split("\\s+", 3);
        String verb = parts[0].toUpperCase(Locale.ROOT);
        String name = parts.length > 1 ? parts[1] : "";
        String extra = parts.length > 2 ? parts[2] : "";
        return new AdminCommand(verb, name.toUpperCase(Locale.ROOT), name, extra, text, sql);
    }
}
