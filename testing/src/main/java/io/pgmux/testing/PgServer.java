package io.pgmux.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server shared by every test class of a JVM: the embedded one, the one {@code PG_TEST_URL}
 * names, or a Testcontainers one. Server-wide settings a test class changes are put back after that class.
 *
 * <p>Helpers the current server cannot honour (say, a restart of a server the fixture does not own) abort
 * the calling test, so it is reported as skipped with the reason, never as passed.
 */
public abstract class PgServer {

    static final String FIXTURE_APPLICATION_NAME = "pgmux-test-fixture";
    private static final Duration RELOAD_WAIT = Duration.ofSeconds(10);

    private final AdminConnection admin = new AdminConnection(this::openAdminConnection);
    private volatile boolean authRolesCreated;
    private volatile boolean logConnectionsEnabledByFixture;
    private volatile boolean logDestinationsSetByFixture;
    private volatile boolean tlsEnabledByFixture;
    private volatile ServerLog log;
    private volatile ServerCertificates certificates;
    private volatile String logUnavailableReason;

    PgServer() {
    }

    /** The address clients connect to; always a loopback address for servers the fixture owns. */
    public abstract String host();

    public abstract int port();

    public abstract String superuser();

    /** The superuser's password; servers the fixture owns also trust the superuser from loopback. */
    public abstract String superuserPassword();

    /** Where the server comes from and where it listens, for messages; never contains a password. */
    public abstract String description();

    /** A pgjdbc URL of the database, without credentials. */
    public final String jdbcUrl(String database) {
        String address = host().contains(":") ? "[" + host() + "]" : host();
        return "jdbc:postgresql://" + address + ":" + port() + "/" + database;
    }

    /** A new superuser connection to the database; the caller closes it. */
    public final Connection connect(String database) throws SQLException {
        return connect(database, superuser(), superuserPassword());
    }

    /** A new connection to the database as the given user; the caller closes it. */
    public final Connection connect(String database, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        return DriverManager.getConnection(jdbcUrl(database), properties);
    }

    /** {@code server_version_num}, e.g. 170006. */
    public final int serverVersionNumber() {
        return Integer.parseInt(show("server_version_num"));
    }

    public final int maxConnections() {
        return Integer.parseInt(show("max_connections"));
    }

    /**
     * Restarts the server with this {@code max_connections} (it cannot change without a restart); every
     * open connection is dropped. Keep in mind that {@code superuser_reserved_connections} (3) of them are
     * not available to ordinary users. Restored after the test class.
     */
    public abstract void setMaxConnections(int maxConnections);

    /** Stops the server (fast shutdown: open connections are terminated). Restarted after the test class. */
    public abstract void stop();

    /** Starts the stopped server again, on the same port. */
    public abstract void start();

    /** Stops and starts the server, on the same port; every open connection is dropped. */
    public abstract void restart();

    /**
     * Turns {@code log_connections} on for connections opened from now on (returns once a new backend
     * reports it on), which {@link TestDatabase#countConnectionAuthorizations()} needs. Restored after
     * the test class.
     */
    public final void enableLogConnections() {
        if (log == null && logUnavailableReason == null) {
            log = ServerLog.fromNow(admin);
            if (log == null) {
                logUnavailableReason = "the server's log is not written by its logging collector "
                        + "(logging_collector = off), so the fixture cannot read it";
            }
        }
        if ("on".equals(showInNewBackend("log_connections"))) {
            return;
        }
        execute("turn log_connections on", "ALTER SYSTEM SET log_connections = on", "SELECT pg_reload_conf()");
        logConnectionsEnabledByFixture = true;
        long deadline = System.nanoTime() + RELOAD_WAIT.toNanos();
        while (!"on".equals(showInNewBackend("log_connections"))) {
            if (System.nanoTime() > deadline) {
                Assumptions.abort("log_connections stayed off after ALTER SYSTEM and a reload; "
                        + "the server probably sets it on its command line");
            }
            pause(Duration.ofMillis(10));
        }
    }

