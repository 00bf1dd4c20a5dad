package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * replicaMaxLag: a standby whose replay falls behind the primary by more than the bound (replay paused while the
 * primary writes) leaves the read set, and joins it again once it has caught up; without a bound it keeps
 * serving reads, however far behind.
 */
class ReplicaLagTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static StandbyPair pair;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @AfterEach
    void resumeReplay() throws SQLException {
        PgMuxDriver.closeAll();
        standby("SELECT pg_wal_replay_resume()");
        pair.awaitStandbyCaughtUp();
    }

    private static void standby(String sql) throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static Connection reader(String settings) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:pgmux:postgresql://" + pair.hostList()
                + "/postgres?readRouting=replicas&replicaCheckPeriod=100" + settings, pair.superuser(), "");
        c.setReadOnly(true);
        return c;
    }

    private static boolean readsOnStandby(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** Writes on the primary until reads of {@code c} run where {@code onStandby} says, or PATIENCE passes. */
    private static boolean writeUntilReads(Connection c, boolean onStandby) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            pair.executeOnPrimary("INSERT INTO ledger VALUES (1)");
            if (readsOnStandby(c) == onStandby) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    @Test
    void aStandbyLaggingPastTheBoundLeavesTheReadSetUntilItCatchesUp() throws Exception {
        try (Connection c = reader("&replicaMaxLag=1s")) {
            assertTrue(readsOnStandby(c));
            standby("SELECT pg_wal_replay_pause()");
            assertTrue(writeUntilReads(c, false), "reads still ran on the paused standby after " + PATIENCE);
            standby("SELECT pg_wal_replay_resume()");
            assertTrue(writeUntilReads(c, true), "reads did not come back to the standby after " + PATIENCE);
        }
    }

    @Test
    void aStandbyCaughtUpWithAnIdlePrimaryStaysInTheReadSet() throws Exception {
        try (Connection c = reader("&replicaMaxLag=200ms")) {
            pair.awaitStandbyCaughtUp();
            Thread.sleep(1000);
            assertTrue(readsOnStandby(c));
        }
    }

    @Test
    void withoutABoundALaggingStandbyKeepsServingReads() throws Exception {
        try (Connection c = reader("")) {
            standby("SELECT pg_wal_replay_pause()");
            for (int i = 0; i < 30; i++) {
                pair.executeOnPrimary("INSERT INTO ledger VALUES (1)");
                Thread.sleep(50);
            }
            assertTrue(readsOnStandby(c));
        }
    }
}
