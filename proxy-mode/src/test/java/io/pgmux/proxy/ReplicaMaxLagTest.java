package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * replica_max_lag: a standby whose replay falls behind the primary by more than the bound (replay paused while the
 * primary writes) leaves the read set at a check, and joins it again once it has caught up; SHOW REPLICAS says so.
 * Without the key a lagging standby keeps serving reads.
 */
class ReplicaMaxLagTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static StandbyPair pair;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @AfterEach
    void resumeReplay() throws SQLException {
        standby("SELECT pg_wal_replay_resume()");
        pair.awaitStandbyCaughtUp();
    }

    private static void standby(String sql) throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Writes on the primary until a read-only transaction of {@code c} runs {@code where}, or PATIENCE passes. */
    private static boolean writeUntilReads(Connection c, String where) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            pair.executeOnPrimary("INSERT INTO ledger VALUES (1)");
            if (where.equals(ReadRoutingTest.readOnly(c, "SELECT 1"))) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    /** SHOW REPLICAS' lagging column for the standby. */
    private static String standbyLagging(PgMuxProxy proxy) throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        try (Connection admin = ProxyFixture.connect(proxy, "pgbouncer", ProxyFixture.USER, ProxyFixture.PASSWORD,
                simple); Statement st = admin.createStatement();
             ResultSet rs = st.executeQuery("SHOW REPLICAS")) {
            while (rs.next()) {
                if (rs.getString("host").endsWith(":" + pair.standbyPort())) {
                    return rs.getString("lagging");
                }
            }
        }
        throw new AssertionError("SHOW REPLICAS has no row of the standby");
    }

    @Test
    void aStandbyLaggingPastTheBoundLeavesTheReadSetUntilItCatchesUp() throws Exception {
        try (PgMuxProxy proxy = ReadRoutingTest.routingProxy(pair, " replica_max_lag=1")) {
            ReadRoutingTest.awaitStandbyRead(proxy);
            try (Connection c = ReadRoutingTest.connect(proxy, new Properties())) {
                standby("SELECT pg_wal_replay_pause()");
                assertTrue(writeUntilReads(c, "primary"), "reads still ran on the paused standby after " + PATIENCE);
                assertEquals("yes", standbyLagging(proxy));
                standby("SELECT pg_wal_replay_resume()");
                assertTrue(writeUntilReads(c, "standby"), "reads did not come back to the standby after " + PATIENCE);
                assertEquals("no", standbyLagging(proxy));
            }
        }
    }

    @Test
    void withoutABoundALaggingStandbyKeepsServingReads() throws Exception {
        try (PgMuxProxy proxy = ReadRoutingTest.routingProxy(pair, " read_your_writes=0")) {
            ReadRoutingTest.awaitStandbyRead(proxy);
            try (Connection c = ReadRoutingTest.connect(proxy, new Properties())) {
                standby("SELECT pg_wal_replay_pause()");
                for (int i = 0; i < 30; i++) {
                    pair.executeOnPrimary("INSERT INTO ledger VALUES (1)");
                    Thread.sleep(50);
                }
                assertEquals("standby", ReadRoutingTest.readOnly(c, "SELECT 1"));
            }
        }
    }
}
