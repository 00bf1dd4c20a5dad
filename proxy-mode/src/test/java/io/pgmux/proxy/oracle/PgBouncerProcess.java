package io.pgmux.proxy.oracle;

import io.pgmux.testing.Clients;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PgBouncer, started as its own process from an ini text, the oracle the differential tests compare pgmux
 * with: a PgBouncer 1.25.x, found as {@link #oracle()} says. PgBouncer refuses to run as root, so under root it runs as the
 * {@code postgres} OS user (which Debian's postgresql package creates), from a directory that user can read.
 */
final class PgBouncerProcess implements AutoCloseable {
    private static final Pattern VERSION = Pattern.compile("PgBouncer (\\d+\\.\\d+\\.\\d+)");
    /** The release whose behaviour pgmux follows, as a version prefix. */
    private static final String ORACLE_RELEASE = "1.25.";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

    private final Process process;
    private final Path dir;
    private final int port;

    private PgBouncerProcess(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /**
     * The oracle's binary, a PgBouncer 1.25.x, or the end of the test. One named by {@code -Dpgmux.test.pgbouncer}
     * or {@code $PGMUX_TEST_PGBOUNCER} must be that (else the test fails: it was named on purpose). Without a name,
     * the one on PATH or in /usr/sbin is used if it is 1.25.x; otherwise the test is skipped, saying to name one, on
     * a developer's machine, and fails under CI ({@code CI=true}): a green CI build has compared pgmux with
     * PgBouncer, and a distribution's older PgBouncer is no oracle for 1.25's behaviour.
     */
    static Path oracle() throws IOException, InterruptedException {
        // Debian installs it in /usr/sbin, which a non-root PATH lacks
        return oracle(Clients.onPath("pgbouncer").or(() -> Optional.of(Path.of("/usr/sbin/pgbouncer"))
                .filter(Files::isExecutable)), Clients.underCi());
    }

    /** {@link #oracle()} with the unnamed binary found, if any, and whether this is a CI run. */
    static Path oracle(Optional<Path> found, boolean underCi) throws IOException, InterruptedException {
        String named = System.getProperty("pgmux.test.pgbouncer", System.getenv("PGMUX_TEST_PGBOUNCER"));
        if (named != null && !named.isBlank()) {
            Path binary = Path.of(named);
            Assertions.assertTrue(Files.isExecutable(binary), "PGMUX_TEST_PGBOUNCER names " + binary
                    + ", which is not an executable file");
            String version = version(binary);
            Assertions.assertTrue(version.startsWith(ORACLE_RELEASE), "PGMUX_TEST_PGBOUNCER names " + binary
                    + ", PgBouncer " + version + "; the differential tests need PgBouncer " + ORACLE_RELEASE + "x");
            return binary;
        }
        String version = found.isEmpty() ? null : version(found.get());
        if (version == null || !version.startsWith(ORACLE_RELEASE)) {
            String reason = (found.isEmpty() ? "no pgbouncer on PATH" : found.get() + " is PgBouncer " + version)
                    + ": the differential tests need PgBouncer " + ORACLE_RELEASE + "x; set PGMUX_TEST_PGBOUNCER to"
                    + " the path of a PgBouncer " + ORACLE_RELEASE + "x binary";
            if (underCi) {
                Assertions.fail("no oracle under CI=true: " + reason);
            }
            Assumptions.abort(reason);
        }
        return found.orElseThrow();
    }

    /** {@code major.minor.patch} of {@code binary --version}. */
    static String version(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        Matcher m = VERSION.matcher(out);
        if (!m.find()) {
            throw new IOException(binary + " --version printed no PgBouncer version: " + out);
        }
        return m.group(1);
    }

    /**
     * Starts {@code binary} on {@code ini}, a pgbouncer.ini text whose {@code [pgbouncer]} section lacks
     * listen_addr, listen_port, unix_socket_dir, logfile and pidfile: those are added here. {@code files} are
     * written beside it (name, content), e.g. the auth_file.
     */
    static PgBouncerProcess start(Path binary, String ini, String... files) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("pgmux-oracle-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        for (int i = 0; i + 1 < files.length; i += 2) {
            write(dir.resolve(files[i]), files[i + 1]);
        }
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            Path iniFile = dir.resolve("pgbouncer.ini");
            write(iniFile, ini.replace("[pgbouncer]\n", "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = " + port
                    + "\nunix_socket_dir =\nlogfile = " + dir.resolve("pgbouncer.log") + "\npidfile = "
                    + dir.resolve("pgbouncer.pid") + "\n"));
            List<String> command = new ArrayList<>();
            if ("root".equals(System.getProperty("user.name"))) {
                // setpriv execs PgBouncer in its own place, so a signal reaches it; runuser would stay as the
                // parent and, on SIGTERM, wait two seconds before killing it: two seconds at each scenario's end
                command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups"));
            }
            command.addAll(List.of(binary.toString(), iniFile.toString()));
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.txt").toFile()).start();
            if (awaitListening(process, port)) {
                return new PgBouncerProcess(process, dir, port);
            }
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            last = new IOException("PgBouncer did not start on port " + port + ": " + read(dir.resolve("stdout.txt"))
                    + read(dir.resolve("pgbouncer.log")));
        }
        throw last;
    }

    int port() {
        return port;
    }

    /** Replaces {@code from} by {@code to} in its pgbouncer.ini, for a RELOAD to read. */
    void editIni(String from, String to) throws IOException {
        Path ini = dir.resolve("pgbouncer.ini");
        write(ini, Files.readString(ini).replace(from, to));
    }

    /** Writes {@code content} to {@code name} beside its pgbouncer.ini, replacing what was there. */
    void writeFile(String name, String content) throws IOException {
        write(dir.resolve(name), content);
    }

    String log() {
        return read(dir.resolve("pgbouncer.log"));
    }

    /**
     * SIGTERM until it is gone: PgBouncer takes the first as SHUTDOWN WAIT_FOR_CLIENTS, which it finds done only at
     * its next maintenance tick, a third of a second at each scenario's end, and the next as an immediate exit.
     * SIGQUIT, its immediate shutdown, would stay pending: a process a JVM starts inherits the JVM's block on it.
     */
    @Override
    public void close() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            process.destroy();
        } while (!process.waitFor(20, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline);
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        removeDirectory();
    }

    /** Its ini, auth file and log go with it: every scenario starts one, and a run would leave thousands behind. */
    private void removeDirectory() {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a file the process still writes, or one it made elsewhere: left in the temporary directory
        }
    }

    private static boolean awaitListening(Process process, int port) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        return false;
    }

    /** PgBouncer needs a port number in its ini; one the OS just handed out is free unless taken meanwhile. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void write(Path file, String content) throws IOException {
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "(" + file + ": " + e.getMessage() + ")";
        }
    }
}
