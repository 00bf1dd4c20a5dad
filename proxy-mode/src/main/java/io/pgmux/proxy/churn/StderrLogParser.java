package io.pgmux.proxy.churn;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PostgreSQL's stderr log format line by line, with a {@code log_line_prefix} that starts with the time
 * ({@code %m} or {@code %t}, PostgreSQL's default {@code '%m [%p] '}) and carries the process id as
 * {@code [%p]}; hands connection, authorization and disconnection messages to a {@link ChurnStats}.
 * Continuation lines (a tab first) belong to the message before them and are skipped; any other line that
 * does not start with a time, or a connection message whose fields cannot be read, is counted as malformed.
 */
final class StderrLogParser {
    private static final Pattern PREFIX = Pattern.compile(
            "^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?)(?: [A-Za-z][A-Za-z0-9_/+-]*)?\\s.*?\\[(\\d+)\\].*?"
                    + "\\b(LOG|DEBUG\\d?|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC|STATEMENT|DETAIL|HINT|CONTEXT):\\s+(.*)$");
    private static final Pattern RECEIVED = Pattern.compile("^connection received: host=(\\S+)(?: port=\\S+)?");
    private static final Pattern AUTHORIZED = Pattern.compile(
            "^connection authorized: user=(\\S+)(?: database=(\\S+))?(?: application_name=(.*?))?(?: (?:SSL|GSS) .*)?$");
    private static final Pattern DISCONNECTION = Pattern.compile(
            "^disconnection: session time: (\\d+):(\\d{2}):(\\d{2})(?:\\.(\\d{1,6}))? user=(\\S+) database=(\\S+) host=(\\S+)");
    private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 6, true).optionalEnd()
            .toFormatter();

    private final ChurnStats stats;

    StderrLogParser(ChurnStats stats) {
        this.stats = stats;
    }

    void accept(String line) {
        stats.line();
        if (line.isEmpty() || line.charAt(0) == '\t') {
            return;
        }
        Matcher m = PREFIX.matcher(line);
        if (!m.matches()) {
            stats.malformed();
            return;
        }
        long millis;
        try {
            millis = LocalDateTime.parse(m.group(1), TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            stats.malformed();
            return;
        }
        String pid = m.group(2);
        String message = m.group(4);
        if (!"LOG".equals(m.group(3))) {
            stats.otherMessage();
        } else if (message.startsWith("connection received:")) {
            Matcher r = RECEIVED.matcher(message);
            if (r.find()) {
                stats.received(pid, r.group(1));
            } else {
                stats.malformed();
            }
        } else if (message.startsWith("connection authorized:")) {
            Matcher a = AUTHORIZED.matcher(message);
            if (a.matches()) {
                stats.authorized(pid, millis, a.group(1), orUnknown(a.group(2)), orUnknown(a.group(3)));
            } else {
                stats.malformed();
            }
        } else if (message.startsWith("disconnection:")) {
            Matcher d = DISCONNECTION.matcher(message);
            if (d.find()) {
                long sessionMillis = ((Long.parseLong(d.group(1)) * 60 + Long.parseLong(d.group(2))) * 60
                        + Long.parseLong(d.group(3))) * 1000 + fractionMillis(d.group(4));
                stats.disconnected(pid, millis, sessionMillis, d.group(5), d.group(6), d.group(7));
            } else {
                stats.malformed();
            }
        } else if (truncated(message)) {
            stats.malformed();
        } else {
            stats.otherMessage();
        }
    }

    /** A connection message cut short, as the last line of a log copied while it was written. */
    private static boolean truncated(String message) {
        return "connection received:".startsWith(message) || "connection authorized:".startsWith(message)
                || "disconnection:".startsWith(message);
    }

    private static String orUnknown(String value) {
        return value == null || value.isEmpty() ? "?" : value;
    }

    private static long fractionMillis(String digits) {
        if (digits == null) {
            return 0;
        }
        String padded = (digits + "000").substring(0, 3);
        return Long.parseLong(padded);
    }
}
