package io.pgmux.proxy.churn;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads PostgreSQL's csvlog format: one record per log message, whose quoted fields may span lines, with the
 * time, process id, severity and message in columns 1, 4, 12 and 14. A record cut short (a new record begins
 * while a quoted field is still open, or the file ends inside one), one with too few columns or an unreadable
 * time is counted as malformed.
 */
final class CsvLogParser implements LogParser {
    private static final Pattern RECORD_START = Pattern.compile(
            "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?(?: [A-Za-z][A-Za-z0-9_/+-]*)?,");
    private static final int TIME = 0;
    private static final int PID = 3;
    private static final int SEVERITY = 11;
    private static final int MESSAGE = 13;

    private final ChurnStats stats;
    /** A record whose quoted field is still open at the end of the lines read so far. */
    private final StringBuilder pending = new StringBuilder();

    CsvLogParser(ChurnStats stats) {
        this.stats = stats;
    }

    static boolean startsRecord(String line) {
        return RECORD_START.matcher(line).lookingAt();
    }

    @Override
    public void accept(String line) {
        stats.line();
        if (!pending.isEmpty()) {
            if (startsRecord(line)) {
                stats.malformed();
                pending.setLength(0);
            } else {
                pending.append('\n');
            }
        }
        if (pending.isEmpty() && line.isEmpty()) {
            return;
        }
        pending.append(line);
        List<String> fields = fields(pending);
        if (fields == null) {
            return;
        }
        pending.setLength(0);
        long millis = fields.size() > MESSAGE ? ConnectionMessages.millisWithZone(fields.get(TIME)) : Long.MIN_VALUE;
        if (millis == Long.MIN_VALUE || !fields.get(PID).matches("\\d+")) {
            stats.malformed();
            return;
        }
        ConnectionMessages.read(stats, millis, fields.get(PID), fields.get(SEVERITY), fields.get(MESSAGE));
    }

    @Override
    public void end() {
        if (!pending.isEmpty()) {
            stats.malformed();
            pending.setLength(0);
        }
    }

    /** The fields of one record (RFC 4180 quoting, {@code ""} for a quote), or null while a quote is open. */
    private static List<String> fields(CharSequence record) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < record.length(); i++) {
            char c = record.charAt(i);
            if (quoted) {
                if (c != '"') {
                    field.append(c);
                } else if (i + 1 < record.length() && record.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        if (quoted) {
            return null;
        }
        fields.add(field.toString());
        return fields;
    }
}
