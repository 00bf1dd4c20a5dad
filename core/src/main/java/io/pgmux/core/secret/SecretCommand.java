package io.pgmux.core.secret;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A secret printed by a command, for token issuers ({@code aws rds generate-db-auth-token …},
 * {@code gcloud sql generate-login-token}, {@code vault read -field=password …}): run by the shell
 * ({@code /bin/sh -c}, {@code cmd /c} on Windows) with pgmux's environment, its standard output without a final
 * line break taken as the secret, and kept for the cache time, so that a burst of logins runs it once. Logins
 * that find the cache expired at the same moment wait for one run rather than each starting their own. Runs
 * block: never on an event loop.
 */
public final class SecretCommand {
    /** What is shown of the command's standard error when it fails: enough for a message, never a flood. */
    private static final int ERROR_CHARS = 300;

    private final String setting;
    private final String command;
    private final long cacheNanos;
    private final Duration timeout;
    private final ReentrantLock running = new ReentrantLock();
    private String secret;
    private long expiresAt;

    /**
     * @param setting   the setting that names the command, for the messages
     * @param command   a shell command line
     * @param cacheTime how long its output is used before it runs again; zero runs it at every use
     * @param timeout   how long it may run; longer, it is killed and the use fails
     * @throws IllegalArgumentException for an empty command
     */
    public SecretCommand(String setting, String command, Duration cacheTime, Duration timeout) {
        this.setting = Objects.requireNonNull(setting, "setting");
        if (Objects.requireNonNull(command, "command").isBlank()) {
            throw new IllegalArgumentException(setting + " is empty");
        }
        this.command = command;
        this.cacheNanos = cacheTime.toNanos();
        this.timeout = timeout;
    }

    /**
     * @throws IllegalStateException naming the setting and the command when it cannot start, fails, prints
     *     nothing or outlasts its timeout
     */
    public String get() {
        running.lock();
        try {
            if (secret == null || System.nanoTime() - expiresAt >= 0) {
                secret = run();
                expiresAt = System.nanoTime() + cacheNanos;
            }
            return secret;
        } finally {
            running.unlock();
        }
    }

    private String run() {
        Process process;
        try {
            process = new ProcessBuilder(shell()).start();
        } catch (IOException e) {
            throw new IllegalStateException(this + " cannot start: " + e.getMessage(), e);
        }
        try {
            process.getOutputStream().close();
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(this + " did not finish within " + timeout.toMillis() + " ms");
            }
            String out = read(process.getInputStream());
            if (process.exitValue() != 0) {
                String err = read(process.getErrorStream()).strip();
                throw new IllegalStateException(this + " exited with status " + process.exitValue()
                        + (err.isEmpty() ? "" : ": " + abbreviated(err)));
            }
            String printed = SecretFile.withoutFinalLineBreak(out);
            if (printed.isEmpty()) {
                throw new IllegalStateException(this + " printed nothing");
            }
            return printed;
        } catch (IOException e) {
            throw new IllegalStateException(this + ": reading its output failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(this + " was interrupted", e);
        } finally {
            // what the shell started goes too: a command killed for its timeout must not linger
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    private List<String> shell() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")
                ? List.of("cmd", "/c", command) : List.of("/bin/sh", "-c", command);
    }

    private static String read(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    private static String abbreviated(String text) {
        return text.length() <= ERROR_CHARS ? text : text.substring(0, ERROR_CHARS) + "…";
    }

    @Override
    public String toString() {
        return setting + " '" + command + "'";
    }
}
