package io.pgmux.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PgbenchTables;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.StandbyPair;
import io.pgmux.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command of docs/benchmarks.md and docs/benchmarks-jdbc.md that runs the benchmarks jar is run here, on
 * the jar this build made, against the fixture's PostgreSQL (with pgbench's tables), as a separate process, so
 * that a renamed class or option, or a missing step, fails the build rather than the reader. Only the lengths
 * are shortened (seconds, rounds, iterations, clients and threads, and a fleet's members and pools, each named
 * in {@link #SHORTER}); everything else is run as written. A command over a primary and its standbys ({@code $BENCH_REPLICAS}) gets a primary and
 * two standbys of {@link StandbyPair}. The shell scripts of the side-by-side runs need PgBouncer and a benchmark
 * server and are not run here.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocumentedCommandsIT {
    private static final String JAR = "jmh/target/benchmarks.jar";
    private static final List<Path> DOCS = List.of(Path.of("../docs/benchmarks.md"),
            Path.of("../docs/benchmarks-jdbc.md"));
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?(\\w+)}?");
    private static final Pattern FLEET_MOST =
            Pattern.compile("Most backends of the fleet at once: (\\d+) of budget (\\d+)");

    /** What each program's run is shortened to: options set (replaced or added), or arguments appended. */
    private static final Map<String, List<String>> SHORTER = Map.ofEntries(
            Map.entry("jmh", List.of("-f", "1", "-wi", "0", "-i", "1", "-w", "100ms", "-r", "100ms")),
            Map.entry("io.pgmux.jmh.load.ThinkTimeLoad", List.of("--seconds", "1", "--warmup", "1", "--rounds", "1",
                    "--threads", "16", "--pool", "4", "--think", "2", "--ceiling-threads", "2")),
            Map.entry("io.pgmux.jmh.load.PgbenchLoad", List.of("--seconds", "1", "--warmup", "1", "--rounds", "1",
                    "--threads", "4", "--pool", "4")),
            Map.entry("io.pgmux.jmh.load.IdleClientMemory", List.of("--clients", "20", "--warmup", "5")),
            Map.entry("io.pgmux.jmh.load.IdleClients", List.of("--clients", "5")),
            Map.entry("io.pgmux.jmh.load.ReplicaLoad", List.of("--seconds", "1", "--rounds", "1", "--threads", "4",
                    "--pool", "4", "--rows", "100", "--ryw-clients", "4", "--ryw-total", "40", "--stop-seconds", "2",
                    "--lag-seconds", "4")),
            // two members of 12 threads, budget 8: the busy member can still take 80 % of it
            Map.entry("io.pgmux.jmh.load.FleetLoad", List.of("--seconds", "1", "--warmup", "1", "--idle", "1",
                    "--rounds", "1", "--members", "2", "--threads", "12", "--pool", "8", "--budget", "8",
                    "--fixed-pool", "4", "--cycles", "50")),
            Map.entry("io.pgmux.jmh.load.NettyFloor", List.of("--seconds", "1", "--port", "0", "--pool-size", "2")),
            Map.entry("io.pgmux.jmh.load.SocketFloor", List.of("--seconds", "1", "--port", "0", "--pool-size", "2")),
            Map.entry("io.pgmux.jmh.micro.JdbcCycleInterleaved", List.of("2", "10")),
            Map.entry("io.pgmux.jmh.micro.WaitAllocation", List.of("20000")));

    private final TestDatabase db;
    private PgMuxProxy proxy;
    /** The primary and two standbys of $BENCH_REPLICAS, started for the first command that names it. */
    private StandbyPair replicas;

    DocumentedCommandsIT(TestDatabase db) {
        this.db = db;
    }

    /** The load harnesses read pgbench's tables; IdleClients logs in to a pooler ("bench", trust, as documented). */
    @BeforeAll
    void serverAndPooler() throws IOException, InterruptedException {
        PgbenchTables.initialize(db);
        proxy = PgMuxProxy.builder()
                .listen("127.0.0.1", 0)
                .database("bench", "postgresql://" + encode(db.superuser()) + ":" + encode(db.superuserPassword())
                        + "@" + db.host() + ":" + db.port() + "/" + encode(db.name()) + "?sslmode=disable")
                .poolMode(PoolMode.TRANSACTION)
                .authType(AuthType.TRUST)
                .users(Map.of("bench", ""))
                .threads(1)
                .start();
    }

    @AfterAll
    void closePooler() {
        if (proxy != null) {
            proxy.close();
        }
        if (replicas != null) {
            replicas.close();
        }
    }

    @Test
    void theDocsNameTheBenchmarksJar() throws IOException {
        assertFalse(commands().isEmpty(), "no command of the benchmark docs runs " + JAR);
    }

    @TestFactory
    Stream<DynamicTest> everyDocumentedCommandRunsOnTheJarThisBuildMade(@TempDir Path work) throws IOException {
        return commands().stream().map(command -> DynamicTest.dynamicTest(
                command.where() + ": " + String.join(" ", command.words()), () -> run(command, work)));
    }

    private static List<DocumentedCommand> commands() throws IOException {
        List<DocumentedCommand> all = new ArrayList<>();
        for (Path doc : DOCS) {
            all.addAll(DocumentedCommand.read(doc, JAR));
        }
        return all;
    }

    private void run(DocumentedCommand command, Path work) throws Exception {
        for (Map.Entry<String, String> file : command.files().entrySet()) {
            Files.writeString(work.resolve(file.getKey()), file.getValue());
        }
        List<String> words = new ArrayList<>();
        for (String word : command.words()) {
            words.add(substitute(word, work));
        }
        String program = words.contains("-jar") ? "jmh" : words.get(words.indexOf("-cp") + 2);
        List<String> shorter = SHORTER.get(program);
        boolean listsOrHelps = words.contains("-l") || words.contains("-h");
        if (shorter == null) {
            fail(command.where() + " runs " + program + ", which this test does not know how to shorten");
        }
        if (!listsOrHelps) {
            shorten(words, shorter);
        }
        if (program.equals("io.pgmux.jmh.load.IdleClients")) {
            set(words, "--port", Integer.toString(proxy.port()));
        }
        boolean virtual = words.contains("--virtual");
        boolean virtualThreadsHere = System.getenv("JAVA_25") != null || Runtime.version().feature() >= 21;
        if (virtual) {
            set(words, "--threads", "100");
        }

        Process process = new ProcessBuilder(words).directory(work.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        Path log = work.resolve("output.txt");
        Thread reader = new Thread(() -> {
            try {
                Files.write(log, process.getInputStream().readAllBytes());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        reader.start();
        if (!process.waitFor(240, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail(command.where() + " did not end within 240 s: " + words);
        }
        reader.join();
        String output = Files.readString(log);
        if (virtual && !virtualThreadsHere) {
            // a green CI run has run the documented command on virtual threads, not only its refusal
            assertFalse("true".equals(System.getenv("CI")), command.where() + " needs JDK 21 or later:"
                    + " set JAVA_25 to its home (.ci/run looks in /usr/lib/jvm)");
            assertTrue(output.contains("virtual threads need JDK 21"), output);
            return;
        }
        assertEquals(0, process.exitValue(), String.join(" ", words) + "\n" + output);
        assertFalse(output.isBlank(), "no output from " + words);
        if (program.equals("io.pgmux.jmh.load.FleetLoad")) {
            fleetHeldToItsBudget(output);
        }
    }

    /**
     * The fleet's figures are printed, and the backends its members held together, counted every 100 ms, never
     * exceeded its budget while coordination worked (a member that falls back holds a fixed share: docs/fleet.md).
     */
    private static void fleetHeldToItsBudget(String output) {
        for (String figure : List.of("tx/s", "after", "errors in the others", "µs per borrow")) {
            assertTrue(output.contains(figure), "no " + figure + " in\n" + output);
        }
        Matcher most = FLEET_MOST.matcher(output);
        int seen = 0;
        while (most.find()) {
            seen++;
            if (!output.contains("coordination through the server failed")) {
                assertTrue(Integer.parseInt(most.group(1)) <= Integer.parseInt(most.group(2)),
                        most.group() + "\n" + output);
            }
        }
        assertEquals(2, seen, "the most backends of the fleet, in both parts of the run:\n" + output);
    }

    /** The documented variables from the fixture; a variable this test does not know fails the command. */
    private String substitute(String word, Path work) {
        String jar = System.getProperty("pgmux.jmh.jar");
        String replaced = word.replace(JAR, jar);
        Matcher m = VARIABLE.matcher(replaced);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = switch (m.group(1)) {
                case "BENCH_PG" -> db.host() + ":" + db.port();
                case "PGDATABASE" -> db.name();
                case "PGUSER" -> db.superuser();
                case "PGPASSWORD" -> db.superuserPassword();
                case "PWD" -> work.toString();
                case "BENCH_REPLICAS" -> replicas().hostList();
                // the documented JDK 25 where it is set, else this one (whose version decides what is checked)
                case "JAVA_25" -> System.getenv().getOrDefault("JAVA_25", System.getProperty("java.home"));
                default -> throw new AssertionError("the docs use $" + m.group(1) + ", which this test does not set");
            };
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private StandbyPair replicas() {
        if (replicas == null) {
            replicas = StandbyPair.withStandbys(2);
        }
        return replicas;
    }

    private static void shorten(List<String> words, List<String> shorter) {
        if (!shorter.get(0).startsWith("-")) {
            words.addAll(shorter);
            return;
        }
        for (int i = 0; i < shorter.size(); i += 2) {
            set(words, shorter.get(i), shorter.get(i + 1));
        }
    }

    private static void set(List<String> words, String option, String value) {
        int at = words.indexOf(option);
        if (at >= 0) {
            words.set(at + 1, value);
        } else {
            words.add(option);
            words.add(value);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
