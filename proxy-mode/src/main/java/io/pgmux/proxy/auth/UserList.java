package io.pgmux.proxy.auth;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An auth file in PgBouncer's userlist.txt format: one {@code "user" "secret"} per line, each a double-quoted
 * string in which {@code ""} stands for one quote; the secret is a plaintext password, an md5 hash or a
 * SCRAM-SHA-256 verifier ({@link Secret#parse}). Blank lines and lines starting with {@code ;} or {@code #}
 * are ignored, and so is anything after the second string, as PgBouncer does. A user listed twice keeps the
 * last secret, as in PgBouncer.
 *
 * <p>Unlike PgBouncer, which logs "broken auth file" and keeps the users read so far, a malformed line fails
 * the whole load with a {@link UserListFormatException} naming the line: a half-loaded user list locks users
 * out without a clear cause.
 */
public final class UserList implements UserSecrets {
    private final Map<String, Secret> secrets;

    private UserList(Map<String, Secret> secrets) {
        this.secrets = Collections.unmodifiableMap(secrets);
    }

    /**
     * @throws UserListFormatException naming the file and line that is malformed or holds a byte that is not UTF-8
     * @throws IOException when the file cannot be read
     */
    public static UserList load(Path file) throws IOException {
        String source = "auth_file " + file;
        List<String> lines = Utf8Lines.read(file, (line, problem) -> new UserListFormatException(source, line, problem));
        return parse(lines, source);
    }

    public static UserList parse(String content) {
        try {
            return parse(new StringReader(content));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static UserList parse(Reader reader) throws IOException {
        try (BufferedReader lines = new BufferedReader(reader)) {
            return parse(lines.lines().toList(), "auth file");
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static UserList parse(List<String> lines, String source) {
        Map<String, Secret> secrets = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            new LineParser(lines.get(i), i + 1, source).parseInto(secrets);
        }
        return new UserList(secrets);
    }

    @Override
    public Optional<Secret> find(String user) {
        return Optional.ofNullable(secrets.get(user));
    }

    public Set<String> users() {
        return secrets.keySet();
    }

    public int size() {
        return secrets.size();
    }

    @Override
    public String toString() {
        return "UserList(" + secrets.size() + " users)";
    }

    private static final class LineParser {
        private final String line;
        private final int lineNumber;
        private final String source;
        private int position;

        LineParser(String line, int lineNumber, String source) {
            this.line = line;
            this.lineNumber = lineNumber;
            this.source = source;
        }

        void parseInto(Map<String, Secret> secrets) {
            skipWhitespace();
            if (position == line.length() || line.charAt(position) == ';' || line.charAt(position) == '#') {
                return;
            }
            String user = quoted("user name");
            if (user.isEmpty()) {
                throw new UserListFormatException(source, lineNumber, "empty user name");
            }
            skipWhitespace();
            String stored = quoted("secret");
            try {
                secrets.put(user, Secret.parse(stored));
            } catch (IllegalArgumentException e) {
                throw new UserListFormatException(source, lineNumber, e.getMessage() + " for user \"" + user + "\"");
            }
        }

        private String quoted(String what) {
            if (position == line.length() || line.charAt(position) != '"') {
                throw new UserListFormatException(source, lineNumber, "expected a double-quoted " + what);
            }
            StringBuilder value = new StringBuilder();
            position++;
            while (position < line.length()) {
                char c = line.charAt(position++);
                if (c != '"') {
                    value.append(c);
                } else if (position < line.length() && line.charAt(position) == '"') {
                    value.append('"');
                    position++;
                } else {
                    return value.toString();
                }
            }
            throw new UserListFormatException(source, lineNumber, "unterminated quoted " + what);
        }

        private void skipWhitespace() {
            while (position < line.length() && Character.isWhitespace(line.charAt(position))) {
                position++;
            }
        }
    }
}
