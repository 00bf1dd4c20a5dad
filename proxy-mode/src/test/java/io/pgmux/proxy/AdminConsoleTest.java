package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.Scope;
import io.pgmux.testing.Await;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLWarning;

/** The admin console: PgBouncer's SHOW views and commands on the virtual database pgbouncer (alias pgmux). */
@PostgresTest
class AdminConsoleTest {
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final String STATS = "watcher";
    private static final String STATS_PASSWORD = "watcher-secret";
    private static final String SLEEP = "SELECT pg_sleep(0.01)";
    private static final List<String> POOLS_COLUMNS = List.of("database", "user", "cl_active", "cl_waiting",
            "cl_active_cancel_req", "cl_waiting_cancel_req", "sv_active", "sv_active_cancel", "sv_being_canceled",
            "sv_idle", "sv_used", "sv_tested", "sv_login", "maxwait", "maxwait_us", "pool_mode",
            "load_balance_hosts");
    private static final List<String> STATS_COLUMNS = List.of("database", "total_server_assignment_count",
            "total_xact_count", "total_query_count", "total_received", "total_sent", "total_xact_time",
            "total_query_time", "total_wait_time", "total_client_parse_count", "total_server_parse_count",
            "total_bind_count", "total_client_login_count", "avg_server_assignment_count", "avg_xact_count",
            "avg_query_count", "avg_recv", "avg_sent", "avg_xact_time", "avg_query_time", "avg_wait_time",
            "avg_client_parse_count", "avg_server_parse_count", "avg_bind_count", "avg_client_login_count");

    private final TestDatabase db;
    private PgMuxProxy proxy;

    AdminConsoleTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD, STATS, STATS_PASSWORD))
                .adminUsers(ADMIN + ", someone-else")
                .statsUsers(STATS)
                .maxClientConn(2));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    @Test
    void psqlShowPoolsPrintsPgBouncersColumnsInOrder() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            c.createStatement().execute("SELECT 1");
        }
        List<String> lines = psql(ADMIN, ADMIN_PASSWORD, "SHOW POOLS");
        assertEquals(String.join("|", POOLS_COLUMNS), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(db.name() + "|" + db.superuser() + "|")), lines.toString());
    }

    @Test
    void psqlShowStatsPrintsPgBouncersColumnsInOrder() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            c.createStatement().execute("SELECT 1");
        }
        List<String> lines = psql(STATS, STATS_PASSWORD, "show stats;");
        assertEquals(String.join("|", STATS_COLUMNS), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(db.name() + "|")), lines.toString());
    }

    @Test
    void pgjdbcConnectsToTheConsoleThroughItsStartupSetsAndReadsShowPools() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer");
             ResultSet rs = console.createStatement().executeQuery("SHOW POOLS")) {
            ResultSetMetaData meta = rs.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                columns.add(meta.getColumnName(i));
            }
            assertEquals(POOLS_COLUMNS, columns);
            assertEquals("int4", meta.getColumnTypeName(3), "cl_active is an integer, as in PgBouncer");
        }
    }

    @Test
    void showPoolsCountsTheClientAndServerOfAnOpenTransaction() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgmux")) {
            app.setAutoCommit(false);
            app.createStatement().execute("SELECT 1");
            Map<String, String> during = poolRow(console);
            assertEquals("1", during.get("cl_active"));
            assertEquals("1", during.get("sv_active"));
            assertEquals("transaction", during.get("pool_mode"));
            app.commit();
            ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0);
            Map<String, String> after = poolRow(console);
            assertEquals("0", after.get("sv_active"));
            // how many servers the pool opened for the login and the transaction is not what this test is about
            assertTrue(Integer.parseInt(after.get("sv_idle")) >= 1, after.toString());
        }
    }

    @Test
    void showStatsCountsTheTransactionsRunThroughTheProxy() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer");
             Connection app = ProxyFixture.connect(proxy, db); Statement s = app.createStatement()) {
            // measured after the login, whose own setup statements are transactions too
            long before = statsTotal(console, "total_xact_count");
            for (int i = 0; i < 5; i++) {
                s.execute("SELECT " + i);
            }
            assertEquals(before + 5, statsTotal(console, "total_xact_count"));
            assertTrue(statsTotal(console, "total_query_count") >= 5);
            assertTrue(statsTotal(console, "total_received") > 0);
        }
    }

    /** As PgBouncer's, SHOW STATS has a row for each database with a pool, and for the console's own. */
    @Test
    void showStatsListsTheDatabasesWithAPoolAndTheConsolesOwn() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer")) {
            assertEquals(List.of("pgbouncer"), column(console, "SHOW STATS", "database"));
            try (Connection app = ProxyFixture.connect(proxy, db)) {
                app.createStatement().execute("SELECT 1");
            }
            assertEquals(List.of(db.name(), "pgbouncer").stream().sorted().toList(),
                    column(console, "SHOW STATS", "database"));
        }
    }

    /**
     * The console's row counts as PgBouncer counts its admin pool: every login, and one transaction and one query
     * per session, however many commands it runs (PgBouncer never ends an admin client's first query).
     */
    @Test
    void theConsolesStatsRowCountsEachLoginAndOneQueryPerSession() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer")) {
            Map<String, String> before = row(console, "SHOW STATS_TOTALS", "database", "pgbouncer");
            for (int i = 0; i < 3; i++) {
                console.createStatement().executeQuery("SHOW VERSION").close();
            }
            try (Connection another = console(STATS, STATS_PASSWORD, "pgbouncer")) {
                another.createStatement().executeQuery("SHOW STATE").close();
                another.createStatement().executeQuery("SHOW LISTS").close();
            }
            Map<String, String> after = row(console, "SHOW STATS_TOTALS", "database", "pgbouncer");
            assertEquals(1, delta(before, after, "client_login_count"));
            assertEquals(1, delta(before, after, "xact_count"));
            assertEquals(1, delta(before, after, "query_count"));
            assertEquals("0", after.get("bytes_received"));
            assertEquals("0", after.get("server_assignment_count"));
        }
    }

    /** SHOW POOLS has PgBouncer's admin pool: every console client in it, whoever logged in, in statement mode. */
    @Test
    void showPoolsHasTheConsolesPoolWithItsClients() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer");
             Connection another = console(ADMIN, ADMIN_PASSWORD, "pgmux")) {
            Map<String, String> pool = row(console, "SHOW POOLS", "database", "pgbouncer");
            assertEquals("pgbouncer", pool.get("user"));
            assertEquals("2", pool.get("cl_active"));
            assertEquals("statement", pool.get("pool_mode"));
        }
    }

    /**
     * As PgBouncer's, SHOW STATS counts a transaction and a query when they begin: a transaction still open counts,
     * and so does its BEGIN and query sent in one round trip, as one query (one per spell of the server's work,
     * however many ReadyForQuery it owes).
     */
    @Test
    void showStatsCountsAnOpenTransactionAndItsRoundTripAsOneQuery() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer");
             Connection app = ProxyFixture.connect(proxy, db)) {
            backendPid(app);
            long xacts = statsTotal(console, "total_xact_count");
            long queries = statsTotal(console, "total_query_count");
            app.setAutoCommit(false);
            backendPid(app);
            assertEquals(xacts + 1, statsTotal(console, "total_xact_count"), "the open transaction");
            assertEquals(queries + 1, statsTotal(console, "total_query_count"), "BEGIN and its query, one round trip");
            app.rollback();
            assertEquals(xacts + 1, statsTotal(console, "total_xact_count"), "its end counts nothing more");
        }
    }

    /** SHOW STATS_TOTALS and SHOW TOTALS count the same transactions and bytes as SHOW STATS. */
    @Test
    void showStatsTotalsAndTotalsCountWhatShowStatsCounts() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer");
             Connection app = ProxyFixture.connect(proxy, db); Statement s = app.createStatement()) {
            Map<String, String> stats = row(console, "SHOW STATS", "database", db.name());
            Map<String, String> totals = row(console, "SHOW STATS_TOTALS", "database", db.name());
            Map<String, String> overall = totals(console);
            for (int i = 0; i < 5; i++) {
                s.execute("SELECT " + i);
            }
            Map<String, String> statsAfter = row(console, "SHOW STATS", "database", db.name());
            Map<String, String> totalsAfter = row(console, "SHOW STATS_TOTALS", "database", db.name());
            Map<String, String> overallAfter = totals(console);
            assertEquals(5, delta(totals, totalsAfter, "xact_count"));
            assertEquals(5, delta(overall, overallAfter, "total_xact_count"), "one database: TOTALS is its STATS");
            assertEquals(delta(stats, statsAfter, "total_query_count"), delta(totals, totalsAfter, "query_count"));
            assertEquals(delta(stats, statsAfter, "total_received"), delta(totals, totalsAfter, "bytes_received"));
            assertEquals(delta(stats, statsAfter, "total_sent"), delta(totals, totalsAfter, "bytes_sent"));
            assertTrue(delta(totals, totalsAfter, "bytes_received") > 0, "the five queries came in");
            assertTrue(delta(totals, totalsAfter, "bytes_sent") > 0, "their results went out");
        }
    }

    /**
     * SHOW STATS_AVERAGES describes the last stats period: one client runs {@link #SLEEP} back to back in
     * autocommit, so a period inside that load has a transaction per query and per server assignment, at most
     * one per sleep, none shorter than the sleep, and exactly the bytes of its Query messages received.
     */
    @Test
    void showStatsAveragesReportsTheLastPeriodOfTraffic() throws Exception {
        proxy.close();
        Duration period = Duration.ofSeconds(1);
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, STATS, STATS_PASSWORD))
                .statsUsers(STATS)
                .statsPeriod(period));
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        long queryBytes = 1 + 4 + SLEEP.getBytes(StandardCharsets.UTF_8).length + 1;
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer");
             Connection app = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, simple)) {
            app.createStatement().execute(SLEEP);
            Map<String, String> before = row(console, "SHOW STATS_AVERAGES", "database", db.name());
            AtomicBoolean stopLoad = new AtomicBoolean();
            CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
                try (Statement s = app.createStatement()) {
                    while (!stopLoad.get()) {
                        s.execute(SLEEP);
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                // The second period to close after the load began lies wholly inside it.
                Map<String, String> partly = nextPeriod(console, before, load);
                Map<String, String> inside = nextPeriod(console, partly, load);
                long xacts = Long.parseLong(inside.get("xact_count"));
                long sleepMicros = 10_000;
                assertTrue(xacts >= 1 && xacts <= 1_000_000 / sleepMicros + 1, "xact_count " + inside);
                // A server is assigned as a transaction starts and the transaction counted as it ends, so one
                // transaction across the period's end is in one count of this period and not in the other.
                assertTrue(Math.abs(xacts - Long.parseLong(inside.get("query_count"))) <= 1, "one query per transaction "
                        + inside);
                assertTrue(Math.abs(xacts - Long.parseLong(inside.get("server_assignment_count"))) <= 1,
                        "one server per transaction " + inside);
                assertTrue(Long.parseLong(inside.get("xact_time")) >= sleepMicros, "xact_time " + inside);
                assertTrue(Long.parseLong(inside.get("query_time")) >= sleepMicros, "query_time " + inside);
                long received = Long.parseLong(inside.get("bytes_received"));
                // a query's bytes count as it ends, its transaction as it begins: one across the period's end is
                // in this period's bytes and not its count, or the other way round; and both are rates rounded on
                // their own (PgBouncer's calc_average), so xact_count may be half a transaction off its bytes
                assertTrue(Math.abs(received - queryBytes * xacts) <= queryBytes + queryBytes / 2 + 2,
                        "bytes_received " + received + " for " + xacts + " Query messages of " + queryBytes + " bytes");
                assertTrue(Long.parseLong(inside.get("bytes_sent")) > received, "each query's result is sent back");
            } finally {
                stopLoad.set(true);
                load.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits until SHOW STATS_AVERAGES shows another period than {@code shown} and returns it. */
    private Map<String, String> nextPeriod(Connection console, Map<String, String> shown, CompletableFuture<Void> load)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, String> now = shown;
        while (now.equals(shown)) {
            assertFalse(load.isDone(), "the load ended early");
            assertTrue(System.nanoTime() < deadline, "no stats period closed in 30 s");
            Thread.sleep(20);
            now = row(console, "SHOW STATS_AVERAGES", "database", db.name());
        }
        return now;
    }

    /** KILL drops a client in the middle of a transaction and closes its server; the transaction is rolled back. */
    @Test
    void killEndsAClientsOpenTransactionAndClosesItsServer() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE killed_midway (v int)");
        }
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.setAutoCommit(false);
            app.createStatement().execute("INSERT INTO killed_midway VALUES (1)");
            int server = backendPid(app);
            console.createStatement().execute("KILL " + db.name());
            assertThrows(SQLException.class, () -> app.createStatement().execute("SELECT 1"));
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "backend " + server + " still runs");
            console.createStatement().execute("RESUME " + db.name());
        }
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM killed_midway")) {
            rs.next();
            assertEquals(0, rs.getInt(1));
        }
    }

    /** RECONNECT lets a running transaction finish on its server, then closes that server. */
    @Test
    void reconnectLetsAnOpenTransactionFinishThenClosesItsServer() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.setAutoCommit(false);
            int server = backendPid(app);
            console.createStatement().execute("RECONNECT " + db.name());
            assertEquals(server, backendPid(app), "the transaction goes on on its server");
            app.commit();
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "backend " + server + " still runs");
            app.setAutoCommit(true);
            assertNotEquals(server, backendPid(app), "the next transaction runs on a new server connection");
        }
    }

    @Test
    void showServersLinksTheActiveServerToItsClientInShowClients() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.setAutoCommit(false);
            app.createStatement().execute("SELECT 1");
            Map<String, String> server = row(console, "SHOW SERVERS", "state", "active");
            Map<String, String> client = row(console, "SHOW CLIENTS", "database", db.name());
            assertEquals(client.get("ptr"), server.get("link"));
            assertEquals(server.get("ptr"), client.get("link"));
            assertEquals("S", server.get("type"));
            assertEquals(db.superuser(), server.get("user"), "the user the pooler logs in as");
            assertEquals(String.valueOf(db.port()), server.get("port"));
            assertEquals("C", client.get("type"));
            assertEquals(ProxyFixture.USER, client.get("user"));
            assertEquals("PostgreSQL JDBC Driver", client.get("application_name"));
            app.rollback();
        }
    }

    /** As PgBouncer's (localtime_r and its zone abbreviation), which the C library's date(1) shows too. */
    @Test
    void showClientsAndServersWriteTimesInTheMachinesLocalZoneAsPgBouncerDoes() throws Exception {
        Process date = new ProcessBuilder("date", "+%Z").start();
        String zone = new String(date.getInputStream().readAllBytes()).strip();
        assertEquals(0, date.waitFor());
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.setAutoCommit(false);
            app.createStatement().execute("SELECT 1");
            String client = row(console, "SHOW CLIENTS", "database", db.name()).get("connect_time");
            String server = row(console, "SHOW SERVERS", "state", "active").get("connect_time");
            assertTrue(client.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d " + Pattern.quote(zone)), client);
            assertTrue(server.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d " + Pattern.quote(zone)), server);
            app.rollback();
        }
    }

    /** As PgBouncer's: when the client last sent a message (its connect before any), in connect_time's format. */
    @Test
    void showClientsRequestTimeIsWhenTheClientLastSentAMessage() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            Map<String, String> before = row(console, "SHOW CLIENTS", "database", db.name());
            String connected = before.get("connect_time");
            String requested = before.get("request_time");
            assertNotNull(requested, "request_time");
            assertEquals(connected.replaceAll("\\d", "0"), requested.replaceAll("\\d", "0"), "connect_time's format");
            assertTrue(requested.compareTo(connected) >= 0, requested + " before the connect at " + connected);
            // the time is shown in whole seconds: the next message goes once the clock is a second past it, and
            // 200 ms more, since the proxy dates what it times on the monotonic clock from the wall clock's reading
            // at its start, which in a long-running JVM may fall some milliseconds behind the wall clock read here
            LocalDateTime next = LocalDateTime.parse(requested.substring(0, 19).replace(' ', 'T')).plusSeconds(1);
            Await.until(() -> LocalDateTime.now().isAfter(next.plusNanos(200_000_000)), Duration.ofSeconds(5),
                    "the clock to pass " + requested);
            app.createStatement().execute("SELECT 1");
            Map<String, String> after = row(console, "SHOW CLIENTS", "database", db.name());
            assertEquals(connected, after.get("connect_time"));
            assertTrue(after.get("request_time").compareTo(requested) > 0,
                    "request_time " + after.get("request_time") + " did not move on from " + requested);
        }
    }

    /** pgmux's own view: the pool's clients pinned by session state, per reason, now and since the start. */
    @Test
    void showPinsCountsPinnedClientsPerPoolAndReason() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.createStatement().execute("SELECT pg_advisory_lock(7070)");
            // the pin is counted once the pooler's check after the statement returned
            Map<String, String> pinned = Await.value(() -> {
                try {
                    return row(console, "SHOW PINS", "reason", "ADVISORY_LOCK");
                } catch (AssertionError notYet) {
                    return Map.<String, String>of();
                }
            }, row -> "1".equals(row.get("cl_pinned")), Duration.ofSeconds(10));
            assertEquals(db.name(), pinned.get("database"));
            assertEquals(db.superuser(), pinned.get("user"), "the pool's user, the database's forced one");
            assertEquals("1", pinned.get("cl_pinned"));
            assertEquals("1", pinned.get("pins_total"));
            app.createStatement().execute("SELECT pg_advisory_unlock_all()");
        }
    }

    @Test
    void showHelpSendsTheCommandListAsANotice() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            s.execute("SHOW HELP");
            SQLWarning notice = s.getWarnings();
            assertTrue(notice != null && notice.getMessage().contains("Console usage"), String.valueOf(notice));
        }
    }

    @Test
    void showHelpListsShowReplicas() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            s.execute("SHOW HELP");
            String usage = ((PSQLWarning) s.getWarnings()).getServerErrorMessage().getDetail();
            assertTrue(usage.contains("\tSHOW REPLICAS"), usage);
        }
    }

    @Test
    void showPeersAndPeerPoolsAnswerWithPgBouncersColumnsAndNoRowsAsThereAreNoPeers() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            assertEquals(List.of("peer_id", "host", "port", "pool_size"), columnsOfEmpty(s, "SHOW PEERS"));
            assertEquals(List.of("peer_id", "cl_active_cancel_req", "cl_waiting_cancel_req", "sv_active_cancel",
                    "sv_login"), columnsOfEmpty(s, "SHOW PEER_POOLS"));
        }
    }

    @Test
    void showDnsHostsListsAServerHostNameLookedUpWithItsTtlAndAddresses() throws Exception {
        proxy.close();
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .database("byname", "postgresql://" + db.superuser() + ":" + db.superuserPassword() + "@localhost:"
                        + db.port() + "/" + db.name())
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, STATS, STATS_PASSWORD))
                .statsUsers(STATS));
        try (Connection app = DriverManager.getConnection(ProxyFixture.jdbcUrl(proxy, "byname"), ProxyFixture.USER,
                ProxyFixture.PASSWORD)) {
            app.createStatement().execute("SELECT 1");
        }
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement();
             ResultSet rs = s.executeQuery("SHOW DNS_HOSTS")) {
            assertTrue(rs.next(), "no row");
            assertEquals("localhost", rs.getString("hostname"));
            assertTrue(rs.getLong("ttl") > 0, "ttl " + rs.getLong("ttl"));
            assertTrue(List.of(rs.getString("addrs").split(",")).stream()
                    .anyMatch(a -> a.equals("127.0.0.1") || a.equals("0:0:0:0:0:0:0:1")), rs.getString("addrs"));
            assertFalse(rs.next(), "a second host listed");
        }
    }

    @Test
    void showDnsZonesAnswersWithPgBouncersColumnsAndNoRows() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            assertEquals(List.of("zonename", "serial", "count"), columnsOfEmpty(s, "SHOW DNS_ZONES"));
        }
    }

    private static List<String> columnsOfEmpty(Statement s, String show) throws SQLException {
        try (ResultSet rs = s.executeQuery(show)) {
            assertFalse(rs.next(), show + " has a row");
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                columns.add(rs.getMetaData().getColumnName(i));
            }
            return columns;
        }
    }

    @Test
    void selectOfAViewIsShowOfIt() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement();
             ResultSet selected = s.executeQuery("select version;")) {
            assertTrue(selected.next());
            assertTrue(selected.getString("version").startsWith("PgBouncer 1.25.2 compatible"),
                    selected.getString("version"));
        }
    }

    @Test
    void theConsoleReportsPgBouncersParametersAtLogin() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer")) {
            Map<String, String> reported = console.unwrap(PGConnection.class).getParameterStatuses();
            assertEquals("1.25.2/bouncer", reported.get("server_version"));
            assertEquals("UTF8", reported.get("server_encoding"));
            assertEquals("UTF8", reported.get("client_encoding"));
            assertEquals("ISO", reported.get("DateStyle"));
            assertEquals("GMT", reported.get("TimeZone"));
            assertEquals("on", reported.get("standard_conforming_strings"));
            assertEquals("on", reported.get("is_superuser"));
        }
    }

    @Test
    void showOfASessionParameterAnswersPgBouncersFixedValue() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            assertEquals("GMT", single(s, "SHOW TimeZone", "timezone"));
            assertEquals("UTF-8", single(s, "SHOW client_encoding", "client_encoding"));
            assertEquals("read committed", single(s, "SHOW default_transaction_isolation",
                    "default_transaction_isolation"));
        }
    }

    @Test
    void setOfASessionParameterIsIgnoredWithPgBouncersNotice() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            s.execute("SET DateStyle TO 'German'");
            SQLWarning notice = s.getWarnings();
            assertTrue(notice != null && notice.getMessage().contains("SET ignored"), String.valueOf(notice));
            assertEquals("ISO", single(s, "SHOW datestyle", "datestyle"));
        }
    }

    private static String single(Statement s, String show, String column) throws SQLException {
        try (ResultSet rs = s.executeQuery(show)) {
            assertTrue(rs.next(), show);
            String value = rs.getString(column);
            assertFalse(rs.next(), show);
            return value;
        }
    }

    @Test
    void commandsOnTheConsolesOwnDatabaseAreRefusedWithPgBouncersErrors() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            assertEquals("ERROR: cannot pause admin db: pgbouncer", errorOf(console, "PAUSE pgbouncer"));
            assertEquals("ERROR: cannot kill admin db: pgbouncer", errorOf(console, "KILL pgbouncer"));
            assertEquals("ERROR: cannot reconnect admin db: pgbouncer", errorOf(console, "RECONNECT pgbouncer"));
            assertEquals("ERROR: cannot wait in admin db: pgbouncer", errorOf(console, "WAIT_CLOSE pgbouncer"));
            assertEquals("ERROR: cannot disable admin db: pgbouncer", errorOf(console, "DISABLE pgbouncer"));
            assertEquals("ERROR: cannot enable admin db: pgbouncer", errorOf(console, "ENABLE pgbouncer"));
            assertEquals("ERROR: database pgbouncer is not paused", errorOf(console, "RESUME pgbouncer"));
        }
    }

    @Test
    void disableAndEnableNeedADatabase() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            assertEquals("ERROR: a database is required", errorOf(console, "DISABLE"));
            assertEquals("ERROR: a database is required", errorOf(console, "ENABLE"));
        }
    }

    @Test
    void suspendIsRefusedWhileADatabaseIsPaused() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer"); Statement s = console.createStatement()) {
            s.execute("PAUSE " + db.name());
            try {
                assertEquals("ERROR: cannot suspend with paused databases", errorOf(console, "SUSPEND"));
            } finally {
                s.execute("RESUME " + db.name());
            }
        }
    }

    private static String errorOf(Connection console, String command) {
        SQLException e = assertThrows(SQLException.class, () -> console.createStatement().execute(command), command);
        assertEquals("08P01", e.getSQLState(), command);
        return e.getMessage();
    }

    @Test
    void aQueryOfSeveralStatementsIsAnInvalidCommand() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            SQLException e = assertThrows(SQLException.class,
                    () -> console.createStatement().execute("SET lock_timeout TO '100ms';show version"));
            assertTrue(e.getMessage().contains("invalid command 'SET lock_timeout TO '100ms';show version'"),
                    e.getMessage());
        }
    }

    @Test
    void aStatsUserMayShowButNotPause() throws Exception {
        try (Connection console = console(STATS, STATS_PASSWORD, "pgbouncer")) {
            console.createStatement().executeQuery("SHOW DATABASES").close();
            SQLException e = assertThrows(SQLException.class, () -> console.createStatement().execute("PAUSE"));
            assertEquals("08P01", e.getSQLState());
            assertTrue(e.getMessage().contains("admin access needed"), e.getMessage());
            console.createStatement().executeQuery("SHOW VERSION").close();
        }
    }

    @Test
    void aUserInNeitherListIsNotAllowedIn() {
        SQLException e = assertThrows(SQLException.class,
                () -> console(ProxyFixture.USER, ProxyFixture.PASSWORD, "pgbouncer").close());
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("not allowed"), e.getMessage());
    }

    @Test
    void anUnknownCommandGetsPgBouncersErrorAndTheSessionGoesOn() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            SQLException e = assertThrows(SQLException.class, () -> console.createStatement().execute("SELECT 1"));
            assertEquals("08P01", e.getSQLState());
            assertTrue(e.getMessage().contains("invalid command 'SELECT 1', use SHOW HELP;"), e.getMessage());
            console.createStatement().executeQuery("show lists").close();
        }
    }

    @Test
    void theExtendedProtocolGetsAClearErrorNotAHang() {
        Properties extended = new Properties();
        extended.setProperty("preferQueryMode", "extended");
        SQLException e = assertThrows(SQLException.class, () -> {
            try (Connection console = ProxyFixture.connect(proxy, "pgbouncer", ADMIN, ADMIN_PASSWORD, extended)) {
                console.prepareStatement("SHOW POOLS").executeQuery().close();
            }
        });
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("extended query protocol not supported by admin console"), e.getMessage());
    }

    @Test
    void theConsoleIsExemptFromMaxClientConn() throws Exception {
        try (Connection a = ProxyFixture.connect(proxy, db); Connection b = ProxyFixture.connect(proxy, db)) {
            assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db).close(), "max_client_conn is 2");
            try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
                console.createStatement().executeQuery("SHOW CLIENTS").close();
            }
            assertFalse(a.isClosed() || b.isClosed());
        }
    }

    @Test
    void aQueryWaitsDuringPauseAndCompletesAfterResume() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.createStatement().execute("SELECT 1");
            console.createStatement().execute("PAUSE " + db.name());
            assertEquals("1", showDatabasesRow(console).get("paused"));
            CompletableFuture<Integer> query = CompletableFuture.supplyAsync(() -> {
                try (ResultSet rs = app.createStatement().executeQuery("SELECT 42")) {
                    rs.next();
                    return rs.getInt(1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.equal("1", () -> poolRow(console).get("cl_waiting"), Duration.ofSeconds(10), "the query waits");
            assertFalse(query.isDone(), "held while paused");
            console.createStatement().execute("RESUME " + db.name());
            assertEquals(42, query.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void pauseClosesTheServerConnectionsOnceReleased() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            int server = backendPid(app);
            console.createStatement().execute("PAUSE");
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "backend " + server + " still runs");
            assertEquals(0, ProxyFixture.pool(proxy, db).getTotalConnections());
            console.createStatement().execute("RESUME");
        }
    }

    @Test
    void reconnectClosesIdleServerConnections() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            int server = backendPid(app);
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
            console.createStatement().execute("RECONNECT " + db.name());
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "backend " + server + " still runs");
            assertNotEquals(server, backendPid(app), "the next query runs on a new server connection");
        }
    }

    /** The pid of the backend the client's query ran on. */

    @Test
    void disableRefusesNewClientsUntilEnable() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            console.createStatement().execute("DISABLE " + db.name());
            SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db).close());
            assertTrue(e.getMessage().contains("database \"" + db.name() + "\" is disabled"), e.getMessage());
            assertEquals("1", showDatabasesRow(console).get("disabled"));
            console.createStatement().execute("ENABLE " + db.name());
            ProxyFixture.connect(proxy, db).close();
        }
    }

    @Test
    void killDisconnectsTheDatabasesClients() throws Exception {
        try (Connection app = ProxyFixture.connect(proxy, db); Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            app.createStatement().execute("SELECT 1");
            console.createStatement().execute("KILL " + db.name());
            assertThrows(SQLException.class, () -> app.createStatement().execute("SELECT 1"));
            console.createStatement().execute("RESUME " + db.name());
        }
    }

    @Test
    void anUnknownDatabaseIsNamedInTheError() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            SQLException e = assertThrows(SQLException.class, () -> console.createStatement().execute("PAUSE nope"));
            assertTrue(e.getMessage().contains("no such database: nope"), e.getMessage());
        }
    }

    @Test
    void reloadOfAProxyBuiltInCodeSaysThereIsNoFileToRead() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            SQLException e = assertThrows(SQLException.class, () -> console.createStatement().execute("reload;"));
            assertEquals("08P01", e.getSQLState());
            assertTrue(e.getMessage().contains("not started from a configuration file"), e.getMessage());
        }
    }

    @Test
    void reloadAppliesTheIniFilesNewPoolSizeAndStatsUsers(@TempDir Path dir) throws Exception {
        Path ini = writeIni(dir, "default_pool_size = 4\n");
        try (PgMuxProxy fromFile = ProxyConfigLoader.load(ini).start()) {
            PgMuxProxy builtInCode = proxy;
            proxy = fromFile;
            try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
                assertEquals("4", configValue(console, "default_pool_size"));
                assertThrows(SQLException.class, () -> console(STATS, STATS_PASSWORD, "pgbouncer").close());
                writeIni(dir, "default_pool_size = 7\nstats_users = " + STATS + "\n");
                console.createStatement().execute("RELOAD");
                assertEquals("7", configValue(console, "default_pool_size"));
                assertEquals(7, fromFile.registry().config().defaultPoolSize());
                console(STATS, STATS_PASSWORD, "pgbouncer").close();
            } finally {
                proxy = builtInCode;
            }
        }
    }

    @Test
    void reloadOfABrokenFileFailsWithPgBouncersErrorAndKeepsTheSettings(@TempDir Path dir) throws Exception {
        Path ini = writeIni(dir, "default_pool_size = 4\n");
        try (PgMuxProxy fromFile = ProxyConfigLoader.load(ini).start()) {
            PgMuxProxy builtInCode = proxy;
            proxy = fromFile;
            try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
                writeIni(dir, "default_pool_size = many\n");
                PSQLException e = assertThrows(PSQLException.class, () -> console.createStatement().execute("RELOAD"));
                assertEquals("F0000", e.getSQLState());
                assertTrue(e.getMessage().contains("RELOAD failed, see logs for additional details"), e.getMessage());
                String detail = e.getServerErrorMessage().getDetail();
                assertTrue(detail.startsWith(ini.toAbsolutePath().normalize() + " line 9: default_pool_size"), detail);
                assertEquals("4", configValue(console, "default_pool_size"));
            } finally {
                proxy = builtInCode;
            }
        }
    }

    /**
     * A [users] pool size (of the user the database logs in as, whose pool its clients share) and max_client_conn
     * changed in the file take effect on RELOAD, seen in behaviour.
     */
    @Test
    void reloadAppliesAUsersPoolSizeAndMaxClientConnToTheRunningProxy(@TempDir Path dir) throws Exception {
        String user = ProxyFixture.USER;
        String forced = db.superuser();
        Path ini = writeIni(dir, "pool_mode = transaction\nquery_wait_timeout = 30\n[users]\n" + forced
                + " = pool_size=1\n");
        Files.writeString(dir.resolve("userlist.txt"), "\"" + user + "\" \"" + ProxyFixture.PASSWORD + "\"\n",
                StandardOpenOption.APPEND);
        try (PgMuxProxy fromFile = ProxyConfigLoader.load(ini).start()) {
            PgMuxProxy builtInCode = proxy;
            proxy = fromFile;
            try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer");
                    Connection holder = console(user, ProxyFixture.PASSWORD, db.name());
                    Connection other = console(user, ProxyFixture.PASSWORD, db.name())) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1");
                assertEquals(1, ProxyFixture.existingPool(fromFile, db.name(), forced).config().defaultPoolSize());
                writeIni(dir, "pool_mode = transaction\nquery_wait_timeout = 30\nmax_client_conn = 2\n[users]\n"
                        + forced + " = pool_size=2\n");
                Files.writeString(dir.resolve("userlist.txt"), "\"" + user + "\" \"" + ProxyFixture.PASSWORD
                        + "\"\n", StandardOpenOption.APPEND);
                console.createStatement().execute("RELOAD");
                // the one server is held by the open transaction: the other client runs on the second
                try (ResultSet rs = other.createStatement().executeQuery("SELECT 2")) {
                    assertTrue(rs.next());
                }
                SQLException refused = assertThrows(SQLException.class,
                        () -> console(user, ProxyFixture.PASSWORD, db.name()).close(), "two clients are the limit");
                assertTrue(refused.getMessage().contains("no more connections allowed (max_client_conn)"),
                        refused.getMessage());
                holder.rollback();
            } finally {
                proxy = builtInCode;
            }
        }
    }

    private Path writeIni(Path dir, String extraSettings) throws Exception {
        Files.writeString(dir.resolve("userlist.txt"), "\"" + ADMIN + "\" \"" + ADMIN_PASSWORD + "\"\n\""
                + STATS + "\" \"" + STATS_PASSWORD + "\"\n");
        Path ini = dir.resolve("pgmux.ini");
        Files.writeString(ini, "[databases]\n"
                + db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\nauth_type = md5\n"
                + "auth_file = userlist.txt\nadmin_users = " + ADMIN + "\n" + extraSettings);
        return ini;
    }

    private static String configValue(Connection console, String key) throws SQLException {
        return row(console, "SHOW CONFIG", "key", key).get("value");
    }

    @Test
    void showConfigListsEverySettingPgmuxTakesWithItsDefault() throws Exception {
        Map<String, String> defaults = new HashMap<>();
        Map<String, String> values = new HashMap<>();
        Map<String, String> changeable = new HashMap<>();
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer");
             ResultSet rs = console.createStatement().executeQuery("SHOW CONFIG")) {
            while (rs.next()) {
                defaults.put(rs.getString("key"), rs.getString("default"));
                values.put(rs.getString("key"), rs.getString("value"));
                changeable.put(rs.getString("key"), rs.getString("changeable"));
            }
        }
        for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
            assertEquals(s.defaultText(), defaults.get(s.configName()), s.configName());
            assertEquals(s.change() == ProxySetting.Change.RELOAD ? "yes" : "no", changeable.get(s.configName()),
                    s.configName());
        }
        assertEquals("yes", changeable.get("default_pool_size"));
        assertEquals("no", changeable.get("listen_port"));
        assertEquals(ProxySetting.all(Scope.GLOBAL).size(), defaults.size());
        assertEquals("6432", defaults.get("listen_port"));
        assertEquals("session", defaults.get("pool_mode"));
        assertEquals("transaction", values.get("pool_mode"));
        assertEquals(ADMIN + ",someone-else", values.get("admin_users"));
    }

    @Test
    void shutdownClosesTheProxy() throws Exception {
        try (Connection console = console(ADMIN, ADMIN_PASSWORD, "pgbouncer")) {
            // never answered, as in PgBouncer: the close ends the session
            assertThrows(SQLException.class, () -> console.createStatement().execute("SHUTDOWN"));
        }
        proxy.closeFuture().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db).close());
    }

    // ---------------------------------------------------------------- helpers

    private Connection console(String user, String password, String database) throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, database, user, password, simple);
    }

    private Map<String, String> poolRow(Connection console) throws SQLException {
        return row(console, "SHOW POOLS", "database", db.name());
    }

    private Map<String, String> showDatabasesRow(Connection console) throws SQLException {
        return row(console, "SHOW DATABASES", "name", db.name());
    }

    /** SHOW TOTALS as name to value. */
    private static Map<String, String> totals(Connection console) throws SQLException {
        Map<String, String> values = new HashMap<>();
        try (ResultSet rs = console.createStatement().executeQuery("SHOW TOTALS")) {
            while (rs.next()) {
                values.put(rs.getString("name"), rs.getString("value"));
            }
        }
        return values;
    }

    /** One column of every row, in order. */
    private static List<String> column(Connection console, String command, String column) throws SQLException {
        List<String> values = new ArrayList<>();
        try (ResultSet rs = console.createStatement().executeQuery(command)) {
            while (rs.next()) {
                values.add(rs.getString(column));
            }
        }
        return values;
    }

    private static long delta(Map<String, String> before, Map<String, String> after, String column) {
        assertTrue(after.containsKey(column), "no column " + column + " in " + after.keySet());
        return Long.parseLong(after.get(column)) - Long.parseLong(before.get(column));
    }

    private long statsTotal(Connection console, String column) throws SQLException {
        return Long.parseLong(row(console, "SHOW STATS", "database", db.name()).get(column));
    }

    private static Map<String, String> row(Connection console, String command, String keyColumn, String key)
            throws SQLException {
        try (ResultSet rs = console.createStatement().executeQuery(command)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                if (key.equals(rs.getString(keyColumn))) {
                    Map<String, String> row = new HashMap<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        row.put(meta.getColumnName(i), rs.getString(i));
                    }
                    return row;
                }
            }
        }
        throw new AssertionError("no row " + key + " in " + command);
    }

    private List<String> psql(String user, String password, String command) throws Exception {
        String psql = Clients.executable("psql", "install the PostgreSQL client tools to run this test").toString();
        ProcessBuilder builder = new ProcessBuilder(psql, "-X", "-A", "-P", "footer=off", "-h", "127.0.0.1",
                "-p", String.valueOf(proxy.port()), "-U", user, "-c", command, "pgbouncer");
        builder.environment().put("PGPASSWORD", password);
        builder.environment().put("PGSSLMODE", "disable");
        Process process = builder.start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("psql timed out");
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), out + err);
        return out.lines().toList();
    }
}
