package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server over a Unix socket, as PgBouncer 1.25 reaches it: a [databases] entry (or the {@code *} entry) without
 * host goes to {@code <unix_socket_dir>/.s.PGSQL.<port>}, and {@code host=@name} to that socket in Linux's abstract
 * namespace. psql through the proxy asks the server whether its connection came over TCP ({@code inet_client_addr()}
 * is null on a Unix socket).
 */
@PostgresTest
class UnixSocketHostTest {
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final String OVER_A_UNIX_SOCKET = "SELECT inet_client_addr() IS NULL";

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    UnixSocketHostTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void anEntryWithoutHostConnectsToTheUnixSocketInUnixSocketDir() throws Exception {
        proxy = start("app = " + withoutHost(), db.server().unixSocketDirectory().toString());
        assertEquals("t", psql("app", OVER_A_UNIX_SOCKET));
        assertNull(databaseRow("app").get("host"), "SHOW DATABASES shows no host, as PgBouncer");
    }

    @Test
    void aStarEntryWithoutHostConnectsToTheUnixSocketInUnixSocketDir() throws Exception {
        proxy = start("* = " + withoutHost(), db.server().unixSocketDirectory().toString());
        assertEquals("t", psql(db.name(), OVER_A_UNIX_SOCKET));
    }

    @Test
    void anEntryWithoutHostKeepsItsClientsWaitingWhenUnixSocketDirIsEmpty() throws Exception {
        // PgBouncer 1.25 starts too, logs "unix socket dir not configured" at each try and keeps the client waiting
        // until its login times out; pgmux keeps it waiting as for a server that is down, up to query_wait_timeout
        proxy = start("app = " + withoutHost(), "", "query_wait_timeout = 1\n");
        Psql.Result result = Psql.run(connectionString("app"), "SELECT 1");
        assertFalse(result.succeeded(), result.output());
        assertTrue(result.output().contains("query_wait_timeout"), result.output());
    }

    @Test
    void anEntryWithAnAbstractHostConnectsToThatSocketInTheAbstractNamespace() throws Exception {
        String name = db.server().abstractSocketName();
        proxy = start("app = host=" + name + " " + withoutHost(), "");
        assertEquals("t", psql("app", OVER_A_UNIX_SOCKET));
        assertEquals(name, databaseRow("app").get("host"), "as PgBouncer shows it");
    }

    private String withoutHost() {
        return "port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password='"
                + db.superuserPassword() + "'";
    }

    private PgMuxProxy start(String entry, String unixSocketDir) throws Exception {
        return start(entry, unixSocketDir, "");
    }

    private PgMuxProxy start(String entry, String unixSocketDir, String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD);
        return ProxyConfigLoader.load(ProxyFixture.writeIni(dir.resolve("pgbouncer.ini"), entry, 0, "unix_socket_dir = "
                + unixSocketDir + "\nadmin_users = " + ADMIN + "\npool_mode = transaction\n" + settings)).start();
    }

    private String psql(String database, String sql) throws Exception {
        Psql.Result result = Psql.run(connectionString(database), sql);
        assertTrue(result.succeeded(), result.output());
        return result.output().strip();
    }

    private String connectionString(String database) {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=" + database + " user=" + ProxyFixture.USER
                + " password=" + ProxyFixture.PASSWORD + " sslmode=disable";
    }

    private Map<String, String> databaseRow(String name) throws Exception {
        Map<String, String> row = ProxyFixture.row(proxy, ADMIN, ADMIN_PASSWORD, "SHOW DATABASES", name);
        assertTrue(row.containsKey("host"), row.toString());
        return row;
    }
}
