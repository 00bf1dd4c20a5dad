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
