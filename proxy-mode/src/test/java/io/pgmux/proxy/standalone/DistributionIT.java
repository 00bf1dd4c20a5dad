package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's distribution, {@code pgmux-<version>-dist.tar.gz}, unpacked and run as an operator runs it:
 * {@code bin/pgmux pgbouncer.ini} in front of the fixture's PostgreSQL, with PgBouncer's signals sent to the pid in
 * the pidfile, SIGQUIT included.
 */
@PostgresTest
class DistributionIT {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final long TIMEOUT_SECONDS = 60;

    private final TestDatabase db;
    @TempDir
    Path dir;
    private Path home;

    DistributionIT(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void unpack() throws Exception {
        Path tarball = tarball();
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", dir.toString()).inheritIO().start();
        assertTrue(tar.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && tar.exitValue() == 0, "tar -xzf failed");
        String name = tarball.getFileName().toString();
        home = dir.resolve(name.substring(0, name.length() - "-dist.tar.gz".length()));
    }

    /** The tarball {@code package} built; failsafe names it. */
    private static Path tarball() {
        String name = System.getProperty("pgmux.proxy.dist");
        assertTrue(name != null, "system property pgmux.proxy.dist is not set: run this test with failsafe");
        Path tarball = Path.of(name);
        assertTrue(Files.isRegularFile(tarball), tarball + " is missing: it is built in the package phase");
        return tarball;
    }

    private Path ini(String... extra) throws IOException {
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\n"
                + "app = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\npool_mode = transaction\n"
                + "default_pool_size = 2\nauth_type = scram-sha-256\nauth_file = userlist.txt\n"
                + "unix_socket_dir = " + dir + "\npidfile = " + dir.resolve("pgmux.pid") + "\n"
                + String.join("\n", extra) + "\n");
        return ini;
    }

    /** bin/pgmux with this test's JDK, without a class-data archive unless {@code environment} names one. */
    private ProxyJar launch(Map<String, String> environment, List<String> envOptions, String... arguments)
            throws IOException {
        Map<String, String> env = new HashMap<>(Map.of("JAVA_HOME", System.getProperty("java.home"),
                "PGMUX_CDS_ARCHIVE", ""));
        env.putAll(environment);
        return ProxyJar.launch(home.resolve("bin/pgmux"), env, envOptions, arguments);
    }

    private ProxyJar launch(String... arguments) throws IOException {
        return launch(Map.of(), List.of(), arguments);
    }