    /**
     * Adds {@code csvlog} and {@code jsonlog} to {@code log_destination} ({@code stderr} stays, for the fixture's
     * own reads); returns once a new backend sees it. Restored after the test class.
     */
    public final void enableCsvAndJsonLogs() {
        String destinations = "stderr,csvlog,jsonlog";
        if (destinations.equals(showInNewBackend("log_destination"))) {
            return;
        }
        execute("log to csvlog and jsonlog too", "ALTER SYSTEM SET log_destination = '" + destinations + "'",
                "SELECT pg_reload_conf()");
        logDestinationsSetByFixture = true;
        long deadline = System.nanoTime() + RELOAD_WAIT.toNanos();
        while (!destinations.equals(showInNewBackend("log_destination"))) {
            if (System.nanoTime() > deadline) {
                Assumptions.abort("log_destination stayed " + showInNewBackend("log_destination")
                        + " after ALTER SYSTEM and a reload; the server probably sets it on its command line");
            }
            pause(Duration.ofMillis(10));
        }
    }

    /**
     * The directory of the server's Unix socket {@code .s.PGSQL.<port>}, on this machine; a server the fixture
     * does not own aborts the calling test.
     */
    public Path unixSocketDirectory() {
        unsupported("reach " + description() + " over a Unix socket", "the fixture does not own it");
        return null;
    }

    /**
     * The server's Unix socket in Linux's abstract namespace, as PostgreSQL and PgBouncer name it there:
     * {@code @name}, its socket {@code @name/.s.PGSQL.<port>}. A server the fixture does not own aborts the calling
     * test.
     */
    public String abstractSocketName() {
        unsupported("reach " + description() + " over an abstract Unix socket", "the fixture does not own it");
        return null;
    }

    /**
     * Turns TLS on for connections opened from now on, with this certificate (PEM, the server's own first)
     * and private key (unencrypted PEM, readable by its owner only, as PostgreSQL demands); calling it again
     * swaps them. Existing connections stay as they are. Restored (TLS off) after the test class. A server
     * that cannot read this machine's files aborts the calling test.
     */
    public abstract void enableTls(Path certificate, Path privateKey);

    /**
     * The certificates of a server that serves TLS from its start, that of {@code @PostgresTest(tls = true)}
     * classes; any other server fails the calling test, which asked the wrong server.
     */
    public final ServerCertificates certificates() {
        if (certificates == null) {
            throw new IllegalStateException(description() + " was not started with TLS by the fixture;"
                    + " annotate the test class @PostgresTest(tls = true)");
        }
        return certificates;
    }

    final void useCertificates(ServerCertificates certificates) {
        this.certificates = certificates;
    }

    /** ssl and its files take effect for new connections on a reload, so nothing is dropped. */
    final void applyTls(Path certificate, Path privateKey) {
        String cert = certificate.toAbsolutePath().toString();
        execute("turn ssl on",
                "ALTER SYSTEM SET ssl_cert_file = '" + cert.replace("'", "''") + "'",
                "ALTER SYSTEM SET ssl_key_file = '" + privateKey.toAbsolutePath().toString().replace("'", "''") + "'",
                "ALTER SYSTEM SET ssl = on",
                "SELECT pg_reload_conf()");
        tlsEnabledByFixture = true;
        awaitInNewBackend("ssl_cert_file", cert);
        // A certificate or key the server cannot load leaves it without TLS; only a handshake tells.
        Properties properties = new Properties();
        properties.setProperty("user", superuser());
        properties.setProperty("password", superuserPassword());
        properties.setProperty("sslmode", "require");
        properties.setProperty("sslfactory", "org.postgresql.ssl.NonValidatingFactory");
        try (Connection connection = DriverManager.getConnection(jdbcUrl(maintenanceDatabase()), properties);
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            if (!row.next() || !row.getBoolean(1)) {
                throw new IllegalStateException("a connection with sslmode=require is not encrypted");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL did not take " + certificate + " and " + privateKey
                    + " for TLS (its log says why): " + e.getMessage(), e);
        }
    }

    /**
     * Whether the fixture installed this server's pg_hba.conf; if it did, a user whose method the server
     * does not demand is a fixture bug, otherwise it is a server the tests cannot use for that method.
     */
    abstract boolean ownsAuthRules();

    /** The database the fixture's own connection uses. */
    abstract String maintenanceDatabase();

    /** Stops what the fixture started; called once, when the JVM exits. */
    abstract void shutdown();

