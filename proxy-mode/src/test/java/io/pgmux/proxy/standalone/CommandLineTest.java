package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.standalone.CommandLine.Action;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** PgBouncer's command line, parsed. */
class CommandLineTest {

    @Test
    void aConfigFileAloneRunsIt() {
        CommandLine line = CommandLine.parse(List.of("pgbouncer.ini"));
        assertEquals(Action.RUN, line.action());
        assertEquals(Path.of("pgbouncer.ini"), line.config());
        assertEquals(0, line.verbose());
    }

    @Test
    void shortOptionsCombineAndVerboseCounts() {
        CommandLine line = CommandLine.parse(List.of("-qv", "-v", "--verbose", "pgbouncer.ini"));
        assertEquals(Action.RUN, line.action());
        assertTrue(line.quiet());
        assertEquals(3, line.verbose());
    }

    @Test
    void helpAndVersionNeedNoConfigFile() {
        assertEquals(Action.HELP, CommandLine.parse(List.of("--help")).action());
        assertEquals(Action.VERSION, CommandLine.parse(List.of("-V")).action());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-d", "--daemon", "-R", "--reboot", "-u", "--user=postgres"})
    void optionsAJvmCannotHonourAreRefusedInOneLine(String option) {
        CommandLine line = CommandLine.parse(List.of(option, "pgbouncer.ini"));
        assertEquals(Action.ERROR, line.action());
        assertTrue(line.error().contains("is not supported"), line.error());
        assertEquals(1, line.error().lines().count(), line.error());
    }

    @Test
    void anUnknownOptionIsNamedAsPgBouncerNamesIt() {
        assertEquals("pgmux: invalid option -- 'x'", CommandLine.parse(List.of("-x", "a.ini")).error().lines()
                .findFirst().orElseThrow());
        assertEquals("pgmux: unrecognized option '--bogus'", CommandLine.parse(List.of("--bogus", "a.ini")).error()
                .lines().findFirst().orElseThrow());
    }

    @Test
    void noConfigFileOrTwoAreUsageErrors() {
        assertTrue(CommandLine.parse(List.of()).error().startsWith("pgmux: no configuration file specified"));
        assertTrue(CommandLine.parse(List.of("a.ini", "b.ini")).error().contains("too many arguments"));
    }
}
