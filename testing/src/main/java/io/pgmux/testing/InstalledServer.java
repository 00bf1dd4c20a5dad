package io.pgmux.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One PostgreSQL server of the installed binaries ({@code PGMUX_TEST_PG_BIN}, else {@code pg_config --bindir}), set
 * up for replication clients: {@code wal_level = logical}, wal senders and slots, and pg_hba.conf lines for
 * replication connections. It is for tests of the installed client tools that stream from a server
 * ({@code pg_basebackup}, {@code pg_receivewal}), which refuse a server newer than themselves, as the embedded one
 * may be. Every loopback client is trusted. Close it to stop the server and delete its directory.
 */
public final class InstalledServer implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final String SUPERUSER = "postgres";
    private static final Duration COMMAND_WAIT = Duration.ofSeconds(60);

    private final Path binaries;
    private final Path root;
    private final Path data;
    private final int port;

    private InstalledServer(Path binaries, Path root, int port) {
        this.binaries = binaries;
        this.root = root;
        this.data = root.resolve("data");
        this.port = port;
    }

    /** Creates the cluster and starts it; the test ends as {@link Clients#missing} says without the binaries. */
    public static InstalledServer start() {
        Path binaries = StandbyPair.binaries();
        InstalledServer server;
        try {
            Path root = Files.createTempDirectory("pgmux-installed-");
            // as root the server runs as an unmapped user, which must be able to write here
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
            server = new InstalledServer(binaries, root, freePort());
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the directory of a server", e);
        }
        try {
            server.init();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    public String superuser() {
        return SUPERUSER;
    }

    /** The directory of the installed client tools ({@code pg_basebackup}, {@code pg_receivewal}, …). */
    public Path binaries() {
        return binaries;
    }

    /** A new superuser connection to {@code database}. */
    public Connection connect(String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", SUPERUSER);
        return DriverManager.getConnection("jdbc:postgresql://" + HOST + ":" + port + "/" + database, properties);
    }

    private void init() {
        run("initdb", "-D", data.toString(), "-U", SUPERUSER, "-A", "trust", "--no-sync", "-E", "UTF8",
                "--locale=C");
        try {
            Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust", ""));
            Files.writeString(data.resolve("postgresql.conf"), String.join("\n",
                    "listen_addresses = '" + HOST + "'",
                    "unix_socket_directories = '" + root + "'",
                    "port = " + port,
                    "fsync = off",
                    "synchronous_commit = off",
                    "full_page_writes = off",
                    "wal_level = logical",
                    "max_wal_senders = 10",
                    "max_replication_slots = 10",
                    ""), StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not configure the server in " + data, e);
        }
        run("pg_ctl", "-D", data.toString(), "-l", root.resolve("server.log").toString(), "-w", "-t",
                Long.toString(COMMAND_WAIT.toSeconds()), "start");
    }

    @Override
    public void close() {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            try {
                run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "-t",
                        Long.toString(COMMAND_WAIT.toSeconds()), "stop");
            } catch (RuntimeException e) {
                System.err.println("could not stop the server in " + data + ": " + e.getMessage());
            }
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }

    /** Runs one of PostgreSQL's programs; as root, in a user namespace where it is not uid 0, as PostgreSQL demands. */
    private void run(String program, String... arguments) {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            command.add(Clients.executable("unshare", "install util-linux").toString());
            command.add("-U");
        }
        command.add(binaries.resolve(program).toString());
        command.addAll(List.of(arguments));
        Path output = root.resolve(program + ".out");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(COMMAND_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(program + " did not finish within " + COMMAND_WAIT.toSeconds() + " s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (exit " + process.exitValue()
                        + "): " + Files.readString(output, StandardCharsets.UTF_8).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + program, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + program, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