    /** Puts back what a test class changed server-wide. */
    void restoreDefaults() {
        if (logDestinationsSetByFixture) {
            execute("reset log_destination", "ALTER SYSTEM RESET log_destination", "SELECT pg_reload_conf()");
            logDestinationsSetByFixture = false;
        }
        if (logConnectionsEnabledByFixture) {
            execute("reset log_connections", "ALTER SYSTEM RESET log_connections", "SELECT pg_reload_conf()");
            logConnectionsEnabledByFixture = false;
        }
        if (tlsEnabledByFixture) {
            execute("turn ssl off", "ALTER SYSTEM RESET ssl", "ALTER SYSTEM RESET ssl_cert_file",
                    "ALTER SYSTEM RESET ssl_key_file", "SELECT pg_reload_conf()");
            tlsEnabledByFixture = false;
            awaitInNewBackend("ssl", "off");
        }
    }

    private void awaitInNewBackend(String setting, String value) {
        long deadline = System.nanoTime() + RELOAD_WAIT.toNanos();
        while (!value.equals(showInNewBackend(setting))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(setting + " is not " + value + " " + RELOAD_WAIT.toSeconds()
                        + " s after ALTER SYSTEM and a reload");
            }
            pause(Duration.ofMillis(10));
        }
    }

    /**
     * The server's log from now on, as its logging collector writes it (stderr format); aborts the calling
     * test when the log is not written by the collector.
     */
    public final ServerLog logFromNow() {
        return logFromNow("stderr");
    }

    /**
     * The server's log of {@code destination} ({@code stderr}, or {@code csvlog} and {@code jsonlog} after
     * {@link #enableCsvAndJsonLogs()}) from now on; aborts the calling test when the collector does not write it.
     */
    public final ServerLog logFromNow(String destination) {
        ServerLog window = ServerLog.fromNow(admin, destination);
        if (window == null) {
            Assumptions.abort("the server's " + destination + " log is not written by its logging collector"
                    + " (logging_collector = off, or " + destination + " not in log_destination)");
        }
        return window;
    }

    AdminConnection admin() {
        return admin;
    }

    ServerLog log() {
        if (log == null) {
            Assumptions.abort(logUnavailableReason != null ? logUnavailableReason
                    : "call enableLogConnections() before counting connection authorizations");
        }
        return log;
    }

    /** Creates the NOLOGIN roles the pg_hba.conf lines refer to; harmless when they exist already. */
    void ensureAuthRoles() {
        if (authRolesCreated) {
            return;
        }
        for (PasswordMethod method : PasswordMethod.values()) {
            // A concurrent creator (another JVM on a shared server) surfaces as unique_violation.
            execute("create role " + method.groupRole(), "DO $$BEGIN CREATE ROLE " + method.groupRole()
                    + " NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END$$");
        }
        authRolesCreated = true;
    }

    /** Runs statements in order on the fixture's connection. */
    final void execute(String what, String... statements) {
        admin.call(what, connection -> {
            try (Statement statement = connection.createStatement()) {
                for (String sql : statements) {
                    statement.execute(sql);
                }
            }
            return null;
        });
    }

    /** Called when the server goes away under the fixture's connection. */
    final void forgetAdminConnection() {
        admin.close();
    }

    final Connection openAdminConnection() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", superuser());
        properties.setProperty("password", superuserPassword());
        properties.setProperty("ApplicationName", FIXTURE_APPLICATION_NAME);
        return DriverManager.getConnection(jdbcUrl(maintenanceDatabase()), properties);
    }

    private String show(String setting) {
        return admin.call("read " + setting, connection -> {
            try (Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SHOW " + setting)) {
                row.next();
                return row.getString(1);
            }
        });
    }

    /** A setting as a backend started now sees it, i.e. after the postmaster has processed any reload. */
    private String showInNewBackend(String setting) {
        try (Connection connection = openAdminConnection();
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SHOW " + setting)) {
            row.next();
            return row.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not read " + setting + ": " + e.getMessage(), e);
        }
    }

    /** Aborts the calling test: this server cannot do what it asked. */
    static void unsupported(String what, String why) {
        Assumptions.abort("cannot " + what + ": " + why);
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return description();
    }
}
