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
 * What every log format carries the same way: the time of a line and the text of PostgreSQL's connection,
 * authorization and disconnection messages, read into a {@link ChurnStats}.
 */
final class ConnectionMessages {
    private static final Pattern TIME_AND_ZONE = Pattern.compile(
            "^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?)(?: [A-Za-z][A-Za-z0-9_/+-]*)?$");
    private static final Pattern RECEIVED = Pattern.compile("^connection received: host=(\\S+)(?: port=\\S+)?");
    private static final Pattern AUTHORIZED = Pattern.compile(
            "^connection authorized: user=(\\S+)(?: database=(\\S+))?(?: application_name=(.*?))?(?: (?:SSL|GSS) .*)?$");
    private static final Pattern DISCONNECTION = Pattern.compile(
            "^disconnection: session time: (\\d+):(\\d{2}):(\\d{2})(?:\\.(\\d{1,6}))? user=(\\S+) database=(\\S+) host=(\\S+)");
    private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 6, true).optionalEnd()
            .toFormatter();

    private ConnectionMessages() {
    }

    /**
     * Milliseconds since the epoch of a log time ({@code 2026-12-01 14:15:14.581}, taken as UTC), or
     * {@link Long#MIN_VALUE} when it cannot be read.
     */
    static long millis(String time) {
        try {
            return LocalDateTime.parse(time, TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            return Long.MIN_VALUE;
        }
    }

    /** As {@link #millis}, for a time followed by its zone's name ({@code %m}, csvlog, jsonlog). */
    static long millisWithZone(String timeAndZone) {
        Matcher m = TIME_AND_ZONE.matcher(timeAndZone);
        return m.matches() ? millis(m.group(1)) : Long.MIN_VALUE;
    }

    /** One message of the server's, of severity {@code severity}, logged at {@code millis} by process {@code pid}. */
    static void read(ChurnStats stats, long millis, String pid, String severity, String message) {
        if (!"LOG".equals(severity)) {
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
                long sessionMillis = sessionMillis(d, millis);
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

    /**
     * The session time of a disconnection message in milliseconds, checked to end at {@code endMillis} on a
     * millisecond clock: hours of any number of digits are what the pattern takes, but not what a long holds.
     */
    private static long sessionMillis(Matcher d, long endMillis) {
        try {
            long seconds = Math.addExact(Math.multiplyExact(Math.addExact(
                    Math.multiplyExact(Long.parseLong(d.group(1)), 60), Long.parseLong(d.group(2))), 60),
                    Long.parseLong(d.group(3)));
            long sessionMillis = Math.addExact(Math.multiplyExact(seconds, 1000), fractionMillis(d.group(4)));
            Math.subtractExact(endMillis, sessionMillis);
            return sessionMillis;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new LogLineException("session time " + d.group(1) + ":" + d.group(2) + ":" + d.group(3)
                    + " is out of range");
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
