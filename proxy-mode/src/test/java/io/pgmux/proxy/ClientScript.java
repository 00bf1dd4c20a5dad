package io.pgmux.proxy;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Clients;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A script of a real client library (under src/test/python or src/test/node) that runs scenarios against a proxy
 * as a subprocess. It gets the proxy's address and credentials in libpq's environment variables and the pool
 * mode in PGMUX_POOL_MODE, and reports one line per scenario (see src/test/python/harness.py). When the
 * interpreter or the library is missing, {@link #run} ends the test as {@link Clients#missing} says, with the
 * reason and how to install it.
 */
final class ClientScript {
    private static final Path MODULE = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    private static final long TIMEOUT_SECONDS = 120;

    private final List<String> command;
    private final String unavailable;

    private ClientScript(List<String> command, String unavailable) {
        this.command = command;
        this.unavailable = unavailable;
    }

    /**
     * A script run by Debian's /usr/bin/python3, where apt installs python3-psycopg2 and python3-psycopg (another
     * interpreter with the module: -Dpgmux.test.python=...).
     */
    static ClientScript python(String script, String module, String debianPackage) {
        String python = System.getProperty("pgmux.test.python", "/usr/bin/python3");
        List<String> command = List.of(python, MODULE.resolve("src/test/python").resolve(script).toString());
        if (!Files.isExecutable(Path.of(python))) {
            return new ClientScript(command, python + " is missing: install python3 and " + debianPackage);
        }
        try {
            Process probe = new ProcessBuilder(python, "-c", "import " + module).redirectErrorStream(true).start();
            String output = readAll(probe.getInputStream());
            if (!probe.waitFor(30, TimeUnit.SECONDS) || probe.exitValue() != 0) {
                probe.destroyForcibly();
                return new ClientScript(command, python + " cannot import " + module + " (apt-get install "
                        + debianPackage + "): " + output.strip());
            }
        } catch (IOException e) {
            return new ClientScript(command, "cannot run " + python + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new ClientScript(command, null);
    }

    /** A script run by node, with the packages that `npm ci` installed beside it (src/test/node). */
    static ClientScript node(String script, String npmPackage) {
        Path dir = MODULE.resolve("src/test/node");
        List<String> command = List.of("node", dir.resolve(script).toString());
        if (Clients.onPath("node").isEmpty()) {
            return new ClientScript(command, "node is not on PATH: install Node.js 18 or later, then npm ci in "
                    + "proxy-mode/src/test/node");
        }
        if (!Files.isDirectory(dir.resolve("node_modules").resolve(npmPackage))) {
            return new ClientScript(command, "node package " + npmPackage + " is not installed: run npm ci in "
                    + "proxy-mode/src/test/node");
        }
        return new ClientScript(command, null);
    }

    /** Runs the named scenarios, or all that apply to {@code mode} when none are named, as the fixture's user. */
    ClientReport run(PgMuxProxy proxy, String database, PoolMode mode, String... scenarios) {
        return run(proxy, database, mode, ProxyFixture.USER, ProxyFixture.PASSWORD, scenarios);
    }

    ClientReport run(PgMuxProxy proxy, String database, PoolMode mode, String user, String password,
            String... scenarios) {
        if (unavailable != null) {
            Clients.missing(unavailable);
        }
        List<String> line = new ArrayList<>(command);
        line.addAll(List.of(scenarios));
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        // only what the test sets: a PGSERVICE, PGOPTIONS or PGSSLMODE of the machine must not change the clients
        env.keySet().removeIf(name -> name.startsWith("PG"));
        env.put("PGHOST", "127.0.0.1");
        env.put("PGPORT", Integer.toString(proxy.port()));
        env.put("PGDATABASE", database);
        env.put("PGUSER", user);
        env.put("PGPASSWORD", password);
        env.put("PGSSLMODE", "disable");
        env.put("PGMUX_POOL_MODE", mode.name().toLowerCase(Locale.ROOT));
        env.put("PYTHONUNBUFFERED", "1");
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        try {
            Process process = builder.start();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                return new ClientReport(line, -1, output.getNow("") + "\n(killed after " + TIMEOUT_SECONDS + " s)");
            }
            return new ClientReport(line, process.exitValue(), output.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
