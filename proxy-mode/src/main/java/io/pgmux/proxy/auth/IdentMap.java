package io.pgmux.proxy.auth;

import io.pgmux.proxy.auth.HbaTokens.Word;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * PgBouncer's auth_ident_file: lines {@code map-name system-username database-username}, the last {@code all}
 * or one user name; no regular expressions, groups or includes. A map lets the system user (the common name of
 * a client certificate, the peer of a Unix socket) log in as the database user.
 */
public final class IdentMap {
    public static final IdentMap EMPTY = new IdentMap(List.of());

    private record Entry(String map, String systemUser, String databaseUser, boolean allUsers) {
    }

    private final List<Entry> entries;

    private IdentMap(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * @throws HbaFormatException naming file and line of what pgmux cannot use
     * @throws java.io.UncheckedIOException when the file cannot be read
     */
    public static IdentMap load(Path file) {
        List<Entry> entries = new ArrayList<>();
        List<String> text = HbaFile.readLines(file);
        for (int i = 0; i < text.size(); i++) {
            List<List<Word>> fields;
            try {
                fields = HbaTokens.fields(text.get(i));
            } catch (IllegalArgumentException e) {
                throw new HbaFormatException(file, i + 1, e.getMessage());
            }
            if (fields.isEmpty()) {
                continue;
            }
            if (fields.size() != 3 || fields.stream().anyMatch(f -> f.size() != 1)) {
                throw new HbaFormatException(file, i + 1, "expected map-name system-username database-username");
            }
            Word system = fields.get(1).get(0);
            Word database = fields.get(2).get(0);
            if (!system.quoted() && system.text().startsWith("/")) {
                throw new HbaFormatException(file, i + 1, "regular expressions are not supported");
            }
            if (!database.quoted() && (database.text().startsWith("+") || database.text().startsWith("/"))) {
                throw new HbaFormatException(file, i + 1, "groups and regular expressions are not supported");
            }
            entries.add(new Entry(fields.get(0).get(0).text(), system.text(), database.text(), database.is("all")));
        }
        return new IdentMap(entries);
    }

    /** Whether {@code map} lets {@code systemUser} log in as {@code databaseUser}. */
    public boolean allows(String map, String systemUser, String databaseUser) {
        for (Entry e : entries) {
            if (e.map.equals(map) && e.systemUser.equals(systemUser)
                    && (e.allUsers || e.databaseUser.equals(databaseUser))) {
                return true;
            }
        }
        return false;
    }
}
