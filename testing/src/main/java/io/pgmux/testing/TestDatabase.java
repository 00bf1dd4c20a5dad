package io.pgmux.testing;

import java.io.IOException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Assumptions;

/**
 * The database of one test class: created before its first test, dropped (with every connection still
 * open to it and every user made through it) after its last one. Counting and terminating helpers look
 * only at client backends of this database, never at the fixture's own connection.
 */
public final class TestDatabase {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int TERMINATE_WAIT_MILLIS = 5_000;
    private static final Duration PROBE_WAIT = Duration.ofSeconds(5);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(10);
    private static final String BACKENDS = " FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend'"
            + " AND pid <> pg_backend_pid() AND (?::text IS NULL OR usename = ?)"
            + " AND (?::text IS NULL OR application_name = ?)";

    private final PgServer server;
    private final String name;
    private final List<String> users = new CopyOnWriteArrayList<>();

    private TestDatabase(PgServer server, String name) {
        this.server = server;
        this.name = name;
    }

    /** Creates a database named after the test class, with a random suffix so runs never collide. */
    static TestDatabase create(PgServer server, Class<?> testClass) {
        String stem = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
        String name = "t_" + stem.substring(0, Math.min(stem.length(), 40)) + "_" + randomHex(4);
        server.execute("create database " + name, "CREATE DATABASE " + name);
        TestDatabase database = new TestDatabase(server, name);
        // Since PostgreSQL 15 only the owner may create in schema public; test users need to as well.
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("GRANT CREATE ON SCHEMA public TO PUBLIC");
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare database " + name + ": " + e.getMessage(), e);
        }
        database.awaitConnections(Backends.all(), 0, Duration.ofSeconds(10));
        return database;
    }

    public String name() {
        return name;
    }

    /** A pgjdbc URL of this database, without credentials. */
    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    public String superuser() {
        return server.superuser();
    }

    public String superuserPassword() {
        return server.superuserPassword();
    }

    public PgServer server() {
        return server;
    }

    /** A new superuser connection to this database; the caller closes it. */
    public Connection connect() throws SQLException {
        return server.connect(name);
    }

    /** A new connection to this database as the user; the caller closes it. */
    public Connection connect(TestUser user) throws SQLException {
        return connect(user.name(), user.password());
    }

    /** A new connection to this database as the given user; the caller closes it. */
    public Connection connect(String user, String password) throws SQLException {
        return server.connect(name, user, password);
    }

    /** A login role with a random name and password that must authenticate with the method over TCP. */
    public TestUser createUser(PasswordMethod method) {
        return createUser("u_" + method.name().toLowerCase(Locale.ROOT) + "_" + randomHex(4), randomHex(12), method);
    }

    /**
     * A login role that must authenticate with the method over TCP; its password is stored as
     * {@link PasswordMethod#passwordEncryption()}. Before returning, the fixture checks that the server
     * really demands that method of the new user. On a server whose pg_hba.conf the fixture does not
     * control and which lacks the lines for it, the calling test is aborted with the lines to add.
     */
    public TestUser createUser(String user, String password, PasswordMethod method) {
        server.ensureAuthRoles();
        server.execute("create user " + user,
                "SET password_encryption = '" + method.passwordEncryption() + "'",
                "CREATE ROLE " + identifier(user) + " LOGIN PASSWORD " + literal(password)
                        + " IN ROLE " + method.groupRole(),
                "RESET password_encryption");
        users.add(user);
        String refusal = awaitAuthentication(user, method);
        if (refusal != null) {
            if (server.ownsAuthRules()) {
                throw new IllegalStateException("the fixture's pg_hba.conf does not demand " + method.hbaMethod()
                        + " of " + user + ": " + refusal);
            }
            Assumptions.abort(server.description() + " does not demand " + method.hbaMethod() + " of members of "
                    + method.groupRole() + " (" + refusal + "); add these lines ahead of its other host lines "
                    + "in pg_hba.conf and reload it:\n" + String.join("\n", AuthRules.groupLines()));
        }
        return new TestUser(user, password, method);
    }

    /**
     * A login role with a random name that the TLS server lets in by {@code rule}, and no password; returns its
     * name. Before returning, the fixture checks that a plain-text login of the new user is let in or refused
     * as the rule says. Only on the server of {@code @PostgresTest(tls = true)} classes.
     */
    public String createUser(TlsRule rule) {
        server.certificates(); // fails the test on any other server: only the TLS server has the rules
        String user = "u_" + rule.name().toLowerCase(Locale.ROOT) + "_" + randomHex(4);
        server.execute("create user " + user, "CREATE ROLE " + identifier(user) + " LOGIN IN ROLE " + rule.groupRole());
        users.add(user);
        String plainText;
        try {
            int requested = AuthProbe.requestedAuthentication(host(), port(), user, name);
            plainText = requested == 0 ? "let in" : "asked for AuthenticationRequest code " + requested;
        } catch (IOException e) {
            plainText = "refused";
        }
        if (!plainText.equals(rule.admitsPlainText() ? "let in" : "refused")) {
            throw new IllegalStateException("the TLS server's pg_hba.conf does not apply " + rule + " to " + user
                    + ": a plain-text login was " + plainText);
        }
        return user;
    }

    /** How many client backends are connected to this database now. */
    public int countConnections() {
        return countConnections(Backends.all());
    }

    /** How many client backends matching the filter are connected to this database now. */
    public int countConnections(Backends which) {
        return server.admin().call("count connections to " + name, connection -> {
            try (PreparedStatement statement = backendQuery(connection, "SELECT count(*)", which);
                 ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        });
    }

    /**
     * Waits until exactly {@code expected} matching backends are connected, or the timeout passes, and
     * returns the last count: backends leave asynchronously after a client closes its connection.
     */
    public int awaitConnections(Backends which, int expected, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int count = countConnections(which);
        while (count != expected && System.nanoTime() < deadline) {
            PgServer.pause(POLL_INTERVAL);
            count = countConnections(which);
        }
        return count;
    }

    /**
     * Waits until a client backend of this database runs {@code query} (pg_stat_activity shows exactly that
     * text in state {@code active}) and returns its pid, so that a test cancels or kills a query only once it
     * runs. Fails with an AssertionError when none does within the timeout.
     */
    public int awaitRunningQuery(String query, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Integer pid = server.admin().call("find the backend running " + query, connection -> {
                try (PreparedStatement statement = backendQuery(connection, "SELECT min(pid)", Backends.all(),
                        " AND state = 'active' AND query = ?")) {
                    statement.setString(6, query);
                    try (ResultSet row = statement.executeQuery()) {
                        row.next();
                        int found = row.getInt(1);
                        return row.wasNull() ? null : found;
                    }
                }
            });
            if (pid != null) {
                return pid;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no backend of " + name + " ran " + query + " within " + timeout);
            }
            PgServer.pause(POLL_INTERVAL);
        }
    }

    /**
     * Waits until the backend with that pid has exited (it is gone from pg_stat_activity) and returns whether
     * it did within the timeout: a server connection the pooler closed, not merely one it stopped using.
     */
    public boolean awaitBackendExit(int pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean present = server.admin().call("look for backend " + pid, connection -> {
                try (PreparedStatement statement = connection.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = ?")) {
                    statement.setInt(1, pid);
                    try (ResultSet row = statement.executeQuery()) {
                        row.next();
                        return row.getInt(1) > 0;
                    }
                }
            });
            if (!present) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            PgServer.pause(POLL_INTERVAL);
        }
    }

    /** Terminates every client backend of this database; see {@link #terminateBackends(Backends)}. */
    public int terminateBackends() {
        return terminateBackends(Backends.all());
    }

    /**
     * Terminates the matching client backends of this database with {@code pg_terminate_backend}, waiting
     * until each has exited, and returns how many were terminated.
     */
    public int terminateBackends(Backends which) {
        return server.admin().call("terminate backends of " + name, connection -> {
            try (PreparedStatement statement = backendQuery(connection,
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, " + TERMINATE_WAIT_MILLIS + "))", which);
                 ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        });
    }

    /**
     * How many connections to this database the server has authorized since
     * {@link PgServer#enableLogConnections()} was first called in this JVM, read from its log.
     */
    public long countConnectionAuthorizations() {
        return server.log().countAuthorizations(name, null);
    }

    /** As {@link #countConnectionAuthorizations()}, for one user. */
    public long countConnectionAuthorizations(String user) {
        return server.log().countAuthorizations(name, user);
    }

    /** Drops the database, closing whatever is still connected to it, then the users made through it. */
    void drop() {
        server.execute("drop database " + name, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        for (String user : users) {
            server.execute("drop user " + user, "DROP ROLE IF EXISTS " + identifier(user));
        }
    }

    /**
     * Null once the server demands the method of the user, else why not. A server whose rules the fixture
     * installed may still be reloading them, so it gets a few seconds; any other server answers at once.
     */
    private String awaitAuthentication(String user, PasswordMethod method) {
        long deadline = System.nanoTime() + (server.ownsAuthRules() ? PROBE_WAIT.toNanos() : 0);
        while (true) {
            String refusal;
            try {
                int requested = AuthProbe.requestedAuthentication(host(), port(), user, name);
                refusal = requested == method.authenticationRequestCode() ? null
                        : "the server answered with AuthenticationRequest code " + requested + ", not "
                                + method.authenticationRequestCode();
            } catch (IOException e) {
                refusal = e.getMessage();
            }
            if (refusal == null || System.nanoTime() > deadline) {
                return refusal;
            }
            PgServer.pause(POLL_INTERVAL);
        }
    }

    private PreparedStatement backendQuery(Connection connection, String select, Backends which) throws SQLException {
        return backendQuery(connection, select, which, "");
    }

    /** The backends query with more conditions, whose parameters follow the five of the filter. */
    private PreparedStatement backendQuery(Connection connection, String select, Backends which, String more)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(select + BACKENDS + more);
        statement.setString(1, name);
        statement.setString(2, which.user());
        statement.setString(3, which.user());
        statement.setString(4, which.applicationName());
        statement.setString(5, which.applicationName());
        return statement;
    }

    private static String identifier(String text) {
        return "\"" + text.replace("\"", "\"\"") + "\"";
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static String randomHex(int bytes) {
        byte[] random = new byte[bytes];
        RANDOM.nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    @Override
    public String toString() {
        return "database " + name + " on " + server.description();
    }
}
