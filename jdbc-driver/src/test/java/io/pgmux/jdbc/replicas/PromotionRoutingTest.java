package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * readRouting=replicas follows a promotion without a restart: the promoted standby is the primary of both kinds of
 * transaction.
 */
class PromotionRoutingTest {
    private StandbyPair pair;

    @BeforeEach
    void startPair() {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE ledger (n int)");
        pair.awaitStandbyCaughtUp();
    }

    @AfterEach
    void stopPair() {
        PgMuxDriver.closeAll();
        if (pair != null) {
            pair.close();
        }
    }

    /** pg_is_in_recovery() and the port of the server the transaction of {@code c} runs on. */
    private static String where(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery(), inet_server_port()")) {
            rs.next();
            return (rs.getBoolean(1) ? "standby" : "primary") + " on " + rs.getInt(2);
        }
    }

    @Test
    void afterAPromotionReadOnlyTransactionsRunOnThePromotedServerAsAPrimary() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:pgmux:postgresql://" + pair.hostList()
                + "/postgres?readRouting=replicas&replicaCheckPeriod=100&serverLoginRetry=60000"
                + "&serverConnectTimeout=20000", pair.superuser(), "")) {
            c.setReadOnly(true);
            assertEquals("standby on " + pair.standbyPort(), where(c));

            pair.stopPrimary();
            pair.promoteStandby();

            c.setReadOnly(false);
            try (Statement st = c.createStatement()) {
                assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (1)"));
            }
            assertEquals("primary on " + pair.standbyPort(), where(c));
            c.setReadOnly(true);
            assertEquals("primary on " + pair.standbyPort(), where(c));
        }
    }
}
