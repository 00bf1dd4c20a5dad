package io.pgmux.proxy.churn;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PostgreSQL's stderr log format line by line, with a {@code log_line_prefix} that starts with the time
 * ({@code %m} or {@code %t}, PostgreSQL's default {@code '%m [%p] '}) and carries the process id as
 * {@code [%p]}. Continuation lines (a tab first) belong to the message before them and are skipped; any other
 * line that does not start with a time, or a connection message whose fields cannot be read, is counted as
 * malformed.
 */
final class StderrLogParser implements LogParser {
    private static final Pattern PREFIX = Pattern.compile(
            "^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?)(?: [A-Za-z][A-Za-z0-9_/+-]*)?\\s.*?\\[(\\d+)\\].*?"
                    + "\\b(LOG|DEBUG\\d?|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC|STATEMENT|DETAIL|HINT|CONTEXT):\\s+(.*)$");

    private final ChurnStats stats;

    StderrLogParser(ChurnStats stats) {
        this.stats = stats;
    }

    @Override
    public void accept(String line) {
        stats.line();
        if (line.isEmpty() || line.charAt(0) == '\t') {
            return;
        }
        Matcher m = PREFIX.matcher(line);
        long millis = m.matches() ? ConnectionMessages.millis(m.group(1)) : Long.MIN_VALUE;
        if (millis == Long.MIN_VALUE) {
            stats.malformed();
            return;
        }
        ConnectionMessages.read(stats, millis, m.group(2), m.group(3), m.group(4));
    }
}
