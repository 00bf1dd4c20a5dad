package io.pgmux.jdbc.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.jdbc.credentials.Credentials;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pools of one fleet, each with its own coordinator and member id as separate processes would have, under load
 * against the real server: the backends they hold together, counted from pg_stat_activity every 100 ms, never
 * exceed the fleet's budget, and the budget follows the members alive and their demand.
 */
@PostgresTest
class FleetBudgetTest {
    private static final Duration SHARE_MOVES = Duration.ofSeconds(15);
    private static final AtomicInteger FLEETS = new AtomicInteger();

    private final TestDatabase db;
    private final String fleet = "fleet" + FLEETS.incrementAndGet() + "_" + System.nanoTime();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final BackendSampler sampler = new BackendSampler();

    FleetBudgetTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        sampler.close();
    }

    @Test
    void threePoolsUnderLoadNeverHoldMoreBackendsThanTheBudget() throws Exception {
        PgMuxDataSource a = member("a", 10, 6);
        PgMuxDataSource b = member("b", 10, 6);
        PgMuxDataSource c = member("c", 10, 6);
        sampler.start();
        Load load = new Load();
        load.run(a, 8);
        load.run(b, 8);
        load.run(c, 8);
        Thread.sleep(3_000);
        load.stop();
        assertEquals(List.of(), load.errors());
        assertTrue(load.transactions() > 0);
        assertTrue(sampler.maxTotal() <= 6, "backends of the fleet at most: " + sampler.maxTotal());
        assertTrue(sampler.maxTotal() >= 3, "the load used the fleet: " + sampler.maxTotal());
    }

    @Test
    void anIdleMembersShareIsLentToTheBusyOneAndTakenBack() throws Exception {
        PgMuxDataSource busy = member("busy", 8, 8);
        PgMuxDataSource idle = member("idle", 8, 8);
        query(idle);
        sampler.start();
        Load load = new Load();
        load.run(busy, 12);
        Await.until(() -> sampler.now("busy") == 7, SHARE_MOVES, "the busy member holds all but the idle one's 1");
        load.run(idle, 12);
        Await.until(() -> sampler.now("idle") >= 3, SHARE_MOVES, "the member turned busy takes its share back");
        load.stop();
        assertEquals(List.of(), load.errors());
        assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
    }

    @Test
    void aClosedMembersShareReturnsToTheOthers() throws Exception {
        PgMuxDataSource stays = member("stays", 8, 8);
        PgMuxDataSource leaves = member("leaves", 8, 8);
        sampler.start();
        Load load = new Load();
        load.run(stays, 12);
        Load leaving = new Load();
        leaving.run(leaves, 12);
        Await.until(() -> sampler.now("leaves") >= 3, SHARE_MOVES, "both members busy");
        leaving.stop();
        leaves.close();
        Await.until(() -> sampler.now("stays") == 8, SHARE_MOVES, "the member left holds the whole budget");
        load.stop();
        assertEquals(List.of(), load.errors());
        assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
    }

    @Test
    void aMemberWhoseHeartbeatsStopReturnsItsShareOnlyAfterTheBound() throws Exception {
        // A member that held 6 of 8 and was killed: its row stays, its heartbeat ages.
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS pgmux_fleet");
        }
        PgMuxDataSource alive = member("alive", 8, 8);
        query(alive);
        try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement("INSERT INTO pgmux_fleet.members"
                + " VALUES (?, current_database(), ?, 'killed', 8, 8, 6, clock_timestamp())")) {
            st.setString(1, fleet);
            st.setString(2, db.superuser());
            st.executeUpdate();
        }
        long killedAt = System.nanoTime();
        sampler.start();
        Load load = new Load();
        load.run(alive, 12);
        Await.until(() -> sampler.now("alive") == 8, SHARE_MOVES, "the killed member's share returned");
        Duration took = Duration.ofNanos(System.nanoTime() - killedAt);
        load.stop();
        assertEquals(List.of(), load.errors());
        assertTrue(took.compareTo(PostgresFleetCoordinator.DEAD_AFTER) >= 0, "returned only after the bound: " + took);
        int whileCounted = sampler.maxBefore(killedAt, PostgresFleetCoordinator.DEAD_AFTER);
        assertTrue(whileCounted <= 2, "while the killed member counted, the alive one held at most 2: " + whileCounted);
    }

    @Test
    void aHandEditedRowWithAHeartbeatInTheFutureGivesItsShareBack() throws Exception {
        PgMuxDataSource alive = member("alive", 8, 8);
        query(alive);
        try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement("INSERT INTO pgmux_fleet.members"
                + " VALUES (?, current_database(), ?, 'edited', 8, 8, 6, clock_timestamp() + interval '1 day')")) {
            st.setString(1, fleet);
            st.setString(2, db.superuser());
            st.executeUpdate();
        }
        sampler.start();
        Load load = new Load();
        load.run(alive, 12);
        Await.until(() -> sampler.now("alive") == 8, SHARE_MOVES, "the edited row's share returned");
        load.stop();
        assertEquals(List.of(), load.errors());
        assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
    }

    @Test
    void aBudgetBelowTheMembersServesAsManyAsItCanWithAWarning() throws Exception {
        String log = capturingStderr(() -> {
            List<PgMuxDataSource> members = List.of(member("a", 2, 2), member("b", 2, 2), member("c", 2, 2));
            sampler.start();
            Load load = new Load();
            for (PgMuxDataSource m : members) {
                m.setConnectionTimeout(2_000);
                load.run(m, 2);
            }
            Thread.sleep(3_000);
            load.stop();
            assertTrue(load.transactions() > 0, "the members with a share served their clients");
        });
        assertTrue(log.contains("WARN") && log.contains("3 members share a budget of 2 server connections"), log);
        assertTrue(sampler.maxTotal() <= 2, "backends of the fleet at most: " + sampler.maxTotal());
    }

    @Test
    void aKilledProcessesShareReturnsToTheOthersWithoutAnErrorElsewhere() throws Exception {
        PgMuxDataSource alive = member("alive", 8, 8);
        query(alive);
        sampler.start();
        Process other = otherProcess("killed", 8);
        try {
            Load load = new Load();
            load.run(alive, 12);
            Await.until(() -> sampler.now("killed") >= 3 && sampler.now("alive") >= 3, SHARE_MOVES,
                    "both processes busy, sharing the budget");
            other.destroyForcibly().waitFor();
            Await.until(() -> sampler.now("alive") == 8, SHARE_MOVES, "the killed process's share returned");
            load.stop();
            assertEquals(List.of(), load.errors());
            assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void aMemberStoppedPastTheBoundNeverTakesTheFleetAboveItsBudget() throws Exception {
        PgMuxDataSource alive = member("alive", 8, 8);
        query(alive);
        sampler.start();
        Process other = otherProcess("stopped", 8);
        try {
            Load load = new Load();
            load.run(alive, 12);
            Await.until(() -> sampler.now("stopped") >= 3 && sampler.now("alive") >= 3, SHARE_MOVES,
                    "both processes busy, sharing the budget");
            signal(other, "STOP");
            Thread.sleep(PostgresFleetCoordinator.DEAD_AFTER.toMillis() + 2_000);
            signal(other, "CONT");
            Thread.sleep(2_000);
            load.stop();
            assertEquals(List.of(), load.errors());
            assertTrue(other.isAlive(), "the stopped process runs again");
            assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void theCoordinationConnectionLogsInWithTheCredentialsProvidersPassword() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        grantTheFleetTable(user);
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(db.jdbcUrl());
        ds.setUsername(user.name());
        ds.setCredentialsProvider(() -> Credentials.of(null, user.password()));
        ds.setMaximumPoolSize(4);
        ds.addDataSourceProperty("ApplicationName", fleet + "-provided");
        ds.setFleet(fleet);
        ds.setFleetMaxServers(4);
        toClose.add(ds);
        String log = capturingStderr(() -> {
            query(ds);
            Thread.sleep(3 * PostgresFleetCoordinator.HEARTBEAT.toMillis());
        });
        assertFalse(log.contains("coordination through the server failed"), log);
        try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement(
                "SELECT count(*) FROM pgmux_fleet.members WHERE fleet = ? AND username = ?")) {
            st.setString(1, fleet);
            st.setString(2, user.name());
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                assertEquals(1, rs.getInt(1), "the member's row, written over its coordination connection");
            }
        }
    }

    @Test
    void aDroppedSchemaFallsBackToTheShareLastGrantedWithAWarning() throws Exception {
        PgMuxDataSource a = member("a", 10, 8);
        PgMuxDataSource b = member("b", 10, 8);
        sampler.start();
        Load load = new Load();
        load.run(a, 12);
        load.run(b, 12);
        Await.until(() -> sampler.now("a") == 4 && sampler.now("b") == 4, SHARE_MOVES, "both busy, 4 each");
        String log = capturingStderr(() -> {
            try (Connection c = db.connect(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA pgmux_fleet CASCADE");
            }
            Thread.sleep(2_000);
            Await.until(() -> sampler.now("a") == 4 && sampler.now("b") == 4, SHARE_MOVES,
                    "each member serves its clients at the share last granted");
            load.stop();
            assertEquals(List.of(), load.errors());
        });
        assertTrue(log.contains("WARN") && log.contains("coordination through the server failed"), log);
        assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
    }

    @Test
    void aRoleWithoutRightsFallsBackToTheWholeBudgetAloneWithAWarning() throws Exception {
        TestUser stranger = db.createUser(PasswordMethod.SCRAM_SHA_256);
        String log = capturingStderr(() -> {
            PgMuxDataSource a = member("a", 10, 3, stranger);
            sampler.start();
            Load load = new Load();
            load.run(a, 12);
            Await.until(() -> sampler.now("a") == 3, SHARE_MOVES, "the member holds its fixed share");
            Thread.sleep(1_000);
            load.stop();
            assertEquals(List.of(), load.errors());
        });
        assertTrue(log.contains("WARN") && log.contains("coordination through the server failed")
                && log.contains("permission denied"), log);
        assertEquals(3, sampler.max("a"), "never above the budget");
    }

    @Test
    void theDriverUrlTakesTheFleetAndItsBudget() throws Exception {
        String url = db.jdbcUrl().replace("jdbc:postgresql:", "jdbc:pgmux:postgresql:")
                + (db.jdbcUrl().contains("?") ? "&" : "?") + "fleet=" + fleet + "&fleetMaxServers=2"
                + "&maximumPoolSize=10&ApplicationName=" + fleet + "-url";
        sampler.start();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            Thread thread = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(url, db.superuser(), db.superuserPassword());
                     Statement st = c.createStatement()) {
                    for (int i = 0; i < 20; i++) {
                        st.execute("SELECT pg_sleep(0.01)");
                    }
                } catch (SQLException e) {
                    errors.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(List.of(), List.copyOf(errors));
        assertTrue(sampler.max("url") <= 2 && sampler.max("url") >= 1, "backends: " + sampler.max("url"));
    }

    @Test
    void aFleetWithoutABudgetIsRefusedWithSqlState22023() {
        String url = db.jdbcUrl().replace("jdbc:postgresql:", "jdbc:pgmux:postgresql:")
                + (db.jdbcUrl().contains("?") ? "&" : "?") + "fleet=" + fleet;
        SQLException e = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(url, db.superuser(), db.superuserPassword()).close());
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("fleetMaxServers"), e.getMessage());
    }

    @Test
    void aMemberWhoseHeartbeatCannotGetTheLockServesItsClientsAtItsFixedShare() throws Exception {
        try (Connection blocker = db.connect(); PreparedStatement lock = blocker.prepareStatement(
                "SELECT pg_advisory_lock(hashtext('pgmux_fleet'), hashtext(?))")) {
            lock.setString(1, fleet + "/" + db.name() + "/" + db.superuser());
            lock.execute();
            String log = capturingStderr(() -> {
                PgMuxDataSource a = member("a", 10, 3);
                sampler.start();
                Load load = new Load();
                load.run(a, 12);
                Await.until(() -> sampler.now("a") == 3, SHARE_MOVES, "the member holds its fixed share");
                load.stop();
                assertEquals(List.of(), load.errors());
            });
            assertTrue(log.contains("WARN") && log.contains("coordination through the server failed"), log);
            assertEquals(3, sampler.max("a"), "never above the budget");
        }
    }

    @Test
    void aHeartbeatThatTimesOutUnderLoadNeverRaisesACapAndTheSharesRecover() throws Exception {
        PgMuxDataSource busy = member("busy", 8, 8);
        PgMuxDataSource idle = member("idle", 8, 8);
        query(idle);
        sampler.start();
        // The busy member's transactions hold their servers a second: it gives servers back slowly.
        Load slow = new Load(1.0);
        slow.run(busy, 12);
        Await.until(() -> sampler.now("busy") == 7, SHARE_MOVES, "the busy member holds all but the idle one's 1");
        Load load = new Load(0.02);
        String log = capturingStderr(() -> {
            try (Connection blocker = db.connect(); PreparedStatement lock = blocker.prepareStatement(
                    "SELECT pg_advisory_lock(hashtext('pgmux_fleet'), hashtext(?))")) {
                lock.setString(1, fleet + "/" + db.name() + "/" + db.superuser());
                lock.execute();
                // Every heartbeat waits for the lock past the coordination's timeout, as under heavy load,
                // while the idle member turns busy.
                load.run(idle, 12);
                Thread.sleep(PostgresFleetCoordinator.DEAD_AFTER.toMillis() + 1_000);
            }
            Await.until(() -> sampler.now("busy") >= 3 && sampler.now("idle") >= 3, SHARE_MOVES,
                    "both members back to their fair shares");
        });
        slow.stop();
        load.stop();
        assertTrue(log.contains("WARN") && log.contains("coordination through the server failed"), log);
        assertEquals(List.of(), slow.errors());
        assertEquals(List.of(), load.errors());
        assertTrue(sampler.maxTotal() <= 8, "backends of the fleet at most: " + sampler.maxTotal());
    }

    @Test
    void aBudgetBelowOneIsRefusedWithSqlState22023() {
        String url = db.jdbcUrl().replace("jdbc:postgresql:", "jdbc:pgmux:postgresql:")
                + (db.jdbcUrl().contains("?") ? "&" : "?") + "fleet=" + fleet + "&fleetMaxServers=0";
        SQLException e = assertThrows(SQLException.class,
                () -> DriverManager.getConnection(url, db.superuser(), db.superuserPassword()).close());
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("fleetMaxServers=0"), e.getMessage());
    }

    @Test
    void membersGivingDifferentBudgetsHoldToTheSmallestWithAWarning() throws Exception {
        String log = capturingStderr(() -> {
            PgMuxDataSource small = member("small", 10, 4);
            query(small);
            PgMuxDataSource large = member("large", 10, 8);
            sampler.start();
            Load load = new Load();
            load.run(large, 12);
            load.run(small, 12);
            Await.until(() -> sampler.now("large") >= 1 && sampler.now("small") >= 1, SHARE_MOVES, "both busy");
            Thread.sleep(2_000);
            load.stop();
            assertEquals(List.of(), load.errors());
        });
        assertTrue(log.contains("WARN") && log.contains("the smallest, 4, holds"), log);
        assertTrue(sampler.maxTotal() <= 4, "backends of the fleet at most: " + sampler.maxTotal());
    }

    // ---------------------------------------------------------------- members, load and the sampler

    private PgMuxDataSource member(String name, int poolSize, int budget) {
        return member(name, poolSize, budget, null);
    }

    private PgMuxDataSource member(String name, int poolSize, int budget, TestUser user) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(db.jdbcUrl());
        ds.setUsername(user == null ? db.superuser() : user.name());
        ds.setPassword(user == null ? db.superuserPassword() : user.password());
        ds.setMaximumPoolSize(poolSize);
        ds.setConnectionTimeout(60_000);
        ds.addDataSourceProperty("ApplicationName", fleet + "-" + name);
        ds.setFleet(fleet);
        ds.setFleetMaxServers(budget);
        toClose.add(ds);
        return ds;
    }

    /** The fleet's table made by an operator, and {@code user} given the rights to use it. */
    private void grantTheFleetTable(TestUser user) throws SQLException {
        query(member("operator", 1, 1));
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("GRANT USAGE ON SCHEMA pgmux_fleet TO " + user.name());
            st.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON pgmux_fleet.members TO " + user.name());
        }
    }

    private static void signal(Process p, String signal) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor());
    }

    /** A member in a JVM of its own, under load, once it has run its first query. */
    private Process otherProcess(String name, int budget) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), FleetMemberProcess.class.getName(), db.jdbcUrl(),
                db.superuser(), db.superuserPassword(), fleet, Integer.toString(budget), fleet + "-" + name)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("ready", out.readLine(), "the other process started its pool");
        return p;
    }

    private static void query(PgMuxDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private static String capturingStderr(Action action) throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(stderr);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** Threads running short transactions on members until stopped. */
    private static final class Load {
        private final String transaction;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger transactions = new AtomicInteger();
        private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        private final List<Thread> threads = new ArrayList<>();

        Load() {
            this(0.02);
        }

        /** Transactions of {@code seconds} each. */
        Load(double seconds) {
            transaction = "SELECT pg_sleep(" + seconds + ")";
        }

        void run(PgMuxDataSource ds, int threadCount) {
            for (int t = 0; t < threadCount; t++) {
                Thread thread = new Thread(() -> {
                    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                        while (running.get()) {
                            st.execute(transaction);
                            transactions.incrementAndGet();
                        }
                    } catch (SQLException | RuntimeException e) {
                        errors.add(e);
                    }
                }, "load-" + t);
                thread.start();
                threads.add(thread);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join();
            }
        }

        int transactions() {
            return transactions.get();
        }

        List<Throwable> errors() {
            return List.copyOf(errors);
        }
    }

    /** Counts the fleet's backends by application name every 100 ms, as an operator would. */
    private final class BackendSampler implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean();
        private final Map<String, Integer> now = new ConcurrentHashMap<>();
        private final Map<String, Integer> max = new ConcurrentHashMap<>();
        private final List<long[]> totals = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile int maxTotal;
        private Thread thread;

        void start() {
            running.set(true);
            thread = new Thread(() -> {
                try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement(
                        "SELECT application_name, count(*) FROM pg_stat_activity WHERE application_name LIKE ?"
                                + " GROUP BY 1")) {
                    st.setString(1, fleet + "-%");
                    while (running.get()) {
                        Map<String, Integer> seen = new HashMap<>();
                        int total = 0;
                        try (ResultSet rs = st.executeQuery()) {
                            while (rs.next()) {
                                String member = rs.getString(1).substring(fleet.length() + 1);
                                seen.put(member, rs.getInt(2));
                                total += rs.getInt(2);
                            }
                        }
                        for (String m : List.copyOf(now.keySet())) {
                            now.put(m, seen.getOrDefault(m, 0));
                        }
                        seen.forEach((m, n) -> {
                            now.put(m, n);
                            max.merge(m, n, Math::max);
                        });
                        totals.add(new long[] {System.nanoTime(), total});
                        maxTotal = Math.max(maxTotal, total);
                        Thread.sleep(100);
                    }
                } catch (SQLException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, "backend-sampler");
            thread.start();
        }

        int now(String member) {
            return now.getOrDefault(member, 0);
        }

        int max(String member) {
            return max.getOrDefault(member, 0);
        }

        int maxTotal() {
            return maxTotal;
        }

        /** The most backends seen from {@code from} for {@code span}. */
        int maxBefore(long from, Duration span) {
            long until = from + span.toNanos();
            return (int) totals.stream().filter(t -> t[0] >= from && t[0] < until).mapToLong(t -> t[1]).max()
                    .orElse(0);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            if (thread != null) {
                thread.join();
            }
        }
    }
}
