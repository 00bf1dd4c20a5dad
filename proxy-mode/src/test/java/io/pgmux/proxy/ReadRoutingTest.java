package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * read_routing = replicas in transaction mode, with a real primary and streaming standby: transactions declared
 * read-only run on the standby, everything else on the primary, and a client's reads see its own last commit.
 */
class ReadRoutingTest {
    private static final AtomicInteger VALUES = new AtomicInteger();
    private static StandbyPair pair;
    private static PgMuxProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        pair = SharedStandbyPair.withEmptyLedger();
        proxy = routingProxy(pair, "");
        awaitStandbyRead(proxy);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @AfterEach
    void resumeReplay() throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_resume()");
        }
        pair.awaitStandbyCaughtUp();
    }

    /** A proxy whose entry {@code app} lists the pair's primary and standby with read routing on. */
    static PgMuxProxy routingProxy(StandbyPair pair, String entryKeys) throws Exception {
        return routingProxy(pair, entryKeys, b -> b);
    }

    /** The same, with more of the builder's settings (MXBeans, a meter registry). */
    static PgMuxProxy routingProxy(StandbyPair pair, String entryKeys, UnaryOperator<ProxyBuilder> more)
            throws Exception {
        String ini = "[databases]\napp = host=" + pair.host() + "," + pair.host() + " port=" + pair.primaryPort() + ","
                + pair.standbyPort() + " dbname=postgres user=" + pair.superuser()
                + " read_routing=replicas replica_check_period=0.1 pool_size=7" + entryKeys + "\n"
                + "[pgbouncer]\npool_mode = transaction\nadmin_users = app\nserver_connect_timeout = 5\nquery_wait_timeout = 10\n";
        return more.apply(ProxyConfigLoader.configure(IniFile.parse(ini), Path.of(".")))
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(1)
                .start();
    }

    static Connection connect(PgMuxProxy proxy, Properties extra) throws SQLException {
        return ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD, extra);
    }

    /** Waits until the proxy's checks found the standby: a read-only transaction then runs there. */
    static void awaitStandbyRead(PgMuxProxy proxy) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = connect(proxy, new Properties())) {
            while (!"standby".equals(readOnly(c, "SELECT 1"))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no read-only transaction ran on the standby within 30 s");
                }
                Thread.sleep(50);
            }
        }
    }

    /** Runs {@code sql} in a read-only transaction (pgjdbc's BEGIN READ ONLY); where it ran. */
    static String readOnly(Connection c, String sql) throws SQLException {
        c.setAutoCommit(false);
        c.setReadOnly(true);
        try (Statement st = c.createStatement()) {
            st.execute(sql);
            return where(st);
        } finally {
            c.commit();
            c.setReadOnly(false);
            c.setAutoCommit(true);
        }
    }

    static String where(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1) ? "standby" : "primary";
        }
    }

    private static String psqlUrl() {
        return "postgresql://" + ProxyFixture.USER + ":" + ProxyFixture.PASSWORD + "@127.0.0.1:" + proxy.port()
                + "/app";
    }

    private static void pauseReplay() throws SQLException {
        pair.awaitStandbyCaughtUp();
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_pause()");
        }
    }

    @Test
    void aPgjdbcReadOnlyTransactionRunsOnTheStandby() throws SQLException {
        try (Connection c = connect(proxy, new Properties())) {
            assertEquals("standby", readOnly(c, "SELECT count(*) FROM ledger"));
        }
    }

    @Test
    void aPsqlBeginReadOnlyWithAnIsolationLevelRunsOnTheStandby() throws Exception {
        Psql.Result r = Psql.run(psqlUrl(),
                "begin   isolation level repeatable read,  READ ONLY; SELECT pg_is_in_recovery(); COMMIT");
        assertEquals(List.of("BEGIN", "t", "COMMIT"), r.output().strip().lines().toList(), r.output());
    }

    @Test
    void aPsycopgBeginReadOnlyRunsOnTheStandby() throws Exception {
        String script = String.join("\n",
                "import psycopg2, sys",
                "c = psycopg2.connect(sys.argv[1])",
                "c.autocommit = True",
                "cur = c.cursor()",
                "cur.execute('START TRANSACTION READ ONLY')",
                "cur.execute('SELECT pg_is_in_recovery()')",
                "print(cur.fetchone()[0])",
                "cur.execute('COMMIT')");
        // Debian's interpreter, where python3-psycopg2 is installed (as ClientScript runs the client scripts)
        String python = System.getProperty("pgmux.test.python", "/usr/bin/python3");
        Process p = new ProcessBuilder(List.of(python, "-c", script, psqlUrl())).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals("True", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
    }

    @Test
    void aTransactionNotDeclaredReadOnlyRunsOnThePrimary() throws SQLException {
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals("primary", where(st));
            c.commit();
        }
    }

    @Test
    void aPgjdbcTransactionWhoseFirstStatementIsSetTransactionReadOnlyRunsOnTheStandby() throws SQLException {
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("set transaction isolation level repeatable read, read only");
            assertEquals("standby", where(st));
            c.commit();
            assertEquals("primary", where(st));
            c.commit();
        }
    }

    @Test
    void aBeginQueryWithSetTransactionReadOnlyBehindItInOneWriteRunsOnTheStandbyFromAnIdleLink() throws Exception {
        // pgjdbc's own bytes for it: BEGIN as a Query, the statement as a Parse batch, in one write; as the client's
        // first request they meet an idle link (no pooler query after a transaction before), so the Query is read
        // first, alone
        try (RawClient c = RawClient.login(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            c.sendRaw(RawClient.concat(RawClient.queryFrame("BEGIN"),
                    RawClient.parseFrame("", "SET TRANSACTION READ ONLY"), RawClient.bindFrame(""),
                    RawClient.executeFrame(), RawClient.parseFrame("", "SELECT pg_is_in_recovery()"),
                    RawClient.bindFrame(""), RawClient.executeFrame(), RawClient.syncFrame()));
            c.readUntilReady();
            assertEquals("t", RawClient.firstColumn(c.readUntilReady()));
            c.query("COMMIT");
            c.readUntilReady();
        }
    }

    @Test
    void aPgjdbcTransactionWhoseFirstStatementIsSetTransactionReadWriteRunsOnThePrimary() throws SQLException {
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SET TRANSACTION READ WRITE");
            assertEquals("primary", where(st));
            c.commit();
        }
    }

    @Test
    void setTransactionReadOnlyAfterAnotherStatementCannotMoveItsTransaction() throws SQLException {
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            assertEquals("primary", where(st));
            st.execute("SET TRANSACTION READ ONLY");
            assertEquals("primary", where(st));
            c.commit();
        }
    }

    @Test
    void aPsqlBeginThenSetTransactionReadOnlyInOneQueryRunsOnTheStandby() throws Exception {
        Psql.Result r = Psql.run(psqlUrl(), "BEGIN;  Set Transaction Read Only; SELECT pg_is_in_recovery(); COMMIT");
        assertEquals(List.of("BEGIN", "SET", "t", "COMMIT"), r.output().strip().lines().toList(), r.output());
    }

    @Test
    void aPsycopgBeginThenSetTransactionReadOnlyInOneQueryRunsOnTheStandby() throws Exception {
        String script = String.join("\n",
                "import psycopg2, sys",
                "c = psycopg2.connect(sys.argv[1])",
                "c.autocommit = True",
                "cur = c.cursor()",
                "cur.execute('BEGIN; SET TRANSACTION READ ONLY; SELECT pg_is_in_recovery()')",
                "print(cur.fetchone()[0])",
                "cur.execute('COMMIT')");
        String python = System.getProperty("pgmux.test.python", "/usr/bin/python3");
        Process p = new ProcessBuilder(List.of(python, "-c", script, psqlUrl())).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals("True", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
    }

    @Test
    void aWriteRunsOnThePrimary() throws SQLException {
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (" + VALUES.incrementAndGet() + ")"));
            assertEquals("primary", where(st));
        }
    }

    @Test
    void aSessionWithDefaultTransactionReadOnlyRunsOnTheStandby() throws SQLException {
        Properties p = new Properties();
        p.setProperty("options", "-c default_transaction_read_only=on");
        try (Connection c = connect(proxy, p); Statement st = c.createStatement()) {
            assertEquals("standby", where(st));
        }
    }

    @Test
    void aSessionThatSetsDefaultTransactionReadOnlyRunsItsNextTransactionsOnTheStandby() throws SQLException {
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            st.execute("SET default_transaction_read_only = on");
            assertEquals("standby", where(st));
            st.execute("SET default_transaction_read_only = off");
            assertEquals("primary", where(st));
        }
    }

    @Test
    void aReadWaitsForTheStandbyToReplayTheClientsWriteWithinReplicaWaitTimeout() throws Exception {
        assertReadAfterWriteRunsOnTheStandby(" replica_wait_timeout=30", 500);
    }

    @Test
    void aReadWaitingForReplayRunsOnTheStandbyOnceItReplaysLongBeforeTheNextPeriodicCheck() throws Exception {
        // no periodic check during the test: only the checks a waiting read asks for can find the replay
        assertReadAfterWriteRunsOnTheStandby(" replica_wait_timeout=8 replica_check_period=60", 300);
    }

    @Test
    void aReadWaitingForReplayEndsWithQueryWaitTimeoutWhenThatIsShorterThanReplicaWaitTimeout() throws Exception {
        PgMuxProxy waiting = routingProxy(pair, " replica_wait_timeout=30 query_wait_timeout=1");
        try (Connection c = connect(waiting, new Properties()); Statement st = c.createStatement()) {
            awaitStandbyRead(waiting);
            pauseReplay();
            st.executeUpdate("INSERT INTO ledger VALUES (" + VALUES.incrementAndGet() + ")");
            c.setAutoCommit(false);
            c.setReadOnly(true);
            SQLException e = assertThrows(SQLException.class, () -> st.executeQuery("SELECT count(*) FROM ledger"));
            assertEquals("08P01", e.getSQLState(), e.toString());
            assertTrue(e.getMessage().contains("query_wait_timeout"), e.getMessage());
            assertTrue(e.getMessage().contains("replay"), "the error says what the read waited for: " + e.getMessage());
        } finally {
            waiting.close();
        }
    }

    /**
     * A client writes while the standby's replay is paused, the replay resumes {@code resumeAfterMillis} later, and
     * the client's read, sent at once, sees its write and runs on the standby.
     */
    private void assertReadAfterWriteRunsOnTheStandby(String entryKeys, long resumeAfterMillis)
            throws Exception {
        PgMuxProxy waiting = routingProxy(pair, entryKeys);
        try (Connection c = connect(waiting, new Properties()); Statement st = c.createStatement()) {
            awaitStandbyRead(waiting);
            int n = VALUES.incrementAndGet();
            pauseReplay();
            st.executeUpdate("INSERT INTO ledger VALUES (" + n + ")");
            Thread resume = new Thread(() -> {
                try {
                    Thread.sleep(resumeAfterMillis);
                    resumeReplay();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            resume.start();

            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger WHERE n = " + n)) {
                rs.next();
                assertEquals(1, rs.getInt(1));
            }
            assertEquals("standby", where(st));
            c.commit();
            resume.join();
        } finally {
            waiting.close();
        }
    }

    @Test
    void aWriteInAReadOnlyTransactionGetsTheServersReadOnlyError() throws SQLException {
        try (Connection c = connect(proxy, new Properties())) {
            SQLException e = assertThrows(SQLException.class,
                    () -> readOnly(c, "INSERT INTO ledger VALUES (" + VALUES.incrementAndGet() + ")"));
            assertEquals("25006", e.getSQLState(), e.getMessage());
        }
    }

    @Test
    void aClientsReadSeesItsOwnWriteWhileTheStandbyHasNotReplayedIt() throws Exception {
        int n = VALUES.incrementAndGet();
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            pauseReplay();
            st.executeUpdate("INSERT INTO ledger VALUES (" + n + ")");

            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger WHERE n = " + n)) {
                rs.next();
                assertEquals(1, rs.getInt(1));
            }
            c.commit();
        }
    }

    @Test
    void aClientThatDidNotWriteStillReadsFromAStandbyThatPausedReplay() throws Exception {
        try (Connection writer = connect(proxy, new Properties()); Statement st = writer.createStatement();
             Connection reader = connect(proxy, new Properties())) {
            pauseReplay();
            st.executeUpdate("INSERT INTO ledger VALUES (" + VALUES.incrementAndGet() + ")");

            assertEquals("standby", readOnly(reader, "SELECT 1"));
        }
    }

    private static Map<String, String> standbyRow() throws SQLException {
        try (Connection console = ProxyFixture.console(proxy, ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            return ProxyFixture.rows(console, "SHOW REPLICAS").stream()
                    .filter(r -> r.get("host").endsWith(":" + pair.standbyPort())).findFirst().orElseThrow();
        }
    }

    @Test
    void showReplicasCountsAReadRoutedToTheStandby() throws SQLException {
        long before = Long.parseLong(standbyRow().get("reads"));
        try (Connection c = connect(proxy, new Properties())) {
            assertEquals("standby", readOnly(c, "SELECT 1"));
        }
        assertEquals(before + 1, Long.parseLong(standbyRow().get("reads")));
    }

    @Test
    void showReplicasCountsAReadThatWaitedAndRanOnThePrimaryForFreshness() throws Exception {
        Map<String, String> before = standbyRow();
        try (Connection c = connect(proxy, new Properties()); Statement st = c.createStatement()) {
            pauseReplay();
            st.executeUpdate("INSERT INTO ledger VALUES (" + VALUES.incrementAndGet() + ")");
            assertEquals("primary", readOnly(c, "SELECT 1"));
        }
        Map<String, String> after = standbyRow();
        assertEquals(Long.parseLong(before.get("fresh_reads_on_primary")) + 1,
                Long.parseLong(after.get("fresh_reads_on_primary")));
        assertEquals(Long.parseLong(before.get("replay_waits")) + 1, Long.parseLong(after.get("replay_waits")));
        assertTrue(Long.parseLong(after.get("lag_bytes")) >= 0, after.toString());
    }

    @Test
    void eachHostsPoolTakesTheEntrysPoolSettings() {
        assertEquals(7, ProxyFixture.existingPool(proxy, "app@" + pair.host() + ":" + pair.standbyPort(),
                pair.superuser()).config().defaultPoolSize());
    }

    @Test
    void showReplicasListsEachHostsRole() throws SQLException {
        try (Connection console = ProxyFixture.console(proxy, ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            List<Map<String, String>> rows = ProxyFixture.rows(console, "SHOW REPLICAS");
            assertEquals(List.of("primary", "standby"), rows.stream().map(r -> r.get("role")).toList(), rows.toString());
        }
    }
}
