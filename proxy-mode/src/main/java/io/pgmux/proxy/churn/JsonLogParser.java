package io.pgmux.proxy.churn;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads PostgreSQL's jsonlog format (PostgreSQL 15 and later): one JSON object per line, whose
 * {@code timestamp}, {@code pid}, {@code error_severity} and {@code message} are read. A line that is no
 * complete object, or lacks one of these, is counted as malformed.
 */
final class JsonLogParser implements LogParser {
    private final ChurnStats stats;

    JsonLogParser(ChurnStats stats) {
        this.stats = stats;
    }

    @Override
    public void accept(String line) {
        stats.line();
        if (line.isBlank()) {
            return;
        }
        Map<String, String> object = FlatObject.parse(line);
        String time = object == null ? null : object.get("timestamp");
        String pid = object == null ? null : object.get("pid");
        String severity = object == null ? null : object.get("error_severity");
        String message = object == null ? null : object.get("message");
        long millis = time == null ? Long.MIN_VALUE : ConnectionMessages.millisWithZone(time);
        if (millis == Long.MIN_VALUE || pid == null || !pid.matches("\\d+") || severity == null || message == null) {
            stats.malformed();
            return;
        }
        ConnectionMessages.read(stats, millis, pid, severity, message);
    }

    /**
     * A JSON object whose values are strings, numbers, booleans or null, as jsonlog writes them: each value as
     * its text (a string unescaped). Null for anything else, a cut-short line included.
     */
    static final class FlatObject {
        private final String text;
        private int at;

        private FlatObject(String text) {
            this.text = text;
        }

        static Map<String, String> parse(String line) {
            try {
                return new FlatObject(line).object();
            } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                return null;
            }
        }

        private Map<String, String> object() {
            Map<String, String> values = new HashMap<>();
            expect('{');
            if (peek() == '}') {
                at++;
            } else {
                do {
                    String key = string();
                    expect(':');
                    values.put(key, value());
                } while (comma());
                expect('}');
            }
            if (!text.substring(at).isBlank()) {
                throw new IllegalArgumentException("text after the object");
            }
            return values;
        }

        private boolean comma() {
            if (peek() == ',') {
                at++;
                return true;
            }
            return false;
        }

        private String value() {
            char c = peek();
            if (c == '"') {
                return string();
            }
            int start = at;
            while (at < text.length() && "-+.0123456789eEtruefalsn".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            String literal = text.substring(start, at);
            if (literal.isEmpty()) {
                throw new IllegalArgumentException("no value at " + start);
            }
            return literal.equals("null") ? null : literal;
        }

        private String string() {
            expect('"');
            StringBuilder s = new StringBuilder();
            for (char c = text.charAt(at++); c != '"'; c = text.charAt(at++)) {
                if (c != '\\') {
                    s.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case '"', '\\', '/' -> s.append(e);
                    case 'b' -> s.append('\b');
                    case 'f' -> s.append('\f');
                    case 'n' -> s.append('\n');
                    case 'r' -> s.append('\r');
                    case 't' -> s.append('\t');
                    case 'u' -> {
                        s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> throw new IllegalArgumentException("bad escape \\" + e);
                }
            }
            return s.toString();
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected " + c + " at " + at);
            }
            at++;
        }

        private char peek() {
            while (Character.isWhitespace(text.charAt(at))) {
                at++;
            }
            return text.charAt(at);
        }
    }
}
