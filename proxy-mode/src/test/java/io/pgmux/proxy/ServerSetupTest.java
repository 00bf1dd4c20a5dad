package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * A [databases] entry's connect_query, client_encoding, datestyle, timezone and application_name: what each new server
 * connection of the database gets, and what clients (psql, which asks for none of the first four, a raw client, which
 * asks for none, and pgjdbc, which asks for its own) see.
 */
@PostgresTest
class ServerSetupTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    ServerSetupTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void psqlSeesTheDatabasesEncodingDateStyleAndTimeZone() throws Exception {
        proxy = start("client_encoding=LATIN1 datestyle='German' timezone=Europe/Paris", "session");
        assertEquals("LATIN1\n", Psql.run(connectionString(), "\\encoding").output(),
                "the client_encoding the server reported at login");
        assertEquals("German, DMY Europe/Paris\n", Psql.run(connectionString(),
                "SELECT current_setting('DateStyle') || ' ' || current_setting('TimeZone')").output());
    }

    @Test
    void pgjdbcsOwnSettingsWinOverTheDatabasesOnEveryServer() throws Exception {
        proxy = start("datestyle=German timezone=Europe/Paris", "transaction");
        String jvmZone = java.util.TimeZone.getDefault().getID();
        try (Connection c = connect()) {
            for (int i = 0; i < 3; i++) {
                assertEquals(jvmZone + " ISO, DMY", Sql.value(c, "SELECT current_setting('TimeZone') || ' ' "
                        + "|| current_setting('DateStyle')"), "pgjdbc asks for ISO and its JVM's zone");
            }
        }
    }

    /** Not in config.md, but PgBouncer 1.25 takes it in an entry and sends it in each server's startup packet. */
    @Test
    void aClientThatNamesNoApplicationNameRunsUnderTheDatabasesOnItsServer() throws Exception {
        proxy = start("application_name=reports", "transaction");
        try (RawClient client = RawClient.login(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            client.query("SELECT current_setting('application_name') || ' ' || application_name"
                    + " FROM pg_stat_activity WHERE pid = pg_backend_pid()");
            assertEquals("reports reports", RawClient.firstColumn(client.readUntilReady()));
        }
    }

    @Test
    void aClientsOwnApplicationNameWinsOverTheDatabasesAndLeavesTheServerWithIt() throws Exception {
        proxy = start("application_name=reports pool_size=1", "transaction");
        Properties named = new Properties();
        named.setProperty("ApplicationName", "billing");
        try (Connection c = ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD, named)) {
            assertEquals("billing", Sql.value(c, "SELECT current_setting('application_name')"));
        }
        try (RawClient client = RawClient.login(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            client.query("SELECT current_setting('application_name')");
            assertEquals("reports", RawClient.firstColumn(client.readUntilReady()), "the same server, one of a pool of 1");
        }
    }

    @Test
    void connectQueryRunsOnceOnEachNewServerConnectionBeforeAnyClient() throws Exception {
        try (Connection admin = db.connect(); Statement s = admin.createStatement()) {
            s.execute("CREATE TABLE server_logins (pid int)");
            s.execute("GRANT INSERT, SELECT ON server_logins TO PUBLIC");
        }
        proxy = start("connect_query='INSERT INTO server_logins VALUES (pg_backend_pid())'", "session");
        try (Connection a = connect(); Connection b = connect()) {
            assertEquals("1", Sql.value(a, "SELECT count(*) FROM server_logins WHERE pid = pg_backend_pid()"));
            assertEquals("1", Sql.value(b, "SELECT count(*) FROM server_logins WHERE pid = pg_backend_pid()"));
        }
        try (Connection again = connect()) {
            assertEquals("2", Sql.value(again, "SELECT count(*) FROM server_logins"), "a server used again runs none");
        }
    }

    @Test
    void whatConnectQuerySetsIsTheSessionsClientsFind() throws Exception {
        proxy = start("connect_query='SELECT set_config(''pgmux.greeting'', ''hello'', false)'", "transaction");
        try (Connection c = connect()) {
            assertEquals("hello", Sql.value(c, "SELECT current_setting('pgmux.greeting')"));
        }
        Psql.Result psql = Psql.run(connectionString(), "SELECT current_setting('pgmux.greeting')");
        assertEquals("hello\n", psql.output());
    }

    /** As PgBouncer 1.25: the error is logged, and the connection serves clients all the same. */
    @Test
    void aFailingConnectQueryIsLoggedAndTheConnectionIsUsed() throws Exception {
        proxy = start("connect_query='SELECT no_such_column'", "session");
        try (Connection c = connect()) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
        }
    }

    @Test
    void aTimeZoneTheServerRejectsFailsTheLoginWithTheServersError() throws Exception {
        proxy = start("timezone=Nowhere/Nothing", "session");
        PSQLException e = org.junit.jupiter.api.Assertions.assertThrows(PSQLException.class, () -> connect().close());
        assertTrue(e.getMessage().contains("invalid value for parameter \"TimeZone\": \"Nowhere/Nothing\""),
                e.getMessage());
    }

    @Test
    void reloadOfAChangedConnectQueryGivesNewServersTheNewOne() throws Exception {
        proxy = start("connect_query='SELECT set_config(''pgmux.greeting'', ''before'', false)'", "transaction");
        try (Connection c = connect()) {
            assertEquals("before", Sql.value(c, "SELECT current_setting('pgmux.greeting')"));
            writeIni("connect_query='SELECT set_config(''pgmux.greeting'', ''after'', false)'", "transaction");
            proxy.reload();
            assertEquals("after", Sql.value(c, "SELECT current_setting('pgmux.greeting')"),
                    "the server of before closes once released; the next transaction gets a new one");
        }
    }

    private PgMuxProxy start(String entryKeys, String poolMode) throws Exception {
        return ProxyConfigLoader.load(writeIni(entryKeys, poolMode)).start();
    }

    private Path writeIni(String entryKeys, String poolMode) throws Exception {
        ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD);
        return ProxyFixture.writeIni(dir.resolve("pgbouncer.ini"), "app = host=" + db.host() + " port=" + db.port()
                + " dbname=" + db.name() + " user=" + db.superuser() + " password='" + db.superuserPassword() + "' "
                + entryKeys, proxy == null ? 0 : proxy.port(), "unix_socket_dir =\npool_mode = " + poolMode + "\n");
    }

    private Connection connect() throws SQLException {
        return ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD, new Properties());
    }

    private String connectionString() {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=app user=" + ProxyFixture.USER + " password="
                + ProxyFixture.PASSWORD + " sslmode=disable";
    }
}
