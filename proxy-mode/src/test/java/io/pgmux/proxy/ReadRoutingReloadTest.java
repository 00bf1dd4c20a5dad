package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Await;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RELOAD that ends an entry's read routing (the entry removed, or read_routing off): its hosts' pools
 * ({@code app@host:port}) leave SHOW POOLS and their checks stop, so the standby sees no more of them; one that
 * removes a host from the entry does so for that host's pool.
 */
class ReadRoutingReloadTest {
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static StandbyPair pair;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.get();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private void writeIni(String entryKeys, boolean withEntry) throws Exception {
        writeIni("host=" + pair.host() + "," + pair.host() + " port=" + pair.primaryPort() + "," + pair.standbyPort(),
                entryKeys, withEntry);
    }

    private void writeIni(String hosts, String entryKeys, boolean withEntry) throws Exception {
        String entry = "app = " + hosts + " dbname=postgres user=" + pair.superuser() + entryKeys;
        String other = "other = host=" + pair.host() + " port=" + pair.primaryPort() + " dbname=postgres user="
                + pair.superuser();
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), (withEntry ? entry + "\n" : "") + other, 0,
                "admin_users = " + ADMIN + "\npool_mode = transaction\n");
    }

    private void start() throws Exception {
        ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD);
        writeIni(" read_routing=replicas replica_check_period=0.1", true);
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
        ReadRoutingTest.awaitStandbyRead(proxy);
        assertEquals(2, hostPools().size(), "the hosts' pools before the RELOAD");
    }

    private Connection console() throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, "pgbouncer", ADMIN, ADMIN_PASSWORD, simple);
    }

    /** SHOW POOLS' databases of the entry's hosts. */
    private List<String> hostPools() throws SQLException {
        List<String> pools = new ArrayList<>();
        try (Connection c = console(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW POOLS")) {
            while (rs.next()) {
                if (rs.getString("database").startsWith("app@")) {
                    pools.add(rs.getString("database"));
                }
            }
        }
        return pools;
    }

    /** Backends on the standby other than this query's own: the proxy's check connections, while checks run. */
    private static int standbyBackends() throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
                     + " AND pid <> pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private void reloadAndAssertRoutingGone() throws Exception {
        try (Connection c = console(); Statement st = c.createStatement()) {
            st.execute("RELOAD");
        }
        assertEquals(List.of(), hostPools());
        assertEquals(0, Await.value(ReadRoutingReloadTest::standbyBackends, n -> n == 0, Duration.ofSeconds(10)));
        Thread.sleep(500);
        assertEquals(0, standbyBackends(), "a check reached the standby after the RELOAD");
        assertEquals(List.of(), hostPools());
    }

    @Test
    void aReloadThatRemovesTheEntryDropsItsHostPoolsAndStopsTheirChecks() throws Exception {
        start();
        writeIni("", false);
        reloadAndAssertRoutingGone();
    }

    @Test
    void aReloadThatRemovesAHostFromTheEntryClosesThatHostsPool() throws Exception {
        start();
        String standbyPool = "app@" + pair.host() + ":" + pair.standbyPort();
        assertTrue(hostPools().contains(standbyPool), "the standby's pool before the RELOAD: " + hostPools());
        writeIni("host=" + pair.host() + " port=" + pair.primaryPort(),
                " read_routing=replicas replica_check_period=0.1", true);
        try (Connection c = console(); Statement st = c.createStatement()) {
            st.execute("RELOAD");
        }
        assertEquals(List.of(), Await.value(this::hostPools, pools -> !pools.contains(standbyPool),
                Duration.ofSeconds(10)).stream().filter(standbyPool::equals).toList(), "SHOW POOLS after the RELOAD");
        assertEquals(0, Await.value(ReadRoutingReloadTest::standbyBackends, n -> n == 0, Duration.ofSeconds(10)),
                "the standby's servers and check connection closed");
        try (Connection c = ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties())) {
            assertEquals("primary", ReadRoutingTest.readOnly(c, "SELECT 1"), "a read after the RELOAD");
        }
        assertEquals(0, standbyBackends(), "nothing reached the standby after the RELOAD");
    }

    @Test
    void aReloadThatTurnsReadRoutingOffDropsItsHostPoolsAndStopsTheirChecks() throws Exception {
        start();
        writeIni(" read_routing=off", true);
        reloadAndAssertRoutingGone();
    }
}
