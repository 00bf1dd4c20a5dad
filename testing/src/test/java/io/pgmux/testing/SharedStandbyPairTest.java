package io.pgmux.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class SharedStandbyPairTest {

    /** What one class leaves behind, rows and a paused replay, the next class does not find. */
    @Test
    void theNextClassGetsTheSamePairReplayingWithAnEmptyLedger() throws SQLException {
        StandbyPair first = SharedStandbyPair.withEmptyLedger();
        first.executeOnPrimary("INSERT INTO ledger VALUES (1), (2)");
        first.awaitStandbyCaughtUp();
        first.executeOnStandby(0, "SELECT pg_wal_replay_pause()");

        StandbyPair next = SharedStandbyPair.withEmptyLedger();

        assertSame(first, next);
        try (Connection standby = next.connect(next.standbyPort(), "postgres")) {
            assertEquals("f", value(standby, "SELECT pg_is_wal_replay_paused()"));
            assertEquals("0", value(standby, "SELECT count(*) FROM ledger"));
        }
    }

    private static String value(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
