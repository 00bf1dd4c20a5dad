package io.pgmux.proxy.standalone;

import io.pgmux.proxy.config.SyslogFacility;
import io.pgmux.proxy.log.ProcessId;
import io.pgmux.proxy.log.Syslog;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where the standalone proxy's log lines go, in PgBouncer's format
 * ({@code 2025-01-01 12:00:00.000 UTC [1234] LOG message}): stderr unless {@code -q}, and the {@code logfile},
 * opened for appending and opened again on SIGHUP so that a rotated file is let go. Verbosity is PgBouncer's:
 * 0 logs LOG and above, 1 ({@code -v} or {@code verbose=1}) adds DEBUG, 2 adds NOISE. A logged exception shows as
 * its message; its stack trace is written from verbosity 1 on only. With {@code syslog = 1} the lines of level LOG
 * and above also go to the local syslog ({@link Syslog}), without timestamp, pid and level, which syslog adds, as
 * PgBouncer sends them: FATAL as crit, ERROR as err, WARNING as warning, LOG as info.
 */
public final class ProcessLog {
    /** PgBouncer's level names, most severe first. */
    public enum Level {
        FATAL, ERROR, WARNING, LOG, DEBUG, NOISE
    }

    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private static final DateTimeFormatter ZONE = DateTimeFormatter.ofPattern("z");
    private static final long PID = ProcessId.pid();

    private static volatile boolean quiet;
    private static volatile int verbosity;
    private static volatile PrintStream file;
    private static volatile Syslog syslog;
    /** Why syslog could not be opened last, so that a RELOAD does not repeat it. */
    private static String syslogTrouble;
    /** A start and RELOADs (a signal's, the console's) may change syslog at once; opening it waits for a socket. */
    private static final ReentrantLock SYSLOG_CHANGE = new ReentrantLock();
    private static final PrintStream STDERR = System.err;
    /** The last second a line was written in, formatted: a login's two lines would each format a date otherwise. */
    private static volatile Second second = new Second(Long.MIN_VALUE, "", "");

    private record Second(long epochSecond, String dateTime, String zone) {
    }

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

    /**
     * syslog, syslog_ident and syslog_facility, as set at start and by each RELOAD: opens the socket anew when they
     * changed. Where there is no syslog socket the lines go to stderr and the logfile only, which is said once.
     */
    public static void syslog(boolean on, String ident, SyslogFacility facility) {
        SYSLOG_CHANGE.lock();
        try {
            changeSyslog(on, ident, facility);
        } finally {
            SYSLOG_CHANGE.unlock();
        }
    }

    private static void changeSyslog(boolean on, String ident, SyslogFacility facility) {
        Syslog current = syslog;
        if (current != null && on && current.ident().equals(ident) && current.facility() == facility) {
            return;
        }
        syslog = null;
        if (current != null) {
            current.close();
        }
        if (!on) {
            syslogTrouble = null;
            return;
        }
        Path socket = Syslog.socket();
        try {
            syslog = Syslog.open(socket, ident, facility);
            syslogTrouble = null;
        } catch (IOException e) {
            if (!e.getMessage().equals(syslogTrouble)) {
                syslogTrouble = e.getMessage();
                write(Level.WARNING, "syslog = 1, but there is no syslog to write to (" + e.getMessage()
                        + "): log lines go to stderr and the logfile only", null);
            }
        }
    }

    /**
     * Before the process exits: the lines handed to syslog's own loop are sent (System.exit does not wait for
     * that daemon thread, and the last lines, "shutdown complete" among them, were lost), the logfile closed.
     */
    public static void close() {
        syslog(false, null, null);
        PrintStream out = file;
        file = null;
        if (out != null) {
            out.close();
        }
    }

    public static void write(Level level, String message, Throwable thrown) {
        if (!enabled(level)) {
            return;
        }
        if (thrown != null && verbosity == 0
                && (thrown.getMessage() == null || !message.contains(thrown.getMessage()))) {
            message = message + ": " + thrown;
        }
        Syslog toSyslog = syslog;
        if (toSyslog != null && level.ordinal() <= Level.LOG.ordinal()) {
            toSyslog.send(severity(level), message);
        }
        StringBuilder line = new StringBuilder(64 + message.length())
                .append(timestamp(System.currentTimeMillis())).append(" [").append(PID).append("] ")
                .append(level.name()).append(' ').append(message);
        if (thrown != null && verbosity > 0) {
            StringWriter trace = new StringWriter();
            thrown.printStackTrace(new PrintWriter(trace));
            line.append(System.lineSeparator()).append(trace.toString().stripTrailing());
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

    /** PgBouncer's timestamp of a line written at {@code millis}, {@code 2025-01-01 12:00:00.000 UTC}. */
    static String timestamp(long millis) {
        long epochSecond = Math.floorDiv(millis, 1000L);
        Second last = second;
        if (last.epochSecond() != epochSecond) {
            ZonedDateTime now = Instant.ofEpochSecond(epochSecond).atZone(ZoneId.systemDefault());
            last = new Second(epochSecond, DATE_TIME.format(now), ZONE.format(now));
            second = last;
        }
        int ms = (int) Math.floorMod(millis, 1000L);
        return last.dateTime() + '.' + (char) ('0' + ms / 100) + (char) ('0' + ms / 10 % 10) + (char) ('0' + ms % 10)
                + ' ' + last.zone();
    }

    /** syslog(3)'s severity of a level, as PgBouncer maps them. */
    private static int severity(Level level) {
        return switch (level) {
            case FATAL -> 2;
            case ERROR -> 3;
            case WARNING -> 4;
            case LOG -> 6;
            case DEBUG, NOISE -> 7;
        };
    }
}
