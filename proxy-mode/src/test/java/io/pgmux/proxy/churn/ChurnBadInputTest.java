package io.pgmux.proxy.churn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pgmux churn} on logs no server wrote as they are (issue 29, item 16): values out of range, times decades
 * apart, a cut gzip file and {@code --help}; each gets a report or one line naming the file, line and problem.
 */
class ChurnBadInputTest {
    private static final String AUTHORIZED = " UTC [%d] LOG:  connection authorized: user=app database=db"
            + " application_name=psql\n";
    private static final String DISCONNECTED = " UTC [%d] LOG:  disconnection: session time: %s user=app"
            + " database=db host=127.0.0.1 port=5000\n";

    /** Exit code, standard output and standard error of one run. */
    private record Run(int code, String out, String err) {
    }

    private static Run churn(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ChurnReport.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String authorized(String time, int pid) {
        return time + String.format(AUTHORIZED, pid);
    }

    private static String disconnected(String time, int pid, String sessionTime) {
        return time + String.format(DISCONNECTED, pid, sessionTime);
    }

    @Test
    void aSessionTimeOfEightyYearsIsReportedAsOneSession(@TempDir Path dir) throws IOException {
        Path log = Files.writeString(dir.resolve("postgresql.log"),
                disconnected("2026-12-01 10:00:00.000", 7, "700000:00:00.000"));
        Run run = churn(log.toString());
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().contains("Connections: none authorized in the log, 1 ended"), run.out());
        assertTrue(run.out().contains("Session duration: p50 700000.0 h"), run.out());
        assertTrue(run.out().contains("Sessions open at once: p95 1, peak 1"), run.out());
    }

    @Test
    void twoSessionsEightyYearsApartAreReportedWithTheQuietSecondsBetweenThem(@TempDir Path dir) throws IOException {
        Path log = Files.writeString(dir.resolve("postgresql.log"),
                authorized("1946-12-01 10:00:00.000", 7)
                        + disconnected("1946-12-01 10:00:01.000", 7, "0:00:01.000")
                        + authorized("2026-12-01 10:00:00.000", 8)
                        + disconnected("2026-12-01 10:00:01.000", 8, "0:00:01.000"));
        Run run = churn(log.toString());
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().contains("Connections: 2 authorized, 2 ended"), run.out());
        assertTrue(run.out().contains("p50 0, p95 0, p99 0, peak 1 (at 1946-12-01 10:00:00.000)"), run.out());
        assertTrue(run.out().contains("Sessions open at once: p95 0, peak 1"), run.out());
    }

    @Test
    void aSessionTimeWithTwentyDigitHoursIsNamedByFileAndLineAndTheRestReported(@TempDir Path dir)
            throws IOException {
        Path log = Files.writeString(dir.resolve("postgresql.log"),
                authorized("2026-12-01 10:00:00.000", 7)
                        + disconnected("2026-12-01 10:00:01.000", 7, "0:00:01.000")
                        + disconnected("2026-12-01 10:00:02.000", 8, "12345678901234567890:00:00"));
        Run run = churn(log.toString());
        assertEquals(0, run.code(), run.err());
        assertEquals("pgmux churn: " + log + ":3: session time 12345678901234567890:00:00 is out of range\n",
                run.err());
        assertTrue(run.out().contains("(1 malformed"), run.out());
        assertTrue(run.out().contains("Connections: 1 authorized, 1 ended"), run.out());
    }

    @Test
    void aGzipFileOfOnlyItsMagicBytesIsNamedWithItsProblem(@TempDir Path dir) throws IOException {
        Path log = Files.write(dir.resolve("postgresql.log.gz"), new byte[] {0x1f, (byte) 0x8b});
        Run run = churn(log.toString());
        assertEquals(1, run.code());
        assertEquals("pgmux churn: cannot read " + log + ": gzip file ends inside its header\n", run.err());
    }

    @Test
    void helpPrintsTheUsageAndReadsNoFile() {
        Run run = churn("--help");
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().startsWith("usage: pgmux churn <postgresql.log>..."), run.out());
        assertEquals("", run.err());
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        Run run = churn("--verbose", "postgresql.log");
        assertEquals(2, run.code());
        assertTrue(run.err().startsWith("pgmux churn: unknown option --verbose"), run.err());
    }
}
