package io.pgmux.proxy.standalone;

import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where the standalone proxy's log lines go, in PgBouncer's format
 * ({@code 2025-01-01 12:00:00.000 UTC [1234] LOG message}): stderr unless {@code -q}, and the {@code logfile},
 * opened for appending and opened again on SIGHUP so that a rotated file is let go. Verbosity is PgBouncer's:
 * 0 logs LOG and above, 1 ({@code -v} or {@code verbose=1}) adds DEBUG, 2 adds NOISE. A logged exception shows as
 * its message; its stack trace is written from verbosity 1 on only.
 */
public final class ProcessLog {
    /** PgBouncer's level names, most severe first. */
    public enum Level {
        FATAL, ERROR, WARNING, LOG, DEBUG, NOISE
    }

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS z");
    private static final long PID = ProcessHandle.current().pid();

    private static volatile boolean quiet;
    private static volatile int verbosity;
    private static volatile PrintStream file;
    private static final PrintStream STDERR = System.err;

    private ProcessLog() {
    }

    /** {@code -q}: nothing to stderr; the logfile, when set, still gets every line. */
    public static void quiet(boolean on) {
        quiet = on;
    }

    public static void verbosity(int level) {
        verbosity = Math.max(0, level);
    }

    public static boolean enabled(Level level) {
        return level.ordinal() <= Level.LOG.ordinal() + verbosity;
    }

    /**
     * Appends to {@code path} from now on (null: no file), closing the file written so far.
     *
     * @throws IOException when the file cannot be opened; the previous file is kept then
     */
    public static void logfile(Path path) throws IOException {
        PrintStream opened;
        try {
            opened = path == null ? null
                    : new PrintStream(new FileOutputStream(path.toFile(), true), true, StandardCharsets.UTF_8);
        } catch (FileNotFoundException e) {
            throw new IOException("cannot open logfile: " + e.getMessage(), e);
        }
        PrintStream previous = file;
        file = opened;
        if (previous != null) {
            previous.close();
        }
    }

    public static void write(Level level, String message, Throwable thrown) {
        if (!enabled(level)) {
            return;
        }
        StringBuilder line = new StringBuilder(64 + message.length())
                .append(TIMESTAMP.format(ZonedDateTime.now())).append(" [").append(PID).append("] ")
                .append(level.name()).append(' ').append(message);
        if (thrown != null) {
            if (verbosity > 0) {
                StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                line.append(System.lineSeparator()).append(trace.toString().stripTrailing());
            } else if (thrown.getMessage() == null || !message.contains(thrown.getMessage())) {
                line.append(": ").append(thrown);
            }
        }
        String text = line.toString();
        PrintStream out = file;
        if (out != null) {
            out.println(text);
        }
        if (!quiet) {
            STDERR.println(text);
        }
    }
}
