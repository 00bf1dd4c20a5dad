package io.pgmux.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The real clients tests run beside the JVM (psql, pgbench, python3 with psycopg, node with node-postgres). A test
 * whose client is missing is skipped with the reason on a developer's machine, and fails under CI ({@code CI=true}),
 * where every client is installed: a green CI build has run every client test.
 */
public final class Clients {
    private Clients() {
    }

    /** Whether this JVM runs under CI, where a missing client is a failure rather than a skip. */
    public static boolean underCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /**
     * Ends the test because a client it needs is missing: aborted (reported as skipped) on a developer's machine,
     * failed under CI. {@code reason} names the client and how to install it.
     */
    public static void missing(String reason) {
        if (underCi()) {
            Assertions.fail("a client this test needs is missing under CI=true: " + reason);
        }
        Assumptions.abort(reason);
    }

    /** The executable of that name on PATH, or the end of the test as {@link #missing} says. */
    public static Path executable(String name, String install) {
        Optional<Path> found = onPath(name);
        if (found.isEmpty()) {
            missing(name + " is not on PATH: " + install);
        }
        return found.orElseThrow();
    }

    /** The executable of that name on PATH, if there is one. */
    public static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Optional.of(Path.of(dir, name));
            }
        }
        return Optional.empty();
    }
}
