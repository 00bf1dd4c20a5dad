package io.pgmux.proxy.churn;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * {@code pgmux churn postgresql.log…}: how often clients connect to PostgreSQL and how long they stay, from
 * server logs written with {@code log_connections} and {@code log_disconnections} (stderr, csvlog or jsonlog
 * format, plain or gzip), and what a pooler would do about it.
 */
public final class ChurnReport {
    private static final long[] DURATION_BOUNDS = {10, 100, 1_000, 10_000, 60_000, 3_600_000};
    private static final String[] DURATION_LABELS = {"< 10 ms", "< 100 ms", "< 1 s", "< 10 s", "< 1 min", "< 1 h",
        ">= 1 h"};
    private static final int TOP_SOURCES = 10;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);

    private static final String USAGE = "usage: pgmux churn <postgresql.log>... (stderr, csvlog or jsonlog format,"
            + " plain or .gz; the server logging with log_connections = on and log_disconnections = on)";

    private final ChurnStats stats = new ChurnStats();
    private final PrintStream err;

    ChurnReport(PrintStream err) {
        this.err = err;
    }

    /**
     * Runs the report on the named files, printing it to {@code out} and problems to {@code err}.
     *
     * @return the process exit code: 0 (also for {@code --help}), 1 when a file cannot be read, 2 for a usage
     *         error
     */
    public static int run(List<String> files, PrintStream out, PrintStream err) {
        if (files.size() == 1 && (files.get(0).equals("--help") || files.get(0).equals("-h"))) {
            out.println(USAGE);
            return 0;
        }
        if (files.isEmpty()) {
            err.println(USAGE);
            return 2;
        }
        for (String file : files) {
            if (file.startsWith("-")) {
                err.println("pgmux churn: unknown option " + file + " (a file whose name starts with - is given as"
                        + " ./" + file + ")");
                err.println(USAGE);
                return 2;
            }
        }
        ChurnReport report = new ChurnReport(err);
        for (String file : files) {
            try {
                report.read(Path.of(file));
            } catch (NoSuchFileException e) {
                err.println("pgmux churn: cannot read " + file + ": no such file");
                return 1;
            } catch (IOException e) {
                err.println("pgmux churn: cannot read " + file + ": "
                        + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
                return 1;
            }
        }
        report.print(out, files.size());
        return 0;
    }

    /**
     * Reads one log file, gzip-compressed or not (told by its first bytes, not its name), in the format its first
     * line shows (stderr, csvlog or jsonlog). A line whose values are out of range is counted as malformed and
     * named, with its file and number, on the error stream.
     */
    void read(Path file) throws IOException {
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file))) {
            raw.mark(2);
            boolean gzip = raw.read() == 0x1f && raw.read() == 0x8b;
            raw.reset();
            InputStream in = gzip ? gzipStream(raw) : raw;
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line = reader.readLine();
                LogParser parser = line == null ? null : LogParser.forFirstLine(line, stats);
                for (long number = 1; line != null; line = reader.readLine(), number++) {
                    try {
                        parser.accept(line);
                    } catch (LogLineException e) {
                        stats.malformed();
                        err.println("pgmux churn: " + file + ":" + number + ": " + e.getMessage());
                    }
                }
                if (parser != null) {
                    parser.end();
                }
            } catch (EOFException e) {
                // A truncated gzip file: what was read so far still counts.
                stats.malformed();
            }
        }
    }

    private static InputStream gzipStream(InputStream raw) throws IOException {
        try {
            return new GZIPInputStream(raw);
        } catch (EOFException e) {
            throw new IOException("gzip file ends inside its header", e);
        }
    }

    void print(PrintStream out, int files) {
        out.printf(Locale.ROOT, "pgmux churn: %d file%s, %d lines (%d malformed, %d other messages)%n", files,
                files == 1 ? "" : "s", stats.lines(), stats.malformedLines(), stats.otherMessages());
        List<ChurnStats.Session> sessions = stats.sessions();
        long[] authorized = stats.authorizations().stream().mapToLong(Long::longValue).sorted().toArray();
        if (authorized.length == 0 && sessions.isEmpty()) {
            out.println("No connection or disconnection lines found: log with log_connections = on and"
                    + " log_disconnections = on, and a log_line_prefix with the time first and [%p] (the default"
                    + " '%m [%p] ').");
            return;
        }
        long[] durations = sessions.stream().filter(ChurnStats.Session::ended)
                .mapToLong(ChurnStats.Session::durationMillis).sorted().toArray();
        SecondsHistogram concurrency = concurrencyPerSecond(sessions);
        long peakConcurrency = peakConcurrency(sessions);

        double rate = 0;
        if (authorized.length > 0) {
            long first = authorized[0];
            long last = authorized[authorized.length - 1];
            double spanSeconds = last / 1000 - first / 1000 + 1;
            rate = authorized.length / spanSeconds;
            out.printf(Locale.ROOT, "Span: %s .. %s (%s)%n", TIME.format(Instant.ofEpochMilli(first)),
                    TIME.format(Instant.ofEpochMilli(last)), duration(last - first));
            out.printf(Locale.ROOT, "Connections: %d authorized, %d ended%n", authorized.length, durations.length);
            SecondsHistogram perSecond = new SecondsHistogram();
            long peakSecond = perSecond(authorized, perSecond);
            out.printf(Locale.ROOT, "Connections per second: mean %.1f, p50 %d, p95 %d, p99 %d, peak %d (at %s)%n",
                    rate, perSecond.percentile(50), perSecond.percentile(95), perSecond.percentile(99),
                    perSecond.max(), TIME.format(Instant.ofEpochMilli(peakSecond * 1000)));
        } else {
            out.printf(Locale.ROOT, "Connections: none authorized in the log, %d ended%n", durations.length);
        }

        double shortShare = 0;
        if (durations.length > 0) {
            out.printf(Locale.ROOT, "Session duration: p50 %s, p95 %s, p99 %s, max %s%n",
                    duration(percentile(durations, 50)), duration(percentile(durations, 95)),
                    duration(percentile(durations, 99)), duration(durations[durations.length - 1]));
            long[] buckets = new long[DURATION_LABELS.length];
            for (long d : durations) {
                int b = 0;
                while (b < DURATION_BOUNDS.length && d >= DURATION_BOUNDS[b]) {
                    b++;
                }
                buckets[b]++;
            }
            for (int b = 0; b < buckets.length; b++) {
                out.printf(Locale.ROOT, "  %-9s %8d  %5.1f%%%n", DURATION_LABELS[b], buckets[b],
                        100.0 * buckets[b] / durations.length);
            }
            long shortSessions = buckets[0] + buckets[1] + buckets[2];
            shortShare = (double) shortSessions / durations.length;
            out.printf(Locale.ROOT, "Sessions shorter than 1 s: %.1f%% (%d of %d)%n", 100 * shortShare,
                    shortSessions, durations.length);
        }
        long p95Concurrency = concurrency.isEmpty() ? peakConcurrency : concurrency.percentile(95);
        out.printf(Locale.ROOT, "Sessions open at once: p95 %d, peak %d%n", p95Concurrency, peakConcurrency);

        printSources(out, sessions);
        out.println("Recommendation: " + recommendation(authorized.length, rate, shortShare, p95Concurrency, peakConcurrency));
    }

    private void printSources(PrintStream out, List<ChurnStats.Session> sessions) {
        Map<ChurnStats.Source, List<Long>> bySource = new HashMap<>();
        for (ChurnStats.Session s : sessions) {
            bySource.computeIfAbsent(s.source(), k -> new ArrayList<>()).add(s.durationMillis());
        }
        List<Map.Entry<ChurnStats.Source, List<Long>>> top = new ArrayList<>(bySource.entrySet());
        top.sort(Comparator.comparingInt((Map.Entry<ChurnStats.Source, List<Long>> e) -> e.getValue().size())
                .reversed().thenComparing(e -> e.getKey().toString()));
        out.println("Top sources (user, database, application_name, host):");
        out.printf(Locale.ROOT, "  %8s %6s %10s  %s%n", "sessions", "share", "median", "source");
        for (Map.Entry<ChurnStats.Source, List<Long>> e : top.subList(0, Math.min(TOP_SOURCES, top.size()))) {
            ChurnStats.Source s = e.getKey();
            long[] d = sorted(e.getValue().stream().mapToLong(Long::longValue).toArray());
            out.printf(Locale.ROOT, "  %8d %5.1f%% %10s  %s, %s, %s, %s%n", d.length, 100.0 * d.length / sessions.size(),
                    duration(percentile(d, 50)), s.user(), s.database(), s.applicationName(), s.host());
        }
    }

    /** What to do, from the mean connection rate over the seconds the log covers and the sessions' lengths. */
    private static String recommendation(int authorized, double rate, double shortShare, long p95Concurrency,
                                         long peak) {
        if (authorized == 0) {
            return "the log has no connection authorizations to judge churn by; turn log_connections on.";
        }
        String size = "default_pool_size = " + Math.max(1, p95Concurrency) + " (sessions open at once: p95 "
                + p95Concurrency + ", peak " + peak + "; transaction pooling usually needs fewer)";
        if (shortShare >= 0.5 && rate >= 1) {
            return String.format(Locale.ROOT, "heavy churn: %.0f%% of sessions last under 1 s and clients connect"
                    + " %.1f times a second; each connection costs PostgreSQL a process start and a login. Put a"
                    + " pooler in front: pool_mode = transaction (session if clients keep session state: SET,"
                    + " LISTEN, temporary tables, advisory locks), %s.", 100 * shortShare, rate, size);
        }
        if (shortShare >= 0.5) {
            return String.format(Locale.ROOT, "short sessions (%.0f%% under 1 s) but few of them (%.2f a second):"
                    + " a pooler saves little login work; pool_mode = session keeps it simple, %s.",
                    100 * shortShare, rate, size);
        }
        return String.format(Locale.ROOT, "little churn: most sessions last 1 s or more (%.0f%% shorter). A pooler"
                + " helps here by sharing idle sessions' server connections: pool_mode = transaction, %s.",
                100 * shortShare, size);
    }

    /**
     * Adds to {@code perSecond} the connections authorized in each second from the first to the last, quiet
     * seconds included, from one pass over the sorted times.
     *
     * @return the first second with the most connections
     */
    private static long perSecond(long[] sortedMillis, SecondsHistogram perSecond) {
        long first = Math.floorDiv(sortedMillis[0], 1000);
        long last = Math.floorDiv(sortedMillis[sortedMillis.length - 1], 1000);
        long busySeconds = 0;
        long peakSecond = first;
        long peak = 0;
        for (int i = 0; i < sortedMillis.length; ) {
            long second = Math.floorDiv(sortedMillis[i], 1000);
            int j = i;
            while (j < sortedMillis.length && Math.floorDiv(sortedMillis[j], 1000) == second) {
                j++;
            }
            perSecond.add(j - i, 1);
            busySeconds++;
            if (j - i > peak) {
                peak = j - i;
                peakSecond = second;
            }
            i = j;
        }
        perSecond.add(0, last - first + 1 - busySeconds);
        return peakSecond;
    }

    /**
     * Sessions open at the start of each second the log covers, from a sweep over the sessions' starts and ends:
     * the count stays the same between two events, so each stretch adds the seconds that begin in it at once.
     */
    private static SecondsHistogram concurrencyPerSecond(List<ChurnStats.Session> sessions) {
        SecondsHistogram open = new SecondsHistogram();
        if (sessions.isEmpty()) {
            return open;
        }
        long[] starts = sorted(sessions.stream().mapToLong(ChurnStats.Session::startMillis).toArray());
        long[] ends = sorted(sessions.stream().mapToLong(s -> s.startMillis() + s.durationMillis()).toArray());
        long at = Math.floorDiv(starts[0], 1000) * 1000;
        long end = Math.floorDiv(ends[ends.length - 1], 1000) * 1000 + 1;
        long level = 0;
        int s = 0;
        int e = 0;
        while (s < starts.length || e < ends.length) {
            long next = Math.min(s < starts.length ? starts[s] : Long.MAX_VALUE, e < ends.length ? ends[e] : Long.MAX_VALUE);
            open.add(level, secondStartsBetween(at, next));
            for (; s < starts.length && starts[s] == next; s++) {
                level++;
            }
            for (; e < ends.length && ends[e] == next; e++) {
                level--;
            }
            at = next;
        }
        open.add(level, secondStartsBetween(at, end));
        return open;
    }

    /** How many whole seconds begin in {@code [fromMillis, toMillis)}. */
    private static long secondStartsBetween(long fromMillis, long toMillis) {
        return Math.floorDiv(-fromMillis, 1000) - Math.floorDiv(-toMillis, 1000);
    }

    private static long peakConcurrency(List<ChurnStats.Session> sessions) {
        long[][] events = new long[sessions.size() * 2][];
        int i = 0;
        for (ChurnStats.Session s : sessions) {
            events[i++] = new long[] {s.startMillis(), 1};
            events[i++] = new long[] {s.startMillis() + s.durationMillis(), -1};
        }
        // At equal times an end comes before a start: a session that ends as another begins does not overlap it.
        Arrays.sort(events, Comparator.<long[]>comparingLong(ev -> ev[0]).thenComparingLong(ev -> ev[1]));
        long open = 0;
        long peak = 0;
        for (long[] ev : events) {
            open += ev[1];
            peak = Math.max(peak, open);
        }
        return peak;
    }

    private static long[] sorted(long[] values) {
        Arrays.sort(values);
        return values;
    }

    /** Nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private static String duration(long millis) {
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        if (millis < 3_600_000) {
            return String.format(Locale.ROOT, "%.1f min", millis / 60_000.0);
        }
        return String.format(Locale.ROOT, "%.1f h", millis / 3_600_000.0);
    }
}
