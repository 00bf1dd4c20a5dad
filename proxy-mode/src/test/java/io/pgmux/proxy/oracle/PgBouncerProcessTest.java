package io.pgmux.proxy.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The oracle named by {@code -Dpgmux.test.pgbouncer} (as by PGMUX_TEST_PGBOUNCER) must be a PgBouncer 1.25.x; without
 * a name and without a 1.25.x found, the differential tests are skipped, or fail under CI.
 */
class PgBouncerProcessTest {
    private static final String PROPERTY = "pgmux.test.pgbouncer";
    private final String before = System.getProperty(PROPERTY);
    @TempDir
    Path dir;

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty(PROPERTY);
        } else {
            System.setProperty(PROPERTY, before);
        }
    }

    /** An executable that prints what {@code pgbouncer --version} of that release prints. */
    private Path pgbouncer(String version) throws Exception {
        Path script = dir.resolve("pgbouncer");
        Files.writeString(script, "#!/bin/sh\necho 'PgBouncer " + version + "'\necho 'libevent 2.1.12-stable'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    @Test
    void aNamedPgBouncer125IsTheOracle() throws Exception {
        Path binary = pgbouncer("1.25.2");
        System.setProperty(PROPERTY, binary.toString());
        assertEquals(binary, PgBouncerProcess.oracle());
    }

    @Test
    void aNamedPgBouncerOfAnotherReleaseFailsSayingWhichItIs() throws Exception {
        Path binary = pgbouncer("1.18.0");
        System.setProperty(PROPERTY, binary.toString());
        AssertionFailedError failed = assertThrows(AssertionFailedError.class, PgBouncerProcess::oracle);
        assertTrue(failed.getMessage().startsWith("PGMUX_TEST_PGBOUNCER names " + binary + ", PgBouncer 1.18.0; the"
                + " differential tests need PgBouncer 1.25.x"), failed.getMessage());
    }

    @Test
    void aNamedFileThatIsMissingFailsSayingSo() {
        Path missing = dir.resolve("nosuch");
        System.setProperty(PROPERTY, missing.toString());
        AssertionFailedError failed = assertThrows(AssertionFailedError.class, PgBouncerProcess::oracle);
        assertTrue(failed.getMessage().startsWith("PGMUX_TEST_PGBOUNCER names " + missing + ", which is not an"
                + " executable file"), failed.getMessage());
    }

    @Test
    void withoutAPgBouncer125UnderCiTheTestsFail() throws Exception {
        System.setProperty(PROPERTY, "");
        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> PgBouncerProcess.oracle(Optional.empty(), true));
        assertTrue(failed.getMessage().startsWith("no oracle under CI=true: no pgbouncer on PATH: the differential"
                + " tests need PgBouncer 1.25.x"), failed.getMessage());
    }

    @Test
    void anUnnamedPgBouncerOfAnotherReleaseUnderCiFailsSayingWhichItIs() throws Exception {
        Path binary = pgbouncer("1.18.0");
        System.setProperty(PROPERTY, "");
        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> PgBouncerProcess.oracle(Optional.of(binary), true));
        assertTrue(failed.getMessage().startsWith("no oracle under CI=true: " + binary + " is PgBouncer 1.18.0"),
                failed.getMessage());
    }

    @Test
    void withoutAPgBouncer125OutsideCiTheTestsAreSkipped() throws Exception {
        System.setProperty(PROPERTY, "");
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> PgBouncerProcess.oracle(Optional.empty(), false));
        assertTrue(skipped.getMessage().contains("set PGMUX_TEST_PGBOUNCER"), skipped.getMessage());
    }

    @Test
    void anUnnamedPgBouncer125IsTheOracle() throws Exception {
        Path binary = pgbouncer("1.25.2");
        System.setProperty(PROPERTY, "");
        assertEquals(binary, PgBouncerProcess.oracle(Optional.of(binary), true));
    }
}
