package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * login_notify_message and query_wait_notify: the NOTICEs PgBouncer sends of its own, as pgjdbc, psql and psycopg
 * receive them.
 */
@PostgresTest
class PoolerNoticesTest {
    private static final String QUEUED = "No server connection available in postgres backend, client being queued";
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private final TestDatabase db;
    private PgMuxProxy proxy;

    PoolerNoticesTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private PgMuxProxy start(String settings) {
        String ini = "[databases]\napp = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password='" + db.superuserPassword() + "'\n[pgbouncer]\n"
                + "pool_mode = transaction\ndefault_pool_size = 1\nadmin_users = " + ADMIN + "\n" + settings;
        return ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD))
                .threads(1)
                .start();
    }

    @Test
    void loginNotifyMessageReachesAPgjdbcClientAsANotice() throws Exception {
        proxy = start("login_notify_message = Welcome to pgmux, not PostgreSQL\n");
        try (Connection c = connect()) {
            SQLWarning warning = c.getWarnings();
            assertEquals("Welcome to pgmux, not PostgreSQL", warning.getMessage());
            assertEquals("00000", warning.getSQLState());
        }
    }

    @Test
    void withoutLoginNotifyMessageNoNoticeIsSent() throws Exception {
        proxy = start("");
        try (Connection c = connect()) {
            assertNull(c.getWarnings());
        }
    }

    @Test
    void psqlPrintsTheLoginNoticeOfADatabaseAndOfTheConsole() throws Exception {
        proxy = start("login_notify_message = Welcome\n");
        Psql.Result app = Psql.run(connectionString("app", ProxyFixture.USER, ProxyFixture.PASSWORD), "SELECT 1");
        assertTrue(app.succeeded() && app.output().contains("NOTICE:  Welcome"), app.output());
        Psql.Result console = Psql.run(connectionString("pgbouncer", ADMIN, ADMIN_PASSWORD), "SHOW VERSION");
        assertTrue(console.succeeded() && console.output().contains("NOTICE:  Welcome"), console.output());
    }

    @Test
    void reloadChangesTheLoginNotice() throws Exception {
        proxy = start("login_notify_message = before\n");
        proxy.set(io.pgmux.proxy.config.ProxySetting.LOGIN_NOTIFY_MESSAGE, "after");
        try (Connection c = connect()) {
            assertEquals("after", c.getWarnings().getMessage());
        }
    }

    /**
     * One server, held in a transaction: psql's query waits and psql prints the NOTICE as it arrives, then the holder
     * lets go and the query runs. A pgjdbc client that started waiting first was told too (one event loop sends the
     * notices in the order they fell due), and finds the NOTICE among its statement's warnings.
     */
    @Test
    void aClientWaitingLongerThanQueryWaitNotifyIsToldItIsQueued() throws Exception {
        proxy = start("query_wait_notify = 1\n");
        try (Connection holder = connect(); Connection jdbcWaiter = connect(); Statement waiting =
                jdbcWaiter.createStatement()) {
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT 1");
            Thread jdbc = new Thread(() -> {
                try {
                    waiting.execute("SELECT 2");
                } catch (java.sql.SQLException e) {
                    throw new AssertionError(e);
                }
            });
            jdbc.start();
            ProxyFixture.awaitWaiting(proxy, "app", db.superuser(), 1);
            Process psql = new ProcessBuilder(List.of(Clients.executable("psql", "install postgresql-client")
                    .toString(), "-X", "-A", "-t", "-c", "SELECT 3", connectionString("app", ProxyFixture.USER,
                    ProxyFixture.PASSWORD))).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(psql.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("NOTICE:  " + QUEUED, out.readLine(), "psql's first line, while it waits");
            holder.rollback();
            assertEquals("3", out.readLine());
            assertTrue(psql.waitFor(30, TimeUnit.SECONDS) && psql.exitValue() == 0);
            jdbc.join(30_000);
            SQLWarning warning = waiting.getWarnings();
            assertEquals(QUEUED, warning.getMessage());
            assertEquals("00000", warning.getSQLState());
        }
    }

    @Test
    void psycopgHearsTheQueuedNotice() {
        proxy = start("query_wait_notify = 1\n");
        ClientReport report = ClientScript.python("psycopg3_client.py", "psycopg", "python3-psycopg")
                .run(proxy, "app", PoolMode.TRANSACTION, "pooler_notices");
        assertEquals("notice=NOTICE 00000: " + QUEUED, report.facts("pooler_notices"));
    }

    @Test
    void aBadQueryWaitNotifyIsAConfigErrorNamingItsLineAndKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> start("query_wait_notify = soon\n"));
        assertEquals("line 7: query_wait_notify must be a whole number, not \"soon\"", e.getMessage());
    }

    private Connection connect() throws Exception {
        return ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD, new Properties());
    }

    private String connectionString(String database, String user, String password) {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=" + database + " user=" + user + " password="
                + password + " sslmode=disable";
    }
}
