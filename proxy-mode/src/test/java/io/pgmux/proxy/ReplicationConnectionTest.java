package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * Replication connections through the proxy (issue 23, point 2), as PgBouncer 1.23+ serves them: a startup packet
 * with {@code replication=database} or a true boolean gets a server connection of its own, opened with the same
 * parameter, in every pool mode (this proxy is in transaction mode); the replication protocol passes through, the
 * connection counts in pool_size and is never given back to the pool. Real clients: psql and pgjdbc's replication
 * API.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicationConnectionTest {
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final String NO_REPLICATION = "norepl";
    private static final String SMALL = "small";
    private final TestDatabase db;
    private PgMuxProxy proxy;

    ReplicationConnectionTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        TestUser unprivileged = db.createUser(PasswordMethod.PASSWORD);
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD))
                .adminUsers(ADMIN)
                .database(NO_REPLICATION, "postgresql://" + unprivileged.name() + ":" + unprivileged.password() + "@"
                        + db.host() + ":" + db.port() + "/" + db.name())
                .database(SMALL, ProxyFixture.serverUrl(db))
                .databaseSetting(SMALL, "default_pool_size", "1"));
    }

    @AfterAll
    void stop() {
        proxy.close();
    }

    private String conninfo(String database, String replication) {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=" + database + " user=" + ProxyFixture.USER
                + " password=" + ProxyFixture.PASSWORD + " replication=" + replication;
    }

    private static Properties replication(String mode) {
        Properties p = new Properties();
        p.setProperty("replication", mode);
        p.setProperty("assumeMinServerVersion", "10");
        p.setProperty("preferQueryMode", "simple");
        return p;
    }

    private Connection replicationConnection(String database, String mode) throws SQLException {
        return ProxyFixture.connect(proxy, database, ProxyFixture.USER, ProxyFixture.PASSWORD, replication(mode));
    }

    /** Walsenders of the server now whose application_name is {@code name}. */
    private int walsenders(String name) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender'"
                     + " AND application_name = '" + name + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private int awaitWalsenders(String name, int expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int now;
        while ((now = walsenders(name)) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return now;
    }

    @Test
    void aLogicalReplicationClientRunsWalsenderCommandsAndSqlOnItsOwnSession() throws Exception {
        Psql.Result identify = Psql.run(conninfo(db.name(), "database") + " application_name=abc",
                "IDENTIFY_SYSTEM");
        assertTrue(identify.succeeded(), identify.output());
        assertTrue(identify.output().strip().matches("\\d+\\|\\d+\\|[0-9A-F]+/[0-9A-F]+\\|" + db.name()),
                identify.output());
        String options = conninfo(db.name(), "database") + " application_name=abc options='-c enable_seqscan=off'";
        assertEquals("abc", Psql.run(options, "SHOW application_name").output().strip());
        assertEquals("off", Psql.run(options, "SHOW enable_seqscan").output().strip());
    }

    @Test
    void aPhysicalReplicationClientRunsIdentifySystemAndGetsTheWalsendersRefusalOfSql() throws Exception {
        Psql.Result identify = Psql.run(conninfo(db.name(), "yes"), "IDENTIFY_SYSTEM");
        assertTrue(identify.succeeded(), identify.output());
        assertTrue(identify.output().strip().matches("\\d+\\|\\d+\\|[0-9A-F]+/[0-9A-F]+\\|"), identify.output());
        Psql.Result sql = Psql.run(conninfo(db.name(), "on"), "SELECT 1");
        assertFalse(sql.succeeded(), sql.output());
        assertTrue(sql.output().contains("cannot execute SQL commands in WAL sender for physical replication"),
                sql.output());
    }

    @Test
    void pgjdbcStreamsLogicalChangesOfATestDecodingSlot() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE decoded(a int)");
            s.execute("SELECT pg_create_logical_replication_slot('through_proxy', 'test_decoding')");
        }
        try (Connection c = replicationConnection(db.name(), "database")) {
            PGReplicationStream stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream()
                    .logical().withSlotName("through_proxy").start();
            try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
                s.execute("INSERT INTO decoded VALUES (42)");
            }
            StringBuilder seen = new StringBuilder();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!seen.toString().contains("INSERT") && System.nanoTime() < deadline) {
                ByteBuffer change = stream.readPending();
                if (change == null) {
                    Thread.sleep(10);
                    continue;
                }
                seen.append(StandardCharsets.UTF_8.decode(change)).append('\n');
                stream.setFlushedLSN(stream.getLastReceiveLSN());
                stream.forceUpdateStatus();
            }
            assertTrue(seen.toString().contains("table public.decoded: INSERT: a[integer]:42"), seen.toString());
            stream.close();
        } finally {
            awaitSlotInactive("through_proxy");
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("SELECT pg_drop_replication_slot('through_proxy')");
            }
        }
    }

    private void awaitSlotInactive(String slot) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Connection c = db.connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot
                         + "'")) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    return;
                }
            }
            Thread.sleep(20);
        }
    }

    @Test
    void pgjdbcStreamsPhysicalWal() throws Exception {
        LogSequenceNumber from;
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()")) {
            rs.next();
            from = LogSequenceNumber.valueOf(rs.getString(1));
        }
        try (Connection c = replicationConnection(db.name(), "true")) {
            PGReplicationStream stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream()
                    .physical().withStartPosition(from).start();
            try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
                s.execute("CREATE TABLE physical_wal AS SELECT generate_series(1, 1000) AS a");
            }
            ByteBuffer wal = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (wal == null && System.nanoTime() < deadline) {
                wal = stream.readPending();
                if (wal == null) {
                    Thread.sleep(10);
                }
            }
            assertNotNull(wal, "no WAL came through the proxy");
            assertTrue(wal.remaining() > 0);
            assertTrue(stream.getLastReceiveLSN().compareTo(from) >= 0, stream.getLastReceiveLSN().asString());
            stream.close();
        }
    }

    @Test
    void theReplicationServerConnectionIsTheClientsOwnAndClosesWithIt() throws Exception {
        String name = "own_walsender";
        Properties p = replication("database");
        p.setProperty("ApplicationName", name);
        try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, p)) {
            c.createStatement().execute("IDENTIFY_SYSTEM");
            assertEquals(1, walsenders(name));
            try (Connection console = ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD)) {
                List<Map<String, String>> clients = ProxyFixture.rows(console, "SHOW CLIENTS");
                assertTrue(clients.stream().anyMatch(r -> name.equals(r.get("application_name"))
                        && "logical".equals(r.get("replication")) && "active".equals(r.get("state"))),
                        clients.toString());
                List<Map<String, String>> servers = ProxyFixture.rows(console, "SHOW SERVERS");
                assertEquals(1, servers.stream().filter(r -> "logical".equals(r.get("replication"))).count(),
                        servers.toString());
            }
        }
        assertEquals(0, awaitWalsenders(name, 0), "the walsender outlived its client");
        // an ordinary client of the same pool gets an ordinary session, not the walsender
        try (Connection c = ProxyFixture.connect(proxy, db);
             ResultSet rs = c.createStatement().executeQuery("SELECT backend_type FROM pg_stat_activity"
                     + " WHERE pid = pg_backend_pid()")) {
            rs.next();
            assertEquals("client backend", rs.getString(1));
        }
    }

    @Test
    void aReplicationClientTakesASlotOfPoolSizeAndEvictsAnIdleServerForIt() throws Exception {
        try (Connection ordinary = ProxyFixture.connect(proxy, SMALL, ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties())) {
            ordinary.createStatement().execute("SELECT 1");
            // the pool's one server is idle now (transaction mode): the replication client gets the slot
            try (Connection first = replicationConnection(SMALL, "database")) {
                first.createStatement().execute("IDENTIFY_SYSTEM");
                CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
                    try (Connection c = replicationConnection(SMALL, "database")) {
                        c.createStatement().execute("IDENTIFY_SYSTEM");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                // the pool is full with the first one's server, which is never given back: the second waits
                assertEquals(1, awaitWaitingClients(SMALL, 1));
                assertFalse(second.isDone());
                first.close();
                second.get(20, TimeUnit.SECONDS);
            }
        }
    }

    /** SHOW POOLS' cl_waiting of {@code database}, once it is {@code wanted} or 10 s passed. */
    private int awaitWaitingClients(String database, int wanted) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int waiting = -1;
        try (Connection console = ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD)) {
            while (waiting != wanted && System.nanoTime() < deadline) {
                waiting = ProxyFixture.rows(console, "SHOW POOLS").stream()
                        .filter(r -> database.equals(r.get("database")))
                        .mapToInt(r -> Integer.parseInt(r.get("cl_waiting"))).sum();
                Thread.sleep(20);
            }
        }
        return waiting;
    }

    @Test
    void aServerRefusingTheReplicationLoginGivesLoginFailedWithItsReasonAndKeepsThePoolServing() throws Exception {
        SQLException e = assertThrows(SQLException.class, () -> replicationConnection(NO_REPLICATION, "database")
                .close());
        assertEquals("08P01", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("login failed"), e.getMessage());
        assertTrue(e.getMessage().contains("permission denied to start WAL sender"), e.getMessage());
        Psql.Result physical = Psql.run(conninfo(NO_REPLICATION, "true"), "IDENTIFY_SYSTEM");
        assertFalse(physical.succeeded(), physical.output());
        assertTrue(physical.output().contains("FATAL:  login failed"), physical.output());
        try (Connection c = ProxyFixture.connect(proxy, NO_REPLICATION, ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties()); ResultSet rs = c.createStatement().executeQuery("SELECT 'still served'")) {
            rs.next();
            assertEquals("still served", rs.getString(1));
        }
        try (Connection console = ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD)) {
            assertTrue(ProxyFixture.rows(console, "SHOW SERVERS").stream()
                    .noneMatch(r -> !"none".equals(r.get("replication"))), "a refused replication server was kept");
        }
    }

    @Test
    void aValueNeitherBooleanNorDatabaseGetsPostgresqlsRefusal() throws Exception {
        try (RawClient c = new RawClient(proxy.port())) {
            c.startup(Map.of("user", ProxyFixture.USER, "database", db.name(), "replication", "maybe"));
            List<RawClient.Message> answer = c.readUntilClosed();
            RawClient.Message error = answer.get(answer.size() - 1);
            assertEquals("FATAL", error.field('S'));
            assertEquals("22023", error.field('C'));
            assertEquals("invalid value for parameter \"replication\": \"maybe\"", error.field('M'));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"false", "off", "0", "no"})
    void replicationFalseIsAnOrdinarySession(String replication) throws Exception {
        Psql.Result psql = Psql.run(conninfo(db.name(), replication), "SELECT backend_type FROM pg_stat_activity"
                + " WHERE pid = pg_backend_pid()");
        assertTrue(psql.succeeded(), psql.output());
        assertEquals("client backend", psql.output().strip());
    }
}
