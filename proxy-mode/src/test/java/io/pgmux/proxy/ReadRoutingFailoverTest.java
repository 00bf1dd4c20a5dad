package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.StandbyPair;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * read_routing = replicas when the topology changes: a promotion moves reads off the promoted standby without a
 * restart, a standby that stops costs a read-only transaction no error, and a host list with no primary gets a
 * clear error for what must run on the primary.
 */
class ReadRoutingFailoverTest {
    private StandbyPair pair;
    private PgMuxProxy proxy;

    @BeforeEach
    void start() throws Exception {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE ledger (n int)");
        pair.awaitStandbyCaughtUp();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (pair != null) {
            pair.close();
        }
    }

    private Connection connect() throws SQLException {
        return ReadRoutingTest.connect(proxy, new Properties());
    }

    @Test
    void aPromotionMovesReadsToThePromotedServerWithoutARestart() throws Exception {
        proxy = ReadRoutingTest.routingProxy(pair, "");
        ReadRoutingTest.awaitStandbyRead(proxy);
        pair.promoteStandby();
        pair.stopPrimary();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = connect()) {
            String where;
            while (!"primary".equals(where = readOnlyOrError(c))) {
                assertTrue(System.nanoTime() < deadline, "reads still go to " + where);
                Thread.sleep(50);
            }
            try (Statement st = c.createStatement()) {
                assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (1)"));
                assertEquals("primary", ReadRoutingTest.where(st));
            }
        }
    }

    /** Where a read-only transaction ran, or the error it got while the old primary's connections go. */
    private static String readOnlyOrError(Connection c) {
        try {
            return ReadRoutingTest.readOnly(c, "SELECT 1");
        } catch (SQLException e) {
            return e.getSQLState() + " " + e.getMessage();
        }
    }

    @Test
    void aStoppedStandbyCostsTheNextReadOnlyTransactionsNoError() throws Exception {
        proxy = ReadRoutingTest.routingProxy(pair, "");
        ReadRoutingTest.awaitStandbyRead(proxy);
        try (Connection c = connect()) {
            assertEquals("standby", ReadRoutingTest.readOnly(c, "SELECT 1"));
            pair.stopStandby();

            for (int i = 0; i < 20; i++) {
                assertEquals("primary", ReadRoutingTest.readOnly(c, "SELECT count(*) FROM ledger"));
            }
        }
    }

    /** What read routing without read-your-writes gives, as query-parsing poolers route: the standby's old data. */
    @Test
    void withoutReadYourWritesAReadMissesTheClientsWriteTheStandbyHasNotReplayed() throws Exception {
        proxy = ReadRoutingTest.routingProxy(pair, " read_your_writes=0");
        ReadRoutingTest.awaitStandbyRead(proxy);
        try (Connection standby = pair.connect(pair.standbyPort(), "postgres"); Statement st = standby.createStatement()) {
            st.execute("SELECT pg_wal_replay_pause()");
        }
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO ledger VALUES (7)");

            assertEquals("standby", ReadRoutingTest.readOnly(c, "SELECT 1"));
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (var rs = st.executeQuery("SELECT count(*) FROM ledger WHERE n = 7")) {
                rs.next();
                assertEquals(0, rs.getInt(1));
            }
            c.commit();
        }
    }

    @Test
    void aHostListWithNoPrimaryGivesTheClientAClearError() throws Exception {
        String ini = "[databases]\napp = host=" + pair.host() + " port=" + pair.standbyPort() + " dbname=postgres user="
                + pair.superuser() + " read_routing=replicas replica_check_period=0.1\n"
                + "[pgbouncer]\npool_mode = transaction\nserver_connect_timeout = 1\nquery_wait_timeout = 2\n";
        proxy = ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(1)
                .start();
        // the login's welcome needs the primary's parameters: the client is told at once why there is none
        PSQLException e = assertThrows(PSQLException.class, this::connect);
        assertEquals("08P01", e.getSQLState(), e.getMessage());
        assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
        assertEquals("no host of the list is a primary (read_routing = replicas): " + pair.host() + ":"
                + pair.standbyPort() + " is a standby", e.getServerErrorMessage().getDetail());
    }
}