    private static Connection connect(int port) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", USER);
        properties.setProperty("password", PASSWORD);
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/app", properties);
    }

    private static int selectOne(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    private long pidfilePid() throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("pgmux.pid"), StandardCharsets.US_ASCII).strip());
    }

    @Test
    void theTarballHoldsTheLauncherTheJarAnExampleIniAndASystemdUnit() throws Exception {
        for (String file : List.of("bin/pgmux", "etc/pgmux.ini", "etc/userlist.txt", "etc/jvm.options",
                "systemd/pgmux.service", "LICENSE", "THIRD-PARTY.txt")) {
            assertTrue(Files.isRegularFile(home.resolve(file)), file + " is missing");
        }
        assertTrue(Files.isExecutable(home.resolve("bin/pgmux")));
        try (var jars = Files.list(home.resolve("lib"))) {
            assertEquals(1, jars.filter(p -> p.getFileName().toString().matches("pgmux-proxy-.+-all\\.jar")).count());
        }
    }

    @Test
    void theTarballsChecksumFileVerifiesWithSha256sum() throws Exception {
        Path tarball = tarball();
        Process check = new ProcessBuilder("sha256sum", "-c", tarball.getFileName() + ".sha256")
                .directory(tarball.getParent().toFile()).redirectErrorStream(true).start();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, check.exitValue(), output);
        assertTrue(output.contains(": OK"), output);
    }

    @Test
    void theLauncherAnswersVersionAndRefusesAMissingIniAsPgBouncer() throws Exception {
        try (ProxyJar version = launch("-V")) {
            assertEquals(0, version.awaitExit());
            assertTrue(version.stdout().get(0).startsWith("PgBouncer 1.25.2 compatible (pgmux "), version.stdout()
                    .toString());
        }
        try (ProxyJar usage = launch()) {
            assertEquals(1, usage.awaitExit());
        }
    }

    @Test
    void theLauncherServesClientsAndThePidfileAndLogNameTheLauncher() throws Exception {
        try (ProxyJar proxy = launch(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port)) {
                assertEquals(1, selectOne(c));
            }
            assertEquals(proxy.pid(), pidfilePid());
            proxy.awaitStderr(Pattern.compile("\\[" + proxy.pid() + "\\] LOG process up: .*, pid " + proxy.pid()));
        }
    }

    @Test
    void sigquitToThePidInThePidfileIsAnImmediateShutdownEvenWithATransactionOpen() throws Exception {
        try (ProxyJar proxy = launch(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port)) {
                c.setAutoCommit(false);
                assertEquals(1, selectOne(c));
                new ProcessBuilder("kill", "-QUIT", Long.toString(pidfilePid())).inheritIO().start().waitFor();
                assertEquals(0, proxy.awaitExit());
            }
            proxy.awaitStderr(Pattern.compile("LOG got SIGQUIT, fast exit$"));
            assertFalse(Files.exists(dir.resolve("pgmux.pid")), "the pidfile is removed");
        }
    }

    @Test
    void sighupReloadsAndSigtermShutsDownThroughTheLauncher() throws Exception {
        try (ProxyJar proxy = launch(ini().toString())) {
            proxy.awaitPort();
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("LOG RELOAD: configuration applied$"));
            proxy.signal("TERM");
            assertEquals(0, proxy.awaitExit());
            proxy.awaitStderr(Pattern.compile("LOG shutdown complete$"));
        }
    }

    @Test
    void sigusr1PausesAndSigusr2ResumesThroughTheLauncher() throws Exception {
        try (ProxyJar proxy = launch(ini().toString())) {
            proxy.awaitPort();
            proxy.signal("USR1");
            proxy.awaitStderr(Pattern.compile("LOG got SIGUSR1, pausing all activity$"));
            proxy.signal("USR2");
            proxy.awaitStderr(Pattern.compile("LOG got SIGUSR2, continuing$"));
        }
    }

    /** A script's {@code &} leaves SIGINT and SIGQUIT ignored; PgBouncer answers them all the same. */
    @Test
    void signalsTheStartingShellLeftIgnoredAreAnsweredAllTheSame() throws Exception {
        try (ProxyJar proxy = launch(Map.of(), List.of("--ignore-signal=HUP,INT,QUIT"), ini().toString())) {
            proxy.awaitPort();
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
            proxy.awaitStderr(Pattern.compile("LOG got SIGINT, shutting down"));
            assertTrue(proxy.stderr().stream().noneMatch(line -> line.contains("was ignored when the process")),
                    String.join("\n", proxy.stderr()));
        }
    }

    /** One query through the proxy, then SIGTERM: the clean exit at which a JVM writes its archive. */
    private static void queryAndStop(ProxyJar proxy) throws Exception {
        try (Connection c = connect(proxy.awaitPort())) {
            assertEquals(1, selectOne(c));
        }
        proxy.signal("TERM");
        assertEquals(0, proxy.awaitExit());
    }

    /** The JVM's command line under the launcher. */
    private static String jvmCommandLine(ProxyJar proxy) {
        return proxy.process().descendants().map(p -> p.info().commandLine().orElse(""))
                .filter(line -> line.contains("-jar")).findFirst().orElse("");
    }

    private static Properties release(Path jdk) throws IOException {
        Properties release = new Properties();
        try (var in = Files.newInputStream(jdk.resolve("release"))) {
            release.load(in);
        }
        return release;
    }

    /** The JDK's exact build, as the launcher names its archive after it. */
    private static String build(Path jdk) throws IOException {
        Properties release = release(jdk);
        return release.getProperty("JAVA_RUNTIME_VERSION", release.getProperty("JAVA_VERSION")).replace("\"", "");
    }

    private static int feature(Path jdk) throws IOException {
        String version = release(jdk).getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
        return Integer.parseInt(version.split("[.+-]")[0]);
    }

    /** This test's JDK when it is 21 or later, else one of the system's JDKs (/usr/lib/jvm) that is; null if none. */
    private static Path jdk21OrLater() throws IOException {
        Path own = Path.of(System.getProperty("java.home"));
        if (feature(own) >= 21) {
            return own;
        }
        Path system = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(system)) {
            return null;
        }
        try (var jdks = Files.list(system)) {
            for (Path jdk : jdks.sorted().toList()) {
                if (Files.isRegularFile(jdk.resolve("release")) && Files.isExecutable(jdk.resolve("bin/java"))
                        && feature(jdk) >= 21) {
                    return jdk;
                }
            }
        }
        return null;
    }

    @Test
    void onJdk21AndLaterACleanExitWritesTheClassDataArchiveThatTheNextStartUses() throws Exception {
        Path jdk = jdk21OrLater();
        Assumptions.assumeTrue(jdk != null, "no JDK 21 or later here");
        Path archive = dir.resolve("cache/pgmux.jsa");
        Map<String, String> env = Map.of("PGMUX_CDS_ARCHIVE", archive.toString(), "JAVA_HOME", jdk.toString());
        try (ProxyJar proxy = launch(env, List.of(), ini().toString())) {
            queryAndStop(proxy);
        }
        assertTrue(Files.size(archive) > 0, "no archive written at exit");
        try (ProxyJar proxy = launch(env, List.of(), ini().toString())) {
            try (Connection c = connect(proxy.awaitPort())) {
                assertEquals(1, selectOne(c));
            }
            String jvm = jvmCommandLine(proxy);
            assertTrue(jvm.contains("-XX:SharedArchiveFile=" + archive), jvm);
            assertTrue(proxy.stdout().stream().noneMatch(line -> line.contains("[cds]")), proxy.stdout().toString());
        }
    }

    /**
     * An archive of another JDK's format cannot be used or rewritten (JDK 25 given 17's warns at each start and runs
     * without even its own base archive): each JDK build keeps its own, and the one an older JDK left is removed.
     */
    @Test
    void theDefaultClassDataArchiveIsThisJdksOwnAndReplacesAnotherJdks() throws Exception {
        Path jdk = jdk21OrLater();
        Assumptions.assumeTrue(jdk != null, "no JDK 21 or later here");
        Path var = Files.createDirectories(home.resolve("var"));
        Path otherJdks = var.resolve("pgmux-jdk-11.0.2+9.jsa");
        Files.write(otherJdks, new byte[] {(byte) 0xC0, 0x01, (byte) 0xC0, 0x01, 0, 0, 0, 0x0B});
        Path unversioned = var.resolve("pgmux.jsa");
        Files.copy(otherJdks, unversioned);
        String build = build(jdk);
        Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());
        try (ProxyJar proxy = ProxyJar.launch(home.resolve("bin/pgmux"), env, List.of("-u", "PGMUX_CDS_ARCHIVE"),
                ini().toString())) {
            queryAndStop(proxy);
            assertTrue(proxy.stdout().stream().noneMatch(line -> line.contains("warning")), proxy.stdout().toString());
            assertTrue(proxy.stderr().stream().noneMatch(line -> line.contains("warning")), proxy.stderr().toString());
        }
        assertFalse(Files.exists(otherJdks), "another JDK's archive is still there");
        assertFalse(Files.exists(unversioned), "the archive of an earlier release's name is still there");
        Path own = var.resolve("pgmux-jdk-" + build + ".jsa");
        assertTrue(Files.isRegularFile(own) && Files.size(own) > 0, "no archive " + own + " written at exit");
    }

    /**
     * Before JDK 21 an archive written as a serving JVM exits keeps the methods then queued for compilation marked
     * as queued, and they run interpreted in every start that maps it: the launcher writes none, and removes those
     * an earlier release wrote beside it.
     */
    @Test
    void beforeJdk21TheLauncherWritesNoClassDataArchiveAndRemovesTheOnesWrittenAtExit() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JDK writes archives safely");
        Path var = Files.createDirectories(home.resolve("var"));
        String build = build(Path.of(System.getProperty("java.home")));
        Path written = var.resolve("pgmux-jdk-" + build + ".jsa");
        Files.write(written, new byte[] {1, 2, 3});
        Path unversioned = var.resolve("pgmux.jsa");
        Files.copy(written, unversioned);
        Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"));
        try (ProxyJar proxy = ProxyJar.launch(home.resolve("bin/pgmux"), env, List.of("-u", "PGMUX_CDS_ARCHIVE"),
                ini().toString())) {
            proxy.awaitPort();
            String jvm = jvmCommandLine(proxy);
            assertFalse(jvm.contains("Archive"), jvm);
            queryAndStop(proxy);
        }
        try (var left = Files.list(var)) {
            assertEquals(List.of(), left.toList(), "archives in var/ after a run");
        }
    }

    /** The same with an archive path given that names no file yet: nothing is written there at exit. */
    @Test
    void beforeJdk21AnArchivePathGivenIsNotWrittenAtExit() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JDK writes archives safely");
        Path archive = dir.resolve("cache/pgmux.jsa");
        try (ProxyJar proxy = launch(Map.of("PGMUX_CDS_ARCHIVE", archive.toString()), List.of(), ini().toString())) {
            queryAndStop(proxy);
        }
        assertFalse(Files.exists(archive), "an archive was written at exit");
    }

    /** The distribution's commands of proxy-mode/README.md's "A faster start" for JDK 17 to 20, as written there. */
    @Test
    void anInterpretedTrainingRunsArchiveServesTheNextStart() throws Exception {
        Path archive = dir.resolve("pgmux.jsa");
        try (ProxyJar training = launch(Map.of("PGMUX_CDS_ARCHIVE", "",
                "PGMUX_JAVA_OPTS", "-Xint -XX:ArchiveClassesAtExit=" + archive), List.of(), ini().toString())) {
            queryAndStop(training);
        }
        assertTrue(Files.isRegularFile(archive) && Files.size(archive) > 0, "the training run wrote no archive");
        try (ProxyJar proxy = launch(Map.of("PGMUX_CDS_ARCHIVE", archive.toString()), List.of(), ini().toString())) {
            try (Connection c = connect(proxy.awaitPort())) {
                assertEquals(1, selectOne(c));
            }
            String jvm = jvmCommandLine(proxy);
            assertTrue(jvm.contains("-XX:SharedArchiveFile=" + archive), jvm);
        }
    }

    @Test
    void theLauncherStartsTheJvmWithTheIdleWakesOfJvmOptions() throws Exception {
        try (ProxyJar proxy = launch(ini().toString())) {
            proxy.awaitPort();
            String jvm = jvmCommandLine(proxy);
            for (String option : List.of("-XX:-UsePerfData", "-XX:AsyncDeflationInterval=10000",
                    "-XX:GuaranteedSafepointInterval=10000")) {
                assertTrue(jvm.contains(option), option + " missing: " + jvm);
            }
            String sampling = "-XX:G1ConcRefinementServiceIntervalMillis=10000";
            assertEquals(Runtime.version().feature() <= 19, jvm.contains(sampling), sampling + ": " + jvm);
        }
    }

    @Test
    void theLauncherStartsTheJvmWithHeapRegionsOfOneMegabyte() throws Exception {
        try (ProxyJar proxy = launch(ini().toString())) {
            proxy.awaitPort();
            long jvm = proxy.process().descendants().filter(p -> p.info().commandLine().orElse("").contains("-jar"))
                    .findFirst().orElseThrow().pid();
            Process flags = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(jvm), "VM.flags").redirectErrorStream(true).start();
            String output = new String(flags.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(flags.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            assertTrue(output.contains("-XX:G1HeapRegionSize=1048576"), output);
        }
    }

    @Test
    void aJvmOptionsLineForOtherJavaReleasesIsLeftOut() throws Exception {
        int feature = Runtime.version().feature();
        Files.writeString(home.resolve("etc/jvm.options"), "-Dpgmux.test.always=1\n"
                + (feature - 1) + ":-XX:PgmuxNoSuchOptionBefore\n"
                + (feature + 1) + "-:-XX:PgmuxNoSuchOptionAfter\n"
                + feature + "-" + feature + ":-Dpgmux.test.this=1\n"
                + "17-:-Dpgmux.test.from17=1\n");
        try (ProxyJar proxy = launch(ini().toString())) {
            proxy.awaitPort();
            String jvm = jvmCommandLine(proxy);
            assertTrue(jvm.contains("-Dpgmux.test.always=1"), jvm);
            assertTrue(jvm.contains("-Dpgmux.test.this=1"), jvm);
            assertTrue(jvm.contains("-Dpgmux.test.from17=1"), jvm);
            assertFalse(jvm.contains("PgmuxNoSuchOption"), jvm);
        }
    }

    @Test
    void theShippedExampleIniStartsAProxy() throws Exception {
        Path example = home.resolve("etc/pgmux.ini");
        Files.writeString(example, Files.readString(example).replace("listen_port = 6432", "listen_port = 0")
                + "unix_socket_dir =\n");
        try (ProxyJar proxy = launch(example.toString())) {
            assertTrue(proxy.awaitPort() > 0);
        }
    }
}
