package io.pgmux.proxy;

import io.pgmux.testing.Clients;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
        return Clients.executable("psql", "install the PostgreSQL client tools (postgresql-client) to run this test")
                .toString();
    }
}
