package io.pgmux.proxy;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** Runs libpq's psql once with a connection string; aborts the test, saying why, where psql is not installed. */
final class Psql {
    private static final long TIMEOUT_SECONDS = 60;

    private Psql() {
    }

    /** What psql printed (standard output and error) and its exit code. */
    record Result(int exitCode, String output) {
        boolean succeeded() {
            return exitCode == 0;
        }
    }

    /** Runs {@code command} (SQL or a backslash command) without reading psqlrc, printing rows unaligned. */
    static Result run(String connectionString, String command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(executable(), "-X", "-A", "-t", "-c", command,
                connectionString)).redirectErrorStream(true).start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("psql did not finish: " + connectionString);
        }
        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8));
    }

    private static String executable() {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, "psql");
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        Assumptions.abort("psql is not on PATH: install the PostgreSQL client tools (postgresql-client) to run"
                + " this test");
        return "psql";
    }
}
