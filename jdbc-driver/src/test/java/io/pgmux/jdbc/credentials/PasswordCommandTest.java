package io.pgmux.jdbc.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real shell script as the command, as a token issuer would be: it prints a token and counts its runs. */
class PasswordCommandTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    private Path script(String body) throws IOException {
        Path script = dir.resolve("issue-token.sh");
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    /** A script printing token-N, N counting its runs in a file beside it. */
    private String countingIssuer() throws IOException {
        Path runs = dir.resolve("runs");
        return script("echo x >> '" + runs + "'\necho \"token-$(wc -l < '" + runs + "' | tr -d ' ')\"").toString();
    }

    @Test
    void takesWhatTheCommandPrintsWithoutItsLineBreakAsThePassword() throws IOException {
        PasswordCommand command = new PasswordCommand(countingIssuer() + " --region eu-west-1", Duration.ZERO, TIMEOUT);
        Credentials credentials = command.getCredentials();
        assertEquals("token-1", credentials.getPassword());
        assertEquals(null, credentials.getUsername(), "the pool's own user");
    }

    @Test
    void runsTheCommandOnceWithinItsCacheTime() throws IOException {
        PasswordCommand command = new PasswordCommand(countingIssuer(), Duration.ofMinutes(10), TIMEOUT);
        assertEquals("token-1", command.getCredentials().getPassword());
        assertEquals("token-1", command.getCredentials().getPassword());
    }

    @Test
    void runsTheCommandAgainOnceItsCacheTimeHasPassed() throws Exception {
        PasswordCommand command = new PasswordCommand(countingIssuer(), Duration.ofMillis(200), TIMEOUT);
        assertEquals("token-1", command.getCredentials().getPassword());
        Thread.sleep(300);
        assertEquals("token-2", command.getCredentials().getPassword());
    }

    @Test
    void runsTheCommandAtEveryLoginWithoutACacheTime() throws IOException {
        PasswordCommand command = new PasswordCommand(countingIssuer(), Duration.ZERO, TIMEOUT);
        assertEquals("token-1", command.getCredentials().getPassword());
        assertEquals("token-2", command.getCredentials().getPassword());
    }

    @Test
    void reportsAFailedCommandWithItsExitStatusAndError() throws IOException {
        Path script = script("echo 'Unable to locate credentials' >&2\nexit 253");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PasswordCommand(script.toString(), Duration.ZERO, TIMEOUT).getCredentials());
        assertEquals("passwordCommand '" + script + "' exited with status 253: Unable to locate credentials",
                e.getMessage());
    }

    @Test
    void refusesACommandThatPrintsNothing() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PasswordCommand("true", Duration.ZERO, TIMEOUT).getCredentials());
        assertEquals("passwordCommand 'true' printed nothing", e.getMessage());
    }

    @Test
    void killsACommandThatOutlastsItsTimeout() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new PasswordCommand("sleep 30", Duration.ZERO, Duration.ofMillis(300)).getCredentials());
        assertTrue(e.getMessage().equals("passwordCommand 'sleep 30' did not finish within 300 ms"), e.getMessage());
    }
}
