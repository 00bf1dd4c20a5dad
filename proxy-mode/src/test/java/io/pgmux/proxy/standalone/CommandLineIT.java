package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The runnable jar's command line, as PgBouncer's: what it prints and the exit status, never a stack trace. */
class CommandLineIT {

    @Test
    void helpPrintsTheUsageAndExitsZero() throws Exception {
        ProxyJar jar = ProxyJar.run("--help");
        assertEquals(0, jar.awaitExit());
        assertTrue(jar.stdout().contains("  pgmux [OPTION]... CONFIG_FILE"), String.join("\n", jar.stdout()));
        assertEquals(List.of(), jar.stderr());
    }

    @Test
    void versionPrintsPgmuxsVersionAndThePgBouncerItAnswersLikeAndExitsZero() throws Exception {
        ProxyJar jar = ProxyJar.run("-V");
        assertEquals(0, jar.awaitExit());
        // the first line is SHOW VERSION's, as PgBouncer's
        assertTrue(jar.stdout().get(0).matches("PgBouncer 1\\.25\\.2 compatible \\(pgmux \\d+\\.\\d+\\.\\d+.*\\)"),
                jar.stdout().get(0));
        assertTrue(jar.stdout().get(1).startsWith("Java "), jar.stdout().get(1));
    }

    /** Else every start on JDK 22 and later prints four WARNING lines about Netty's System::loadLibrary. */
    @Test
    void theJarEnablesNativeAccessForItsNativeTransport() throws Exception {
        try (JarFile jar = new JarFile(ProxyJar.jar().toFile())) {
            assertEquals("ALL-UNNAMED", jar.getManifest().getMainAttributes().getValue("Enable-Native-Access"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"-d", "-R", "--user=postgres"})
    void optionsAJvmCannotHonourAreRefusedInOneLineWithExitOne(String option, @TempDir Path dir) throws Exception {
        ProxyJar jar = ProxyJar.run(option, dir.resolve("pgbouncer.ini").toString());
        assertEquals(1, jar.awaitExit());
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).startsWith("pgmux: -"), jar.stderr().get(0));
        assertTrue(jar.stderr().get(0).contains("is not supported"), jar.stderr().get(0));
    }

    @Test
    void anUnknownOptionIsAUsageErrorWithExitOne() throws Exception {
        ProxyJar jar = ProxyJar.run("-x", "pgbouncer.ini");
        assertEquals(1, jar.awaitExit());
        assertEquals(List.of("pgmux: invalid option -- 'x'", "Try \"pgmux --help\" for more information."),
                jar.stderr());
    }

    @Test
    void aMissingIniIsOneLineNamingTheFileWithExitOne(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.ini");
        ProxyJar jar = ProxyJar.run(missing.toString());
        assertEquals(1, jar.awaitExit());
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).endsWith("FATAL cannot load config file: could not load file \""
                + missing + "\": No such file or directory"), jar.stderr().get(0));
    }

    /** A directory in the ini's place: the tests run as root, whom a file's permissions do not stop. */
    @Test
    void anIniThatCannotBeReadIsOneLineNamingTheFileWithExitOne(@TempDir Path dir) throws Exception {
        Path unreadable = Files.createDirectory(dir.resolve("pgbouncer.ini"));
        ProxyJar jar = ProxyJar.run(unreadable.toString());
        assertEquals(1, jar.awaitExit());
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).endsWith("FATAL cannot load config file: " + unreadable.toAbsolutePath()
                .normalize() + ": Is a directory"), jar.stderr().get(0));
    }

    @Test
    void anIniSyntaxErrorIsOneLineNamingFileAndLineWithExitOne(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=127.0.0.1\nthis line is wrong\n");
        ProxyJar jar = ProxyJar.run(ini.toString());
        assertEquals(1, jar.awaitExit());
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).endsWith("FATAL cannot load config file: " + ini.toAbsolutePath().normalize()
                + " line 3: expected key = value"), jar.stderr().get(0));
    }

    @Test
    void aValueThatCannotBeUsedIsOneLineNamingFileLineAndKeyWithExitOne(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=127.0.0.1\n[pgbouncer]\nlisten_port = 0\n"
                + "default_pool_size = abc\n");
        ProxyJar jar = ProxyJar.run(ini.toString());
        assertEquals(1, jar.awaitExit());
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).contains("FATAL cannot load config file: " + ini.toAbsolutePath().normalize()
                + " line 5: default_pool_size"), jar.stderr().get(0));
    }

    @Test
    void anUnknownPgbouncerKeyIsOneLineNamingFileLineAndKeyWithExitOne(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=127.0.0.1\n[pgbouncer]\nlisten_port = 0\nfoo_bar = 1\n");
        ProxyJar jar = ProxyJar.run(ini.toString());
        assertEquals(1, jar.awaitExit(), "PgBouncer 1.25 exits 1 too: unknown parameter: pgbouncer/foo_bar");
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).endsWith("FATAL cannot load config file: " + ini.toAbsolutePath().normalize()
                + " line 5: unknown setting 'foo_bar'"), jar.stderr().get(0));
    }

    @Test
    void aMisspelledSectionIsOneLineNamingFileAndLineWithExitOneAndNoStartOnTheDefaults(@TempDir Path dir)
            throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=127.0.0.1\n[pgbouncr]\nlisten_port = 0\n");
        ProxyJar jar = ProxyJar.run(ini.toString());
        assertEquals(1, jar.awaitExit(), "PgBouncer 1.25 exits 1 too: invalid section \"pgbouncr\"");
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).endsWith("FATAL cannot load config file: " + ini.toAbsolutePath().normalize()
                + " line 3: unknown section [pgbouncr] (did you mean [pgbouncer]?): a pgbouncer.ini has [pgbouncer],"
                + " [databases], [users] and [peers]"), jar.stderr().get(0));
    }

    /** PgBouncer 1.25.2 prints the whole entry, password and all: "invalid value \"postgresql://…\"". */
    @Test
    void aConnectionUriEntryIsRefusedWithoutItsPasswordInTheLog(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = postgresql://app:s3cr3t-Pa55@127.0.0.1/app\n[pgbouncer]\n"
                + "listen_port = 0\n");
        ProxyJar jar = ProxyJar.run(ini.toString());
        assertEquals(1, jar.awaitExit());
        assertEquals(1, jar.stderr().size(), String.join("\n", jar.stderr()));
        assertTrue(jar.stderr().get(0).endsWith("FATAL cannot load config file: " + ini.toAbsolutePath().normalize()
                + " line 2: database app: a connection URI is not taken here (as in PgBouncer): write its parts as"
                + " key=value pairs (host, port, dbname, user, password)"), jar.stderr().get(0));
        assertTrue(jar.stdout().stream().noneMatch(line -> line.contains("s3cr3t")), String.join("\n", jar.stdout()));
    }
}
