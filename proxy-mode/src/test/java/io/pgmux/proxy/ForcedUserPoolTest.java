package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * A [databases] entry with {@code user=} (a forced user) has one pool, the forced user's, for every client of the
 * database whatever user it logs in as, as in PgBouncer: the pool's size bounds their servers together, the
 * forced user's [users] settings are the pool's, and each client still counts and shows under its own user.
 */
@PostgresTest
class ForcedUserPoolTest {
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final String BATCH = "batch";
    private static final String BATCH_PASSWORD = "batch-secret";
    private final TestDatabase db;
    private PgMuxProxy proxy;

    ForcedUserPoolTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void clientsOfTwoUsersWaitForTheForcedUsersOneServer() throws Exception {
        proxy = start(" pool_size=1", "");
        try (Connection app = connect(ProxyFixture.USER, ProxyFixture.PASSWORD);
             Connection batch = connect(BATCH, BATCH_PASSWORD)) {
            app.setAutoCommit(false);
            int server = backendPid(app);
            CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> pidOf(batch));
            Await.until(() -> "1".equals(poolRows().get(0).get("cl_waiting")), Duration.ofSeconds(10),
                    "the other user's client waiting in the pool");
            List<Map<String, String>> pools = poolRows();
            assertEquals(1, pools.size(), "one pool for both users: " + pools);
            assertEquals(db.superuser(), pools.get(0).get("user"));
            assertEquals("1", pools.get(0).get("cl_active"));
            assertEquals("1", pools.get(0).get("sv_active"));
            assertEquals(ProxyFixture.USER + " active, " + BATCH + " waiting", clients());
            app.commit();
            assertEquals(server, waiting.get(10, TimeUnit.SECONDS), "the waiter gets the one server");
        }
    }

    @Test
    void showServersNamesTheForcedUser() throws Exception {
        proxy = start("", "");
        try (Connection batch = connect(BATCH, BATCH_PASSWORD)) {
            batch.setAutoCommit(false);
            backendPid(batch);
            List<String> servers = console("SHOW SERVERS").stream().map(r -> r.get("user")).toList();
            assertEquals(List.of(db.superuser()), servers);
            batch.rollback();
        }
    }

    @Test
    void theForcedUsersPoolSettingsApplyAndTheClientsUsersDoNot() throws Exception {
        proxy = start("", "[users]\n" + db.superuser() + " = pool_size=1\n" + ProxyFixture.USER
                + " = pool_mode=session pool_size=3\n");
        try (Connection a = connect(ProxyFixture.USER, ProxyFixture.PASSWORD);
             Connection b = connect(ProxyFixture.USER, ProxyFixture.PASSWORD);
             Connection c = connect(BATCH, BATCH_PASSWORD)) {
            int server = backendPid(a);
            assertEquals(server, backendPid(b), "the forced user's transaction mode and pool_size=1");
            assertEquals(server, backendPid(c));
        }
        assertEquals(1, ProxyFixture.existingPool(proxy, db.name(), db.superuser()).getTotalConnections());
    }

    @Test
    void maxUserClientConnectionsCountsTheClientsOwnUser() throws Exception {
        proxy = start("", "[users]\n" + ProxyFixture.USER + " = max_user_client_connections=1\n" + db.superuser()
                + " = max_user_client_connections=1\n");
        try (Connection app = connect(ProxyFixture.USER, ProxyFixture.PASSWORD);
             Connection batch = connect(BATCH, BATCH_PASSWORD)) {
            PSQLException refused = assertThrows(PSQLException.class,
                    () -> connect(ProxyFixture.USER, ProxyFixture.PASSWORD).close());
            assertEquals("client connections exceeded (max_user_client_connections)",
                    refused.getServerErrorMessage().getMessage());
            assertEquals("1", row("SHOW USERS", ProxyFixture.USER).get("current_client_connections"));
            assertEquals("1", row("SHOW USERS", BATCH).get("current_client_connections"));
            assertEquals("0", row("SHOW USERS", db.superuser()).get("current_client_connections"));
        }
        Await.equal("0", () -> row("SHOW USERS", ProxyFixture.USER).get("current_client_connections"),
                Duration.ofSeconds(10), "the client that left counted out under its own user");
        try (Connection again = connect(ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            assertTrue(again.isValid(5));
        }
    }

    private PgMuxProxy start(String entryKeys, String settings) {
        String ini = "[databases]\n" + db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname="
                + db.name() + " user=" + db.superuser() + " password='" + db.superuserPassword() + "'" + entryKeys
                + "\n[pgbouncer]\npool_mode = transaction\ndefault_pool_size = 4\nadmin_users = " + ADMIN + "\n"
                + settings;
        return ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, BATCH, BATCH_PASSWORD, ADMIN, ADMIN_PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(2)
                .start();
    }

    private Connection connect(String user, String password) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), user, password, new Properties());
    }

    private static int pidOf(Connection c) {
        try {
            return backendPid(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SHOW POOLS' rows of the test database. */
    private List<Map<String, String>> poolRows() throws SQLException {
        return console("SHOW POOLS").stream().filter(r -> db.name().equals(r.get("database"))).toList();
    }

    /** SHOW CLIENTS' user and state of each client of the test database, by user. */
    private String clients() throws SQLException {
        return console("SHOW CLIENTS").stream().filter(r -> db.name().equals(r.get("database")))
                .map(r -> r.get("user") + " " + r.get("state")).sorted().collect(Collectors.joining(", "));
    }

    private List<Map<String, String>> console(String command) throws SQLException {
        try (Connection console = ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD)) {
            return ProxyFixture.rows(console, command);
        }
    }

    private Map<String, String> row(String command, String name) throws SQLException {
        return ProxyFixture.row(proxy, ADMIN, ADMIN_PASSWORD, command, name);
    }
}
