package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.fleet.FleetStatus;
import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proxies whose [databases] entry names a fleet (fleet, fleet_max_servers), several in one JVM as separate
 * processes would be, under load from pgjdbc clients against the real server: the backends they hold together,
 * counted from pg_stat_activity every 100 ms, never exceed the budget; a pool leaves its fleet when RELOAD
 * removes its database and when the proxy shuts down, and joins again when RELOAD changes it; SHOW FLEET shows
 * each member's view, and its meters go when RELOAD takes the fleet away; the pools of a fleet beat on one
 * thread, and a join that hangs holds up no other; a member whose role may not use the fleet's table falls back
 * to a fixed share with a WARN.
 */
@PostgresTest
class ProxyFleetTest {
    private static final String DATABASE = "fleetdb";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final Duration SHARE_MOVES = Duration.ofSeconds(15);
    private static final AtomicInteger FLEETS = new AtomicInteger();

    private final TestDatabase db;
    private final String fleet = "proxyfleet" + FLEETS.incrementAndGet() + "_" + System.nanoTime();
    private final List<PgMuxProxy> proxies = new ArrayList<>();
    private BackendSampler sampler;
    @TempDir
    Path dir;

    ProxyFleetTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() throws Exception {
        proxies.forEach(PgMuxProxy::close);
        if (sampler != null) {
            sampler.close();
        }
    }

    @Test
    void twoProxiesOfOneFleetUnderLoadNeverHoldMoreBackendsThanTheBudget() throws Exception {
        PgMuxProxy a = proxy("a", db.superuser(), db.superuserPassword(), 4, 4);
        PgMuxProxy b = proxy("b", db.superuser(), db.superuserPassword(), 4, 4);
        sampler = new BackendSampler(db.superuser());
        Load load = new Load();
        load.run(a, 6);
        load.run(b, 6);
        Thread.sleep(3_000);
        load.stop();
        assertEquals(List.of(), load.errors());
        assertTrue(load.transactions() > 0);
        assertTrue(sampler.maxTotal() <= 4, "backends of the fleet at most: " + sampler.maxTotal());
        assertTrue(sampler.maxTotal() >= 3, "the load used the fleet: " + sampler.maxTotal());
        assertEquals(2, members(), "one member row per proxy's pool");
    }

    @Test
    void aProxyShutDownLeavesItsFleet() throws Exception {
        PgMuxProxy a = proxy("a", db.superuser(), db.superuserPassword(), 4, 4);
        query(a);
        Await.until(() -> members() == 1, SHARE_MOVES, "the pool joined");
        a.close();
        assertEquals(0, members(), "the member's row is gone once the proxy is closed");
    }

    @Test
    void aDatabaseRemovedByReloadLeavesItsFleet() throws Exception {
        PgMuxProxy a = proxy("a", db.superuser(), db.superuserPassword(), 4, 4);
        query(a);
        Await.until(() -> members() == 1, SHARE_MOVES, "the pool joined");
        Path ini = dir.resolve("a").resolve("pgmux.ini");
        Files.writeString(ini, Files.readString(ini).replace(DATABASE + " = ", "other = "));
        try (Connection console = ProxyFixture.console(a, USER, PASSWORD)) {
            console.createStatement().execute("RELOAD");
        }
        Await.until(() -> members() == 0, SHARE_MOVES, "the removed database's pool left the fleet");
    }

    @Test
    void showFleetShowsEachMembersShareHeldLentAndBorrowed() throws Exception {
        PgMuxProxy busy = proxy("busy", db.superuser(), db.superuserPassword(), 4, 4);
        PgMuxProxy idle = proxy("idle", db.superuser(), db.superuserPassword(), 4, 4);
        query(idle);
        Load load = new Load();
        load.run(busy, 6);
        try {
            Await.until(() -> "3".equals(fleetRow(busy).get("share")), SHARE_MOVES,
                    "the busy member holds all but the idle one's 1");
            Map<String, String> row = fleetRow(busy);
            assertEquals(fleet, row.get("fleet"));
            assertEquals(db.superuser(), row.get("user"));
            assertEquals("4", row.get("budget"));
            assertEquals("2", row.get("members"));
            assertEquals("1", row.get("borrowed"), "3 against its equal part of 2");
            assertEquals("0", row.get("lent"));
            assertEquals("0", row.get("fallback"));
            assertTrue(Integer.parseInt(row.get("held")) <= 3, "held within its share: " + row.get("held"));
            Map<String, String> lender = fleetRow(idle);
            assertEquals("1", lender.get("share"));
            assertEquals("1", lender.get("lent"));
            assertEquals("0", lender.get("borrowed"));
        } finally {
            load.stop();
        }
        assertEquals(List.of(), load.errors());
    }

