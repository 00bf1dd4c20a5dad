package io.pgmux.proxy;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/** Starts a proxy in front of a test database; clients log in as {@link #USER} with {@link #PASSWORD}. */
final class ProxyFixture {
    static final String USER = "app";
    static final String PASSWORD = "app-secret";

    private ProxyFixture() {
    }

    /** A proxy whose server connections log in as the fixture's superuser over plain TCP. */
    static PgMuxProxy start(TestDatabase db, PoolMode mode, Consumer<ProxyBuilder> settings) {
        ProxyBuilder builder = PgMuxProxy.builder()
                .listen("127.0.0.1", 0)
                .database(db.name(), serverUrl(db))
                .poolMode(mode)
                .defaultPoolSize(4)
                .authType(AuthType.MD5)
                .users(Map.of(USER, PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(2);
        settings.accept(builder);
        return builder.start();
    }

    static PgMuxProxy start(TestDatabase db, PoolMode mode) {
        return start(db, mode, b -> { });
    }

    static String serverUrl(TestDatabase db) {
        return "postgresql://" + db.superuser() + ":" + db.superuserPassword() + "@" + db.host() + ":" + db.port()
                + "/" + db.name();
    }

    static String jdbcUrl(PgMuxProxy proxy, String database) {
        return "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database;
    }

    static Connection connect(PgMuxProxy proxy, TestDatabase db) throws SQLException {
        return connect(proxy, db.name(), USER, PASSWORD, new Properties());
    }

    static Connection connect(PgMuxProxy proxy, String database, String user, String password, Properties extra)
            throws SQLException {
        Properties properties = new Properties();
        properties.putAll(extra);
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.putIfAbsent("connectTimeout", "10");
        properties.putIfAbsent("socketTimeout", "30");
        return DriverManager.getConnection(jdbcUrl(proxy, database), properties);
    }

    /**
     * The pool of the test database's clients: the fixture's entry logs in as the superuser ({@code user=}), so all
     * its clients share the superuser's pool, whatever user they log in as; see {@link #existingPool}.
     */
    static Pool<ServerConnection> pool(PgMuxProxy proxy, TestDatabase db) {
        return existingPool(proxy, db.name(), db.superuser());
    }

    /**
     * The pool of (database, user), which a client must have made: the registry's {@code pool} would create an
     * empty one for a wrong name, and a check of it would pass without looking at the clients' pool.
     */
    static Pool<ServerConnection> existingPool(PgMuxProxy proxy, String database, String user) {
        return proxy.registry().find(database, user)
                .orElseThrow(() -> new AssertionError("no pool of database " + database + " and user " + user));
    }

    /** Waits until at least {@code clients} of the pool of ({@code database}, {@code user}) wait for a server. */
    static void awaitWaiting(PgMuxProxy proxy, String database, String user, int clients) {
        io.pgmux.testing.Await.until(() -> existingPool(proxy, database, user).view().snapshot().clWaiting >= clients,
                Duration.ofSeconds(10), clients + " clients waiting in " + database);
    }

    /** Waits until the pool's server connections are all back (leases end asynchronously). */
    static int awaitActive(Pool<ServerConnection> pool, int expected) {
        return Await.value(pool::getActiveConnections, active -> active == expected, Duration.ofSeconds(5));
    }

    /** The rows an admin console command (SHOW …) returns, each by column name. */
    static List<Map<String, String>> rows(Connection console, String command) throws SQLException {
        List<Map<String, String>> rows = new ArrayList<>();
        try (ResultSet rs = console.createStatement().executeQuery(command)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                Map<String, String> row = new HashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnName(i), rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** The row of an admin console command (SHOW …) whose name column is {@code name}, read on a console of its own. */
    static Map<String, String> row(PgMuxProxy proxy, String admin, String password, String command, String name)
            throws SQLException {
        try (Connection console = console(proxy, admin, password)) {
            return rows(console, command).stream().filter(row -> name.equals(row.get("name"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + command + " row for " + name));
        }
    }

    /** A connection to the admin console, in the simple query protocol it takes. */
    static Connection console(PgMuxProxy proxy, String admin, String password) throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return connect(proxy, "pgbouncer", admin, password, simple);
    }

    /** Writes {@code dir/userlist.txt}: users and their passwords in turn ({@code "app", "app-secret", …}). */
    static void writeUserlist(Path dir, String... usersAndPasswords) throws IOException {
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < usersAndPasswords.length; i += 2) {
            list.append('"').append(usersAndPasswords[i]).append("\" \"").append(usersAndPasswords[i + 1])
                    .append("\"\n");
        }
        Files.writeString(dir.resolve("userlist.txt"), list);
    }

    /**
     * Writes {@code ini}: {@code databases} as its [databases] section, then a [pgbouncer] section listening on
     * 127.0.0.1:{@code port} (0: a free port) with md5 logins from the userlist.txt beside it, then {@code settings}
     * (more [pgbouncer] lines, possibly ending with a [users] section).
     */
    static Path writeIni(Path ini, String databases, int port, String settings) throws IOException {
        Files.writeString(ini, "[databases]\n" + databases + "\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = "
                + port + "\nauth_type = md5\nauth_file = userlist.txt\n" + settings);
        return ini;
    }
}
