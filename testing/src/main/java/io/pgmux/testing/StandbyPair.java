package io.pgmux.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL primary and a streaming standby of it ({@code pg_basebackup -R}), or several
 * ({@link #withStandbys(int)}), all on loopback with their own data directories, for failover and read routing
 * tests: {@link #promoteStandby()}, {@link #stopPrimary()} and {@link #stopStandbyImmediately(int)} are what an
 * operator, or a crash, does. The methods that name no standby act on the first one. The installed PostgreSQL's
 * binaries run them (the embedded server ships no pg_basebackup): those of {@code PGMUX_TEST_PG_BIN}, else of
 * {@code pg_config --bindir}; without them the test is skipped, or fails under CI. Every host trusts loopback and
 * the Unix socket, so any password logs in. Close it to stop every server and delete their directories.
 */
public final class StandbyPair implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final String SUPERUSER = "postgres";
    private static final Duration COMMAND_WAIT = Duration.ofSeconds(60);
    private static final Duration REPLICATION_WAIT = Duration.ofSeconds(30);
    private static final Set<Integer> USED_PORTS = ConcurrentHashMap.newKeySet();

    private final Path binaries;
    private final Path root;
    private final Path socketDirectory;
    private final Node primary;
    private final List<Node> standbys;
    /** The first standby: the one of the methods that name none. */
    private final Node standby;
    /** The stopped primary's port, kept by the pair until the primary starts again; null while it runs. */
    private PortHolder stoppedPrimaryPort;
    /** The ports of standbys stopped for good, kept until the pair closes. */
    private final List<PortHolder> stoppedStandbyPorts = new ArrayList<>();

    private record Node(Path data, int port) {
    }

    private StandbyPair(Path binaries, Path root, int standbyCount) throws IOException {
        this.binaries = binaries;
        this.root = root;
        this.socketDirectory = root.resolve("sockets");
        Files.createDirectories(socketDirectory);
        // as root the servers run as an unmapped user, which must be able to write here
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(socketDirectory, PosixFilePermissions.fromString("rwxrwxrwx"));
        this.primary = new Node(root.resolve("primary"), freePort());
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < standbyCount; i++) {
            nodes.add(new Node(root.resolve(i == 0 ? "standby" : "standby" + (i + 1)), freePort()));
        }
        this.standbys = List.copyOf(nodes);
        this.standby = standbys.get(0);
    }

    /** Creates the primary, clones it into a standby and starts both; returns once the standby streams. */
    public static StandbyPair start() {
        return withStandbys(1);
    }

    /** Creates the primary, clones it into {@code count} standbys and starts them; returns once all stream. */
    public static StandbyPair withStandbys(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a primary needs at least one standby here, not " + count);
        }
        Path binaries = binaries();
        StandbyPair pair;
        try {
            pair = new StandbyPair(binaries, Files.createTempDirectory("pgmux-standby-"), count);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the directories of a primary and standby", e);
        }
        try {
            pair.initPrimary();
            for (Node node : pair.standbys) {
                pair.run("pg_basebackup", "-h", HOST, "-p", Integer.toString(pair.primary.port), "-U", SUPERUSER,
                        "-D", node.data.toString(), "-R", "-X", "stream", "-c", "fast");
                pair.startServer(node);
            }
            pair.awaitStreaming();
            return pair;
        } catch (RuntimeException e) {
            pair.close();
            throw e;
        }
    }

    public String host() {
        return HOST;
    }

    public int primaryPort() {
        return primary.port;
    }

    public int standbyPort() {
        return standby.port;
    }

    /** The port of standby {@code index}, counted from 0 in the order of {@link #hostList()}. */
    public int standbyPort(int index) {
        return standbys.get(index).port;
    }

    public int standbyCount() {
        return standbys.size();
    }

    /** The directory of both servers' Unix sockets ({@code .s.PGSQL.<port>}). */
    public Path socketDirectory() {
        return socketDirectory;
    }

    public String superuser() {
        return SUPERUSER;
    }

    /** {@code host:port} of the primary, then of each standby, as a pgjdbc URL's host list. */
    public String hostList() {
        StringBuilder list = new StringBuilder(HOST + ":" + primary.port);
        for (Node node : standbys) {
            list.append(',').append(HOST).append(':').append(node.port);
        }
        return list.toString();
    }

    /** A new superuser connection to {@code database} on the server listening on {@code port}. */
    public Connection connect(int port, String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", SUPERUSER);
        return DriverManager.getConnection("jdbc:postgresql://" + HOST + ":" + port + "/" + database, properties);
    }

    /** Runs statements on the primary's {@code postgres} database (they reach the standby by replication). */
    public void executeOnPrimary(String... statements) {
        try (Connection c = connect(primary.port, "postgres"); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not run " + String.join("; ", statements) + " on the primary: "
                    + e.getMessage(), e);
        }
    }

    /** Runs statements on the {@code postgres} database of standby {@code index}. */
    public void executeOnStandby(int index, String... statements) {
        try (Connection c = connect(standbyPort(index), "postgres"); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not run " + String.join("; ", statements) + " on standby " + index
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Waits until every running standby has replayed everything the primary has written so far. The insert
     * position, not
     * {@code pg_current_wal_lsn()}: that one is where WAL has been written to the kernel, and with
     * {@code synchronous_commit = off} the last commit may still lie beyond it (the standby would then "catch up"
     * to a point before it, with the table created and its rows not yet there).
     */
    public void awaitStandbyCaughtUp() {
        String lsn = queryOne(primary.port, "SELECT pg_current_wal_insert_lsn()::text");
        for (Node node : standbys) {
            if (isRunning(node)) {
                awaitTrue(node.port, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn", REPLICATION_WAIT,
                        "the standby on port " + node.port + " did not replay the primary's WAL up to " + lsn);
            }
        }
    }

    /**
     * The logins the standby has authorized since it started ("connection authorized" lines of its log), the
     * fixture's own included: compare two counts to see that a client reached it.
     */
    public int standbyLogins() {
        Path log = logFile(standby);
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return (int) lines.filter(line -> line.contains("connection authorized")).count();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + log, e);
        }
    }

    /**
     * Waits until the standby has authorized a login beyond the {@code before} of {@link #standbyLogins()}
     * (a client looking for the primary has tried it), or until {@code client} is done, whichever comes first.
     */
    public void awaitStandbyLogin(int before, Future<?> client) {
        long deadline = System.nanoTime() + REPLICATION_WAIT.toNanos();
        while (standbyLogins() == before && !client.isDone()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no login reached the standby within " + REPLICATION_WAIT.toSeconds()
                        + " s");
            }
            PgServer.pause(Duration.ofMillis(20));
        }
    }

    /** {@code pg_ctl promote}: returns once the standby accepts writes. */
    public void promoteStandby() {
        run("pg_ctl", "-D", standby.data.toString(), "-w", "-t", Long.toString(COMMAND_WAIT.toSeconds()), "promote");
    }

    /**
     * Fast shutdown of the primary: its sessions are terminated, and its port refuses connections until
     * {@link #startPrimary()}. The pair keeps the port itself meanwhile (each connection accepted is reset at once):
     * on a machine where other servers start all the time, a port left free can be taken by another PostgreSQL
     * within seconds, and a client looking for the primary would log in there.
     */
    public void stopPrimary() {
        stopServer(primary);
        stoppedPrimaryPort = PortHolder.hold(HOST, primary.port);
    }

    /** Fast shutdown of the standby: its sessions are terminated and its port refuses connections. */
    public void stopStandby() {
        stopServer(standby);
    }

    /** Starts the stopped primary again on its port (as a primary: nothing rewinds it). */
    public void startPrimary() {
        releaseStoppedPrimaryPort();
        startServer(primary);
    }

    /**
     * Immediate shutdown of standby {@code index} ({@code pg_ctl stop -m immediate}, as a crash of the server
     * does: no session gets a goodbye); the pair keeps its port until it closes, for the reason
     * {@link #stopPrimary()} gives.
     */
    public void stopStandbyImmediately(int index) {
        Node node = standbys.get(index);
        run("pg_ctl", "-D", node.data.toString(), "-m", "immediate", "-w", "-t",
                Long.toString(COMMAND_WAIT.toSeconds()), "stop");
        stoppedStandbyPorts.add(PortHolder.hold(HOST, node.port));
    }

    private static boolean isRunning(Node node) {
        return Files.exists(node.data.resolve("postmaster.pid"));
    }

    private void releaseStoppedPrimaryPort() {
        if (stoppedPrimaryPort != null) {
            stoppedPrimaryPort.close();
            stoppedPrimaryPort = null;
        }
    }

    @Override
    public void close() {
        releaseStoppedPrimaryPort();
        stoppedStandbyPorts.forEach(PortHolder::close);
        List<Node> nodes = new ArrayList<>(standbys);
        nodes.add(primary);
        for (Node node : nodes) {
            if (isRunning(node)) {
                try {
                    stopServer(node);
                } catch (RuntimeException e) {
                    System.err.println("could not stop the server in " + node.data + ": " + e.getMessage());
                }
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

    private void initPrimary() {
        run("initdb", "-D", primary.data.toString(), "-U", SUPERUSER, "-A", "trust", "--no-sync", "-E", "UTF8",
                "--locale=C");
        try {
            Files.writeString(primary.data.resolve("pg_hba.conf"), String.join("\n",
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "local replication all trust",
                    "host replication all 127.0.0.1/32 trust", ""));
            Files.writeString(primary.data.resolve("postgresql.conf"), String.join("\n",
                    "listen_addresses = '" + HOST + "'",
                    "unix_socket_directories = '" + socketDirectory + "'",
                    "max_connections = 300",
                    "fsync = off",
                    "synchronous_commit = off",
                    "full_page_writes = off",
                    "wal_level = replica",
                    "max_wal_senders = " + (standbys.size() + 3),
                    "hot_standby = on",
                    "wal_receiver_status_interval = 1s",
                    "log_connections = on",
                    ""), java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not configure the primary in " + primary.data, e);
        }
        startServer(primary);
    }

    private void startServer(Node node) {
        run("pg_ctl", "-D", node.data.toString(), "-l", logFile(node).toString(),
                "-w", "-t", Long.toString(COMMAND_WAIT.toSeconds()), "-o", "-p " + node.port, "start");
    }

    private Path logFile(Node node) {
        return root.resolve(node.data.getFileName() + ".log");
    }

    private void stopServer(Node node) {
        run("pg_ctl", "-D", node.data.toString(), "-m", "fast", "-w", "-t", Long.toString(COMMAND_WAIT.toSeconds()),
                "stop");
    }

    private void awaitStreaming() {
        awaitTrue(primary.port, "SELECT count(*) >= " + standbys.size()
                + " FROM pg_stat_replication WHERE state = 'streaming'",
                REPLICATION_WAIT, "the standbys did not all start streaming from the primary");
    }

    private void awaitTrue(int port, String query, Duration timeout, String failure) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!"t".equals(queryOne(port, query))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure + " within " + timeout.toSeconds() + " s");
            }
            PgServer.pause(Duration.ofMillis(20));
        }
    }

    private String queryOne(int port, String query) {
        try (Connection c = connect(port, "postgres"); Statement st = c.createStatement();
             ResultSet row = st.executeQuery(query)) {
            row.next();
            return row.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not run " + query + " on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Runs one of PostgreSQL's programs; as root, in a user namespace where it is not uid 0, as PostgreSQL demands. */
    private void run(String program, String... arguments) {
        List<String> command = new ArrayList<>();
        if (runningAsRoot()) {
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

    private static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The directory holding initdb, pg_ctl and pg_basebackup, or the end of the test as {@link Clients#missing} says. */
    static Path binaries() {
        String configured = System.getenv("PGMUX_TEST_PG_BIN");
        Path dir = configured != null && !configured.isBlank() ? Path.of(configured) : pgConfigBindir();
        if (dir == null || !Stream.of("initdb", "pg_ctl", "pg_basebackup")
                .allMatch(program -> Files.isExecutable(dir.resolve(program)))) {
            Clients.missing("a primary and standby need PostgreSQL's initdb, pg_ctl and pg_basebackup: install the "
                    + "PostgreSQL server package (pg_config on PATH) or set PGMUX_TEST_PG_BIN to their directory");
        }
        return dir;
    }

    private static Path pgConfigBindir() {
        Path pgConfig = Clients.onPath("pg_config").orElse(null);
        if (pgConfig == null) {
            return null;
        }
        try {
            Process process = new ProcessBuilder(pgConfig.toString(), "--bindir").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.waitFor() == 0 && !out.isEmpty() ? Path.of(out) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * A port no pair of this JVM has used: pgjdbc remembers for hostRecheckSeconds whether a host:port was a
     * primary, and a promoted standby's port reused by the next pair's standby would look like one.
     */
    private static int freePort() throws IOException {
        for (;;) {
            try (ServerSocket socket = new ServerSocket(0)) {
                if (USED_PORTS.add(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "primary and standbys on " + hostList() + " (" + root + ")";
    }
}