    @Test
    void aRoleWithoutRightsFallsBackToAFixedShareWithAWarning() throws Exception {
        TestUser stranger = db.createUser(PasswordMethod.SCRAM_SHA_256);
        sampler = new BackendSampler(stranger.name());
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        PgMuxProxy a;
        Load load = new Load();
        try {
            a = proxy("a", stranger.name(), stranger.password(), 6, 3);
            load.run(a, 8);
            Await.until(() -> "1".equals(fleetRow(a).get("fallback")), SHARE_MOVES, "the member fell back");
            Thread.sleep(2_000);
        } finally {
            load.stop();
            System.setErr(stderr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertEquals(List.of(), load.errors());
        assertTrue(log.contains("WARN") && log.contains("coordination through the server failed")
                && log.contains("permission denied"), log);
        assertEquals("3", fleetRow(a).get("share"), "alone, its fixed share is the whole budget");
        assertTrue(sampler.maxTotal() <= 3 && sampler.maxTotal() >= 1, "backends: " + sampler.maxTotal());
    }

    @Test
    void aFleetRemovedByReloadTakesItsPoolsFleetMetersAway() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Path own = Files.createDirectories(dir.resolve("a"));
        ProxyFixture.writeUserlist(own, USER, PASSWORD);
        Path ini = ProxyFixture.writeIni(own.resolve("pgmux.ini"), DATABASE + " = "
                + serverOf(db.superuser(), db.superuserPassword(), 4), 0, "admin_users = " + USER + "\n");
        PgMuxProxy a = ProxyConfigLoader.load(ini).metricRegistry(meters).start();
        proxies.add(a);
        query(a);
        Await.until(() -> meters.find("pgmux.fleet.share").tag("fleet", fleet).gauge() != null, SHARE_MOVES,
                "the pool's fleet meters");
        Files.writeString(ini, Files.readString(ini).replace(" fleet=" + fleet + " fleet_max_servers=4", ""));
        try (Connection console = ProxyFixture.console(a, USER, PASSWORD)) {
            console.createStatement().execute("RELOAD");
        }
        Await.until(() -> members() == 0, SHARE_MOVES, "the pool left the fleet");
        Await.until(() -> ProxyFixture.existingPool(a, DATABASE, db.superuser()).fleetStatus() == null, SHARE_MOVES,
                "the pool shows no fleet");
        assertEquals(List.of(), meters.getMeters().stream().map(m -> m.getId().getName())
                .filter(name -> name.startsWith("pgmux.fleet.")).toList());
        assertTrue(meters.find("pgmux.connections").gauge() != null, "the pool's other meters stay");
    }

    @Test
    void aPoolFreedByPoolIdleTimeoutLeavesItsFleet() throws Exception {
        PgMuxProxy a = proxy("a", db.superuser(), db.superuserPassword(), 4, 4,
                "server_idle_timeout = 1\npool_idle_timeout = 1\n");
        query(a);
        Await.until(() -> members() == 1, SHARE_MOVES, "the pool joined");
        Await.until(() -> a.registry().pools().isEmpty(), SHARE_MOVES, "the idle pool was freed");
        Await.until(() -> members() == 0, SHARE_MOVES, "the freed pool left the fleet");
    }

    @Test
    void aFleetBudgetChangedByReloadIsJoinedAnew() throws Exception {
        PgMuxProxy a = proxy("a", db.superuser(), db.superuserPassword(), 4, 4);
        query(a);
        Await.until(() -> budget(a) == 4, SHARE_MOVES, "the pool joined with its budget");
        Path ini = dir.resolve("a").resolve("pgmux.ini");
        Files.writeString(ini, Files.readString(ini).replace("fleet_max_servers=4", "fleet_max_servers=2"));
        try (Connection console = ProxyFixture.console(a, USER, PASSWORD)) {
            console.createStatement().execute("RELOAD");
        }
        Await.until(() -> budget(a) == 2, SHARE_MOVES, "the pool holds to the budget RELOAD gave");
        assertEquals(1, members(), "the pool left before it joined again");
    }

    @Test
    void thePoolsOfOneFleetBeatOnOneThread() throws Exception {
        String entries = IntStream.rangeClosed(1, 3).mapToObj(i -> "db" + i + " = " + serverOf(db.superuser(),
                db.superuserPassword(), 4)).collect(Collectors.joining("\n"));
        PgMuxProxy a = proxy("a", entries, 4, "");
        for (int i = 1; i <= 3; i++) {
            query(a, "db" + i);
        }
        Await.until(() -> members() == 3, SHARE_MOVES, "the three pools joined");
        assertEquals(1, Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("pgmux-fleet-" + fleet)).count(), "threads of the fleet");
    }

