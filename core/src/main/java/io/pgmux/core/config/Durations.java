package io.pgmux.core.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Parses durations written the ways our users already write them: {@code 30s}, {@code 500ms}, {@code 2m},
 * {@code 1h}, {@code 1d}, ISO-8601 ({@code PT30S}), or a bare number in the unit of the naming convention
 * used (seconds for PgBouncer names, milliseconds for HikariCP and pgmux names).
 */
public final class Durations {
    private Durations() {
    }

    public static Duration parse(String text, boolean bareNumberIsSeconds) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.isEmpty()) {
            throw new IllegalArgumentException("is empty");
        }
        if (s.startsWith("p") || s.startsWith("-p")) {
            try {
                return Duration.parse(text.trim());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("is not an ISO-8601 duration");
            }
        }
        int i = 0;
        if (s.charAt(0) == '-' || s.charAt(0) == '+') {
            i++;
        }
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        String number = s.substring(0, i);
        String unit = s.substring(i).trim();
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("is not a duration (use e.g. 30s, 500ms, 2m, 1h or PT30S)");
        }
        double nanosPerUnit;
        switch (unit) {
            case "":
                nanosPerUnit = bareNumberIsSeconds ? 1e9 : 1e6;
                break;
            case "us":
                nanosPerUnit = 1e3;
                break;
            case "ms":
                nanosPerUnit = 1e6;
                break;
            case "s":
            case "sec":
                nanosPerUnit = 1e9;
                break;
            case "m":
            case "min":
                nanosPerUnit = 60e9;
                break;
            case "h":
                nanosPerUnit = 3600e9;
                break;
            case "d":
                nanosPerUnit = 86400e9;
                break;
            default:
                throw new IllegalArgumentException("has unknown unit '" + unit + "' (use us, ms, s, m, h or d)");
        }
        double nanos = value * nanosPerUnit;
        // Math.round saturates: a value beyond a long of nanoseconds (292 years) would silently become that.
        if (Math.abs(nanos) >= 0x1p63) {
            throw new IllegalArgumentException("is too large (at most 106751d)");
        }
        return Duration.ofNanos(Math.round(nanos));
    }

    /** Renders a duration the way SHOW CONFIG and error messages print it. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 == 0) {
            return (ms / 1000) + "s";
        }
        return ms + "ms";
    }
}
