package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * PgBouncer's conffile (the file RELOAD reads, the one the proxy was started from unless changed), and the keys
 * of PgBouncer's process pgmux takes without effect (job_name, service_name), seen through the admin console.
 */
@PostgresTest
class ConffileTest {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    ConffileTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void showConfigNamesTheFileTheProxyWasStartedFrom() throws Exception {
        start("");
        try (Connection console = console()) {
            assertEquals(dir.resolve("pgbouncer.ini").toString(), config(console, "conffile"));
        }
    }

    @Test
    void reloadReadsTheFileSetConffileNames() throws Exception {
        start("");
        writeIni("other.ini", "added", "");
        try (Connection console = console()) {
            assertThrows(PSQLException.class, () -> connect("added").close());
            console.createStatement().execute("SET conffile = 'other.ini'");
            assertEquals(dir.resolve("other.ini").toString(), config(console, "conffile"));
            console.createStatement().execute("RELOAD");
        }
        try (Connection c = connect("added")) {
            assertEquals("1", selectOne(c));
        }
    }

    @Test
    void aConffileInTheFileNamesTheFileTheNextReloadReads() throws Exception {
        start("conffile = other.ini\n");
        writeIni("other.ini", "added", "");
        try (Connection console = console()) {
            assertEquals(dir.resolve("other.ini").toString(), config(console, "conffile"));
            console.createStatement().execute("RELOAD");
        }
        try (Connection c = connect("added")) {
            assertEquals("1", selectOne(c));
        }
    }

    @Test
    void jobNameAndServiceNameAreTakenWithoutEffect() throws Exception {
        start("job_name = pooler\nservice_name = pooler-service\n");
        try (Connection console = console(); Connection c = connect(db.name())) {
            assertEquals("pooler", config(console, "job_name"));
            assertEquals("pooler-service", config(console, "service_name"));
            assertEquals("1", selectOne(c));
        }
    }

    // ---------------------------------------------------------------- helpers

    private void start(String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, USER, PASSWORD, ADMIN, ADMIN_PASSWORD);
        writeIni("pgbouncer.ini", db.name(), settings);
        proxy = ProxyConfigLoader.load(dir.resolve("pgbouncer.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
    }

    private void writeIni(String file, String database, String settings) throws Exception {
        ProxyFixture.writeIni(dir.resolve(file), database + " = host=" + db.host() + " port=" + db.port() + " dbname="
                + db.name() + " user=" + db.superuser() + " password=" + db.superuserPassword(), 0,
                "unix_socket_dir =\nadmin_users = " + ADMIN + "\n" + settings);
    }

    private Connection connect(String database) throws SQLException {
        return ProxyFixture.connect(proxy, database, USER, PASSWORD, new Properties());
    }

    private Connection console() throws SQLException {
        return ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD);
    }

    private static String selectOne(Connection c) throws SQLException {
        return Sql.value(c, "SELECT 1");
    }

    private static String config(Connection console, String key) throws SQLException {
        return ProxyFixture.rows(console, "SHOW CONFIG").stream().filter(r -> key.equals(r.get("key")))
                .map(r -> r.get("value")).findFirst().orElseThrow(() -> new AssertionError("no setting " + key));
    }
}