    @Test
    void aJoinThatHangsDelaysNoOtherPoolsFirstShare() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            PgMuxProxy a = proxy("a", "silent = host=127.0.0.1 port=" + silent.getLocalPort() + " dbname=x user=x"
                    + " fleet=" + fleet + " fleet_max_servers=4\n" + DATABASE + " = "
                    + serverOf(db.superuser(), db.superuserPassword(), 4), 4, "");
            Thread waiting = new Thread(() -> {
                try {
                    query(a, "silent");
                } catch (SQLException expected) {
                    // the silent server never answers
                }
            }, "silent-client");
            waiting.setDaemon(true);
            waiting.start();
            try (Socket join = silent.accept()) {
                query(a, DATABASE);
                try (Connection console = ProxyFixture.console(a, USER, PASSWORD)) {
                    assertEquals(List.of(DATABASE), ProxyFixture.rows(console, "SHOW FLEET").stream()
                            .map(row -> row.get("database")).toList(),
                            "the other pool had its share while the silent one's join still waited");
                }
            }
        }
    }

    private int budget(PgMuxProxy proxy) {
        FleetStatus status = ProxyFixture.existingPool(proxy, DATABASE, db.superuser()).fleetStatus();
        return status == null ? 0 : status.budget();
    }

    // ---------------------------------------------------------------- proxies, load and the sampler

    /** A proxy started from its own pgbouncer.ini, whose database logs in as {@code serverUser}. */
    private PgMuxProxy proxy(String name, String serverUser, String serverPassword, int poolSize, int budget)
            throws Exception {
        return proxy(name, serverUser, serverPassword, poolSize, budget, "");
    }

    /** As above, with more [pgbouncer] lines. */
    private PgMuxProxy proxy(String name, String serverUser, String serverPassword, int poolSize, int budget,
            String settings) throws Exception {
        return proxy(name, DATABASE + " = " + serverOf(serverUser, serverPassword, budget), poolSize, settings);
    }

    /** The test database's connect string, in the fleet with {@code budget}. */
    private String serverOf(String serverUser, String serverPassword, int budget) {
        return "host=" + db.host() + " port=" + db.port() + " dbname=" + db.name() + " user=" + serverUser
                + " password=" + serverPassword + " fleet=" + fleet + " fleet_max_servers=" + budget;
    }

    /** A proxy of these [databases] lines. */
    private PgMuxProxy proxy(String name, String databases, int poolSize, String settings) throws Exception {
        Path own = Files.createDirectories(dir.resolve(name));
        ProxyFixture.writeUserlist(own, USER, PASSWORD);
        ProxyFixture.writeIni(own.resolve("pgmux.ini"), databases, 0, "admin_users = " + USER
                + "\npool_mode = transaction\ndefault_pool_size = " + poolSize + "\nquery_wait_timeout = 60\n"
                + settings);
        PgMuxProxy proxy = ProxyConfigLoader.load(own.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
        proxies.add(proxy);
        return proxy;
    }

    private static Connection client(PgMuxProxy proxy) throws SQLException {
        return ProxyFixture.connect(proxy, DATABASE, USER, PASSWORD, new Properties());
    }

    private static void query(PgMuxProxy proxy) throws SQLException {
        query(proxy, DATABASE);
    }

    private static void query(PgMuxProxy proxy, String database) throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, database, USER, PASSWORD, new Properties());
                Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
    }

    /** The SHOW FLEET row of the proxy's one pool, empty before the pool's first heartbeat. */
    private Map<String, String> fleetRow(PgMuxProxy proxy) throws SQLException {
        try (Connection console = ProxyFixture.console(proxy, USER, PASSWORD)) {
            List<Map<String, String>> rows = ProxyFixture.rows(console, "SHOW FLEET");
            assertTrue(rows.size() <= 1, "one pool in a fleet: " + rows);
            if (rows.isEmpty()) {
                return Map.of();
            }
            assertEquals(DATABASE, rows.get(0).get("database"));
            return rows.get(0);
        }
    }

    private int members() throws SQLException {
        try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement(
                "SELECT count(*) FROM pgmux_fleet.members WHERE fleet = ?")) {
            st.setString(1, fleet);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** pgjdbc clients through proxies running short transactions until stopped. */
    private static final class Load {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger transactions = new AtomicInteger();
        private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        private final List<Thread> threads = new ArrayList<>();

        void run(PgMuxProxy proxy, int clients) {
            for (int t = 0; t < clients; t++) {
                Thread thread = new Thread(() -> {
                    try (Connection c = client(proxy); Statement st = c.createStatement()) {
                        while (running.get()) {
                            st.execute("SELECT pg_sleep(0.02)");
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

    /**
     * Counts the client backends of {@code user} in the test database every 100 ms, as an operator would, the
     * fleet's coordination connections (not counted in the budget) and its own left out.
     */
    private final class BackendSampler implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private volatile int maxTotal;

        BackendSampler(String user) {
            thread = new Thread(() -> {
                try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND usename = ?"
                                + " AND backend_type = 'client backend' AND application_name <> ?"
                                + " AND pid <> pg_backend_pid()")) {
                    st.setString(1, user);
                    st.setString(2, PostgresFleetCoordinator.APPLICATION_NAME);
                    while (running.get()) {
                        try (ResultSet rs = st.executeQuery()) {
                            rs.next();
                            maxTotal = Math.max(maxTotal, rs.getInt(1));
                        }
                        Thread.sleep(100);
                    }
                } catch (SQLException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, "backend-sampler");
            thread.start();
        }

        int maxTotal() {
            return maxTotal;
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join();
        }
    }
}
