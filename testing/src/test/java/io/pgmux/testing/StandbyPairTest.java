package io.pgmux.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class StandbyPairTest {

    @Test
    void standbyReplaysThePrimaryThenTakesOverWhenPromoted() throws SQLException {
        try (StandbyPair pair = StandbyPair.start()) {
            pair.executeOnPrimary("CREATE TABLE replicated (n int)", "INSERT INTO replicated VALUES (42)");
            pair.awaitStandbyCaughtUp();
            try (Connection standby = pair.connect(pair.standbyPort(), "postgres")) {
                assertTrue(inRecovery(standby));
                assertEquals(42, intValue(standby, "SELECT n FROM replicated"));
            }

            pair.promoteStandby();
            pair.stopPrimary();

            try (Connection promoted = pair.connect(pair.standbyPort(), "postgres")) {
                assertFalse(inRecovery(promoted));
                assertEquals(1, promoted.createStatement().executeUpdate("INSERT INTO replicated VALUES (43)"));
            }
            assertThrows(SQLException.class, () -> pair.connect(pair.primaryPort(), "postgres").close());
        }
    }

    @Test
    void twoStandbysBothReplayAWriteOfThePrimary() throws SQLException {
        try (StandbyPair set = StandbyPair.withStandbys(2)) {
            set.executeOnPrimary("CREATE TABLE replicated (n int)", "INSERT INTO replicated VALUES (7)");
            set.awaitStandbyCaughtUp();
            for (int i = 0; i < 2; i++) {
                try (Connection standby = set.connect(set.standbyPort(i), "postgres")) {
                    assertTrue(inRecovery(standby), "standby " + i);
                    assertEquals(7, intValue(standby, "SELECT n FROM replicated"), "standby " + i);
                }
            }
            assertEquals(set.host() + ":" + set.primaryPort() + "," + set.host() + ":" + set.standbyPort(0) + ","
                    + set.host() + ":" + set.standbyPort(1), set.hostList());
        }
    }

    @Test
    void aStandbyStoppedImmediatelyRefusesLoginsWhileTheOtherStillReplays() throws SQLException {
        try (StandbyPair set = StandbyPair.withStandbys(2)) {
            set.stopStandbyImmediately(1);
            set.executeOnPrimary("CREATE TABLE replicated (n int)", "INSERT INTO replicated VALUES (8)");
            set.awaitStandbyCaughtUp();

            assertThrows(SQLException.class, () -> set.connect(set.standbyPort(1), "postgres").close());
            try (Connection standby = set.connect(set.standbyPort(0), "postgres")) {
                assertEquals(8, intValue(standby, "SELECT n FROM replicated"));
            }
        }
    }

    private static boolean inRecovery(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet row = st.executeQuery("SELECT pg_is_in_recovery()")) {
            row.next();
            return row.getBoolean(1);
        }
    }

    private static int intValue(Connection c, String query) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet row = st.executeQuery(query)) {
            row.next();
            return row.getInt(1);
        }
    }
}
