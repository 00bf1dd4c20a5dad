package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * [databases] and [users] entries with their own pool_size, pool_mode and limits, loaded from an ini file, in front
 * of one server. A [users] entry's pool settings are those of the user's own pools: the pools of entries without
 * {@code user=}, where clients log in as real roles of the server (an entry with {@code user=} has the forced
 * user's pool, see {@link ForcedUserPoolTest}).
 */
@PostgresTest
class PerDatabaseAndUserPoolTest {
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final String BATCH = "batch";
    private static final String BATCH_PASSWORD = "batch-secret";
    private final TestDatabase db;
    private PgMuxProxy proxy;

    PerDatabaseAndUserPoolTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /** The auth file holds the fixture's users and {@code roles}, the server's roles clients log in as. */
    private PgMuxProxy start(String databases, String pgbouncer, TestUser... roles) {
        String ini = "[databases]\n" + databases + "[pgbouncer]\npool_mode = session\ndefault_pool_size = 4\n"
                + "admin_users = " + ADMIN + "\n" + pgbouncer;
        Map<String, String> users = new HashMap<>(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN,
                ADMIN_PASSWORD, BATCH, BATCH_PASSWORD));
        for (TestUser role : roles) {
            users.put(role.name(), role.password());
        }
        return ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                .listen("127.0.0.1", 0)
                .users(users)
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(2)
                .start();
    }

    /** An entry without user=: its clients' servers log in as the client's user, with its auth file secret. */
    private String ownLogin() {
        return "host=" + db.host() + " port=" + db.port() + " dbname=" + db.name();
    }

    private String target() {
        return "host=" + db.host() + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser()
                + " password='" + db.superuserPassword() + "'";
    }

    @Test
    void eachDatabaseUsesItsOwnPoolModeAndSize() throws Exception {
        proxy = start("shared = " + target() + " pool_mode=transaction pool_size=1\n"
                + "own = " + target() + "\n", "");
        try (Connection a = connect("shared"); Connection b = connect("shared")) {
            assertEquals(backendPid(a), backendPid(b),
                    "transaction mode with pool_size=1: both clients run on the one server connection");
        }
        try (Connection a = connect("own"); Connection b = connect("own")) {
            assertNotEquals(backendPid(a), backendPid(b), "the global session mode: one server per client");
        }
        assertEquals(1, ProxyFixture.existingPool(proxy, "shared", db.superuser()).getTotalConnections());
    }

    @Test
    void showDatabasesShowsEachDatabasesOwnPoolSettings() throws Exception {
        proxy = start("shared = " + target() + " pool_mode=transaction pool_size=2 min_pool_size=1 reserve_pool=3"
                + " max_db_connections=5\nown = " + target() + "\n", "");
        Map<String, String> shared = databaseRow("shared");
        assertEquals("2", shared.get("pool_size"));
        assertEquals("1", shared.get("min_pool_size"));
        assertEquals("3", shared.get("reserve_pool_size"));
        assertEquals("transaction", shared.get("pool_mode"));
        assertEquals("5", shared.get("max_connections"));
        Map<String, String> own = databaseRow("own");
        assertEquals("4", own.get("pool_size"));
        assertNull(own.get("pool_mode"), "NULL: the global pool_mode applies");
        assertEquals("0", own.get("max_connections"));
    }

    @Test
    void aDatabasesMaxDbConnectionsHoldsItsClientsBack() throws Exception {
        proxy = start("capped = " + target() + " pool_mode=transaction max_db_connections=1\n",
                "query_wait_timeout = 1\n");
        try (Connection a = connect("capped"); Connection b = connect("capped")) {
            a.setAutoCommit(false);
            backendPid(a);
            SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> backendPid(b));
            assertTrue(e.getMessage().contains("query_wait_timeout"), e.getMessage());
            a.rollback();
        }
    }

    @Test
    void aUsersPoolModeAndSizeWinOverItsDatabases() throws Exception {
        TestUser plain = db.createUser(PasswordMethod.MD5);
        TestUser batch = db.createUser(PasswordMethod.MD5);
        proxy = start("shared = " + ownLogin() + " pool_mode=transaction pool_size=1\n",
                "[users]\n" + batch.name() + " = pool_mode=session pool_size=2\n", plain, batch);
        try (Connection a = connectAs(plain, "shared"); Connection b = connectAs(plain, "shared")) {
            assertEquals(backendPid(a), backendPid(b), "the database's transaction mode and pool_size=1");
        }
        try (Connection a = connectAs(batch, "shared"); Connection b = connectAs(batch, "shared")) {
            assertNotEquals(backendPid(a), backendPid(b), "the user's session mode and pool_size=2");
        }
    }

    @Test
    void aUsersMaxUserConnectionsHoldsItsClientsBackAcrossDatabases() throws Exception {
        TestUser plain = db.createUser(PasswordMethod.MD5);
        TestUser batch = db.createUser(PasswordMethod.MD5);
        proxy = start("one = " + ownLogin() + " pool_mode=transaction\ntwo = " + ownLogin()
                + " pool_mode=transaction\n", "query_wait_timeout = 1\n[users]\n" + batch.name()
                + " = max_user_connections=1\n", plain, batch);
        try (Connection a = connectAs(batch, "one"); Connection b = connectAs(batch, "two");
             Connection other = connectAs(plain, "two")) {
            a.setAutoCommit(false);
            backendPid(a);
            SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> backendPid(b));
            assertTrue(e.getMessage().contains("query_wait_timeout"), e.getMessage());
            backendPid(other);
            a.rollback();
        }
    }

    /** As PgBouncer: a database's min_pool_size above a user's pool_size is taken, and that pool keeps its size. */
    @Test
    void aDatabasesMinPoolSizeAboveAUsersPoolSizeIsTaken() throws Exception {
        TestUser batch = db.createUser(PasswordMethod.MD5);
        proxy = start("shared = " + ownLogin() + " pool_mode=transaction min_pool_size=3\n",
                "min_pool_size = 5\ndefault_pool_size = 4\n[users]\n" + batch.name() + " = pool_size=2\n", batch);
        try (Connection a = connectAs(batch, "shared")) {
            backendPid(a);
        }
        assertEquals("3", databaseRow("shared").get("min_pool_size"));
        io.pgmux.core.pool.Pool<?> pool = ProxyFixture.existingPool(proxy, "shared", batch.name());
        Await.equal(2, pool::getTotalConnections, Duration.ofSeconds(10),
                "min_pool_size=3 fills the user's pool up to its size, 2");
    }

    /** As PgBouncer's janitor: a forced user's pool is filled before any client comes (its suite's p0z). */
    @Test
    void aForcedUsersPoolHasItsMinPoolSizeOpenBeforeAnyClient() throws Exception {
        proxy = start("forced = " + target() + " pool_mode=transaction min_pool_size=2\n", "");
        Await.equal(2, () -> proxy.registry().find("forced", db.superuser()).map(p -> p.getTotalConnections())
                .orElse(0), Duration.ofSeconds(10), "min_pool_size=2 opened without a client");
    }

    @Test
    void aDatabasesQueryWaitTimeoutWinsOverTheGlobalOne() throws Exception {
        proxy = start("quick = " + target() + " pool_mode=transaction pool_size=1 query_wait_timeout=1\n",
                "query_wait_timeout = 300\n");
        assertWaiterTimesOut(() -> connect("quick"), () -> connect("quick"));
    }

    @Test
    void aUsersQueryWaitTimeoutWinsOverItsDatabasesAndMinusOneIsNotSet() throws Exception {
        TestUser plain = db.createUser(PasswordMethod.MD5);
        TestUser batch = db.createUser(PasswordMethod.MD5);
        proxy = start("slow = " + ownLogin() + " pool_mode=transaction pool_size=1 query_wait_timeout=300\n"
                + "quick = " + ownLogin() + " pool_mode=transaction pool_size=1 query_wait_timeout=1\n",
                "[users]\n" + batch.name() + " = query_wait_timeout=1\n" + plain.name() + " = query_wait_timeout=-1\n",
                plain, batch);
        assertWaiterTimesOut(() -> connectAs(batch, "slow"), () -> connectAs(batch, "slow"));
        assertWaiterTimesOut(() -> connectAs(plain, "quick"), () -> connectAs(plain, "quick"));
    }

    @FunctionalInterface
    private interface Client {
        Connection open() throws SQLException;
    }

    /** The holder keeps the pool's one server in a transaction; the waiter's query fails at query_wait_timeout. */
    private static void assertWaiterTimesOut(Client holder, Client waiter) throws SQLException {
        try (Connection h = holder.open(); Connection w = waiter.open()) {
            h.setAutoCommit(false);
            backendPid(h);
            SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> backendPid(w));
            assertTrue(e.getMessage().contains("query_wait_timeout"), e.getMessage());
            h.rollback();
        }
    }

    @Test
    void aDatabasesServerLifetimeClosesItsServersOnly() throws Exception {
        proxy = start("short = " + target() + " pool_mode=transaction server_lifetime=1\n"
                + "long = " + target() + " pool_mode=transaction\n", "");
        int shortLived;
        int longLived;
        try (Connection a = connect("short"); Connection b = connect("long")) {
            shortLived = backendPid(a);
            longLived = backendPid(b);
        }
        assertTrue(db.awaitBackendExit(shortLived, Duration.ofSeconds(15)), "server_lifetime=1 closes " + shortLived);
        // as old as the one closed, but under the global server_lifetime (3600)
        try (Connection admin = db.connect(); Statement s = admin.createStatement();
             ResultSet row = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + longLived)) {
            row.next();
            assertEquals(1, row.getInt(1), "the other database's server " + longLived + " is still open");
        }
    }

    @Test
    void showUsersShowsAUsersOwnSettings() throws Exception {
        proxy = start("shared = " + target() + "\n",
                "[users]\n" + BATCH + " = pool_mode=statement pool_size=3 max_user_connections=7\n");
        Map<String, String> batch = row("SHOW USERS", BATCH);
        assertEquals("        3", batch.get("pool_size"), "text, right-aligned in 9 characters, as PgBouncer's");
        assertEquals("statement", batch.get("pool_mode"));
        assertEquals("7", batch.get("max_user_connections"));
        assertEquals("", batch.get("reserve_pool_size"), "empty: not set for the user");
    }

    private Connection connect(String database) throws SQLException {
        return ProxyFixture.connect(proxy, database, ProxyFixture.USER, ProxyFixture.PASSWORD, new Properties());
    }

    private Connection connectAs(TestUser role, String database) throws SQLException {
        return connectAs(role.name(), role.password(), database);
    }

    private Connection connectAs(String user, String password, String database) throws SQLException {
        return ProxyFixture.connect(proxy, database, user, password, new Properties());
    }

    private Map<String, String> databaseRow(String name) throws SQLException {
        return row("SHOW DATABASES", name);
    }

    private Map<String, String> row(String command, String name) throws SQLException {
        return ProxyFixture.row(proxy, ADMIN, ADMIN_PASSWORD, command, name);
    }
}
