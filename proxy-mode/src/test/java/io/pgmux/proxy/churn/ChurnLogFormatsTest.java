package io.pgmux.proxy.churn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.ServerLog;
import io.pgmux.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The churn report on the csvlog and jsonlog files the fixture's PostgreSQL wrote during a {@code pgbench -C} run
 * (a new connection per transaction), beside the stderr log of the same run.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChurnLogFormatsTest {
    private static final int CLIENTS = 2;
    private static final int TRANSACTIONS_PER_CLIENT = 10;

    private final TestDatabase db;
    private String stderr;
    private String csv;
    private String json;

    ChurnLogFormatsTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void runPgbenchWithAConnectionPerTransaction(@TempDir Path dir) throws Exception {
        Path pgbench = Clients.executable("pgbench", "install the PostgreSQL client tools");
        db.server().enableLogConnections();
        db.server().enableCsvAndJsonLogs();
        // The windows start one after the other: a login of the fixture's own connection (made again when it had
        // closed) between them would be in one log's window and not in the next one's. This read makes sure that
        // connection is open and its login logged before the first window starts.
        db.server().logFromNow("stderr").readThroughMarker();
        ServerLog stderrLog = db.server().logFromNow("stderr");
        ServerLog csvLog = db.server().logFromNow("csvlog");
        ServerLog jsonLog = db.server().logFromNow("jsonlog");
        Path script = Files.writeString(dir.resolve("select.sql"), "SELECT 1;\n");
        ProcessBuilder run = new ProcessBuilder(pgbench.toString(), "-n", "-C", "-c", String.valueOf(CLIENTS), "-j",
                "1", "-t", String.valueOf(TRANSACTIONS_PER_CLIENT), "-f", script.toString(), "-h", db.host(), "-p",
                String.valueOf(db.port()), "-U", db.superuser(), db.name()).redirectErrorStream(true);
        run.environment().put("PGPASSWORD", db.superuserPassword());
        // for these sessions only (a superuser-backend setting); log_connections is the fixture's, server-wide
        run.environment().put("PGOPTIONS", "-c log_disconnections=on");
        Process process = run.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "pgbench did not finish");
        assertEquals(0, process.exitValue(), output);
        // A backend logs its disconnection as it exits, after its client has gone: read until all are there.
        stderr = readAll(stderrLog);
        csv = readAll(csvLog);
        json = readAll(jsonLog);
    }

    private String readAll(ServerLog log) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String text;
        do {
            text = log.readThroughMarker();
        } while (!everySessionEnded(text) && System.nanoTime() < deadline);
        // The text ends inside the marker's own record: keep the complete lines.
        return text.substring(0, text.lastIndexOf('\n') + 1);
    }

    /**
     * Whether every session of the run that logged its login also logged its end: pgbench's own first connection
     * (one more than its transactions) may end after the last transaction's, and a log read before that would differ
     * from one read after it by that session.
     */
    private boolean everySessionEnded(String text) {
        long ended = lines(text, "disconnection: session time");
        return ended >= CLIENTS * TRANSACTIONS_PER_CLIENT && ended >= lines(text, "connection authorized");
    }

    private long lines(String text, String message) {
        return text.lines().filter(l -> l.contains(message) && l.contains("database=" + db.name())).count();
    }

    private static String report(Path file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ChurnReport.run(List.of(file.toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The report from its span on: what the sessions say, without the counts of lines, which differ by format. */
    private static String sessions(String report) {
        return report.substring(report.indexOf("\nSpan: ") + 1);
    }

    private static long number(String report, String regex) {
        Matcher m = Pattern.compile(regex).matcher(report);
        assertTrue(m.find(), regex + " in\n" + report);
        return Long.parseLong(m.group(1));
    }

    private static Path gzip(Path dir, String name, String text) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    @Test
    void csvlogGivesTheReportOfTheStderrLog(@TempDir Path dir) throws IOException {
        String fromStderr = report(Files.writeString(dir.resolve("postgresql.log"), stderr));
        String fromCsv = report(Files.writeString(dir.resolve("postgresql.csv"), csv));
        assertTrue(number(fromCsv, "Connections: (\\d+) authorized") >= CLIENTS * TRANSACTIONS_PER_CLIENT, fromCsv);
        assertEquals(0, number(fromCsv, "\\((\\d+) malformed"), fromCsv);
        assertTrue(fromCsv.contains(", pgbench, 127.0.0.1\n"), fromCsv);
        assertEquals(sessions(fromStderr), sessions(fromCsv));
    }

    @Test
    void jsonlogGivesTheReportOfTheStderrLog(@TempDir Path dir) throws IOException {
        String fromStderr = report(Files.writeString(dir.resolve("postgresql.log"), stderr));
        String fromJson = report(Files.writeString(dir.resolve("postgresql.json"), json));
        assertTrue(number(fromJson, "Connections: (\\d+) authorized") >= CLIENTS * TRANSACTIONS_PER_CLIENT,
                fromJson);
        assertEquals(0, number(fromJson, "\\((\\d+) malformed"), fromJson);
        assertEquals(sessions(fromStderr), sessions(fromJson));
    }

    @Test
    void gzipCompressedCsvlogAndJsonlogAreReadAlike(@TempDir Path dir) throws IOException {
        assertEquals(report(Files.writeString(dir.resolve("postgresql.csv"), csv)),
                report(gzip(dir, "postgresql.csv.1.gz", csv)));
        assertEquals(report(Files.writeString(dir.resolve("postgresql.json"), json)),
                report(gzip(dir, "postgresql.json.1.gz", json)));
    }

    @Test
    void malformedAndTruncatedCsvRecordsAreCountedAndTheRestReported(@TempDir Path dir) throws IOException {
        List<String> records = List.of(csv.strip().split("\n(?=\\d{4}-\\d\\d-\\d\\d )"));
        int half = records.size() / 2;
        while (!records.get(half).contains(",\"connection authorized")) {
            half++;
        }
        String cut = records.get(half);
        String damaged = String.join("\n", records.subList(0, half)) + "\n"
                // a record cut inside its quoted message, then the log goes on
                + cut.substring(0, cut.indexOf(",\"connection") + 12) + "\n"
                + "2026-12-01 10:00:00.000 UTC,too,few,fields\n"
                + "2026-13-45 99:99:99.999 UTC,\"x\",\"y\",1,,,,,,,,LOG,00000,\"connection authorized: user=x\"\n"
                + String.join("\n", records.subList(half + 1, records.size())) + "\n"
                // and the file ends inside a record
                + "2026-12-01 10:00:00.000 UTC,\"postgres\",\"db\",43,\"127.0.0.1:5\",,,,,,,LOG,00000,\"connection auth";
        String report = report(Files.writeString(dir.resolve("damaged.csv"), damaged));
        assertEquals(4, number(report, "\\((\\d+) malformed"), report);
        assertTrue(number(report, "Connections: (\\d+) authorized") >= CLIENTS * TRANSACTIONS_PER_CLIENT - 1, report);
    }

    @Test
    void malformedAndTruncatedJsonLinesAreCountedAndTheRestReported(@TempDir Path dir) throws IOException {
        List<String> lines = json.lines().toList();
        String cut = lines.get(lines.size() / 2);
        String damaged = String.join("\n", lines.subList(0, lines.size() / 2)) + "\n"
                + cut.substring(0, cut.length() / 2) + "\n"
                + "{\"timestamp\":\"2026-12-01 10:00:00.000 UTC\",\"pid\":7}\n"
                + "not json at all\n"
                + String.join("\n", lines.subList(lines.size() / 2 + 1, lines.size())) + "\n"
                + "{\"timestamp\":\"2026-12-01 10:00:00.000 UTC\",\"pid\":43,\"error_severity\":\"LOG\",\"mess";
        String report = report(Files.writeString(dir.resolve("damaged.json"), damaged));
        assertEquals(4, number(report, "\\((\\d+) malformed"), report);
        assertTrue(number(report, "Connections: (\\d+) authorized") >= CLIENTS * TRANSACTIONS_PER_CLIENT - 1, report);
    }
}
