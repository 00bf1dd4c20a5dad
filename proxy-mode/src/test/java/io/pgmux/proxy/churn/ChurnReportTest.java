package io.pgmux.proxy.churn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The churn report on a log the fixture's PostgreSQL wrote while clients connected and disconnected: 30 short
 * sessions of one application and one session of another that lasts over a second.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChurnReportTest {
    private static final int SHORT_SESSIONS = 30;
    private static final Pattern PID = Pattern.compile(" \\[(\\d+)\\] ");

    private final TestDatabase db;
    private String log;

    ChurnReportTest(TestDatabase db) {
        this.db = db;
    }

    /** Connects as the clients of a churning application would; only these sessions log their disconnections. */
    @BeforeAll
    void writeLog() throws SQLException {
        db.server().enableLogConnections();
        ServerLog serverLog = db.server().logFromNow();
        for (int i = 0; i < SHORT_SESSIONS; i++) {
            try (Connection c = connect("churn-short"); Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
        }
        try (Connection c = connect("churn-long"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_sleep(1.2)");
        }
        // A backend logs its disconnection as it exits, after its client has gone: read until all are there.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            log = serverLog.readThroughMarker();
        } while (disconnections(log) < SHORT_SESSIONS + 1 && System.nanoTime() < deadline);
        // The text ends inside the marker's own line: keep the complete lines.
        log = ownSessions(log.substring(0, log.lastIndexOf('\n') + 1));
    }

    /**
     * The lines of this class's own sessions: on the server the test classes share, another connection (the
     * fixture's own to its postgres database, made again when it had closed) may come or go within the window.
     */
    private String ownSessions(String text) {
        Set<String> pids = new HashSet<>();
        text.lines().filter(l -> l.contains("database=" + db.name())).map(ChurnReportTest::pid).forEach(pids::add);
        StringBuilder own = new StringBuilder();
        text.lines().filter(l -> pids.contains(pid(l))).forEach(l -> own.append(l).append('\n'));
        return own.toString();
    }

    /** The backend's process id in a line of the fixture's log ({@code … [pid] LOG: …}), or "" where there is none. */
    private static String pid(String line) {
        Matcher m = PID.matcher(line);
        return m.find() ? m.group(1) : "";
    }

    private long disconnections(String text) {
        return text.lines().filter(l -> l.contains("disconnection:") && l.contains("database=" + db.name())).count();
    }

    private Connection connect(String application) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", db.superuser());
        p.setProperty("password", db.superuserPassword());
        p.setProperty("ApplicationName", application);
        // pgjdbc puts application_name in the startup packet, where the log's authorization line sees it, only then.
        p.setProperty("assumeMinServerVersion", "10");
        // For these sessions only (a superuser-backend setting); log_connections is the fixture's, server-wide.
        p.setProperty("options", "-c log_disconnections=on");
        return DriverManager.getConnection(db.jdbcUrl(), p);
    }

    private static String report(Path... files) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ChurnReport.run(Arrays.stream(files).map(Path::toString).toList(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String line(String report, String start) {
        for (String l : report.split("\n")) {
            if (l.strip().startsWith(start)) {
                return l.strip();
            }
        }
        throw new AssertionError("no line starting with '" + start + "' in\n" + report);
    }

    private static long number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), regex + " in " + text);
        return Long.parseLong(m.group(1));
    }

    @Test
    void countsEverySessionTheServerLogged(@TempDir Path dir) throws IOException {
        String report = report(Files.writeString(dir.resolve("postgresql.log"), log));
        assertEquals(SHORT_SESSIONS + 1, number(line(report, "Connections:"), "(\\d+) authorized"), report);
        assertEquals(SHORT_SESSIONS + 1, number(line(report, "Connections:"), "(\\d+) ended"), report);
        assertEquals(0, number(line(report, "pgmux churn:"), "(\\d+) malformed"), report);
    }

    @Test
    void measuresTheShareOfSessionsShorterThanOneSecond(@TempDir Path dir) throws IOException {
        String report = report(Files.writeString(dir.resolve("postgresql.log"), log));
        String share = line(report, "Sessions shorter than 1 s:");
        assertTrue(share.endsWith("(" + SHORT_SESSIONS + " of " + (SHORT_SESSIONS + 1) + ")"), share);
        assertTrue(line(report, "Session duration:").matches(".* max 1\\.\\d s"), report);
    }

    @Test
    void ranksSourcesByUserDatabaseApplicationAndHost(@TempDir Path dir) throws IOException {
        String report = report(Files.writeString(dir.resolve("postgresql.log"), log));
        List<String> lines = List.of(report.split("\n"));
        int header = lines.indexOf("Top sources (user, database, application_name, host):");
        String first = lines.get(header + 2).strip();
        String second = lines.get(header + 3).strip();
        assertTrue(first.startsWith(SHORT_SESSIONS + " "), first);
        assertTrue(first.endsWith(db.superuser() + ", " + db.name() + ", churn-short, 127.0.0.1"), first);
        assertTrue(second.startsWith("1 "), second);
        assertTrue(second.endsWith(", churn-long, 127.0.0.1"), second);
    }

    @Test
    void recommendsPoolingForChurnThisHeavy(@TempDir Path dir) throws IOException {
        String report = report(Files.writeString(dir.resolve("postgresql.log"), log));
        String recommendation = line(report, "Recommendation:");
        assertTrue(recommendation.contains("pool_mode = transaction"), recommendation);
        assertTrue(recommendation.contains("default_pool_size = "), recommendation);
    }

    @Test
    void readsGzipCompressedLogsAlike(@TempDir Path dir) throws IOException {
        Path plain = Files.writeString(dir.resolve("postgresql.log"), log);
        Path gzip = dir.resolve("postgresql.log.1.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gzip))) {
            out.write(log.getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(report(plain).replace("1 file,", ""), report(gzip).replace("1 file,", ""));
    }

    @Test
    void countsMalformedAndTruncatedLinesAndReportsTheRest(@TempDir Path dir) throws IOException {
        String damaged = "garbage that is no log line\n"
                + "2026-13-45 99:99:99.999 UTC [1] LOG:  connection authorized: user=x database=y\n"
                + log.substring(0, log.length() / 2) + "\n"
                + "2026-12-01 10:00:00.000 UTC [42] LOG:  disconnection: session time: x user=a\n"
                + log.substring(log.length() / 2)
                + "\u0000\u00ff\u0001 binary\n"
                + "2026-12-01 10:00:00.000 UTC [43] LOG:  connection auth";
        String report = report(Files.writeString(dir.resolve("damaged.log"), damaged));
        // Five damaged lines; the cut in the middle may split one more line in two malformed pieces.
        long malformed = number(line(report, "pgmux churn:"), "(\\d+) malformed");
        assertTrue(malformed >= 5 && malformed <= 7, report);
        assertTrue(number(line(report, "Connections:"), "(\\d+) authorized") >= SHORT_SESSIONS - 1, report);
    }

    @Test
    void saysWhatToTurnOnWhenTheLogHasNoConnectionLines(@TempDir Path dir) throws IOException {
        String report = report(Files.writeString(dir.resolve("quiet.log"),
                "2026-12-01 10:00:00.000 UTC [7] LOG:  checkpoint starting: time\n"));
        assertTrue(report.contains("log_connections = on"), report);
    }

    @Test
    void failsWithTheFileNameWhenALogCannotBeRead(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ChurnReport.run(List.of(dir.resolve("missing.log").toString()), new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, code);
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("missing.log: no such file"), message);
    }
}
