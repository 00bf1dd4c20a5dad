package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
 * readRouting=replicas when the standby is promoted before a check has seen it: a write sent in auto-commit mode
 * from a read-only connection, whose server connection dies after it, must not run twice (once on the promoted
 * standby, again where the read is sent once more).
 */
class StandbyPromotedUnderReadTest {
    private StandbyPair pair;

    @BeforeEach
    void startPair() {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE writes (n int)",
                "CREATE PROCEDURE write_then_die() LANGUAGE plpgsql AS $$ BEGIN INSERT INTO writes VALUES (1);"
                        + " COMMIT; PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END $$");
        pair.awaitStandbyCaughtUp();
    }

    @AfterEach
    void stopPair() {
        PgMuxDriver.closeAll();
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void aWriteFromAReadOnlyConnectionOnAStandbyPromotedUnderItRunsNowhere() throws Exception {
        String url = "jdbc:pgmux:postgresql://" + pair.hostList()
                + "/postgres?readRouting=replicas&replicaCheckPeriod=600000";
        SQLException e;
        try (Connection c = DriverManager.getConnection(url, pair.superuser(), "")) {
            c.setReadOnly(true);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
                rs.next();
                assertEquals(true, rs.getBoolean(1), "the read set has the standby");
            }
            pair.promoteStandby();
            e = assertThrows(SQLException.class, () -> {
                try (Statement st = c.createStatement()) {
                    st.execute("CALL write_then_die()");
                }
            });
        }
        assertEquals(0, count(pair.standbyPort()) + count(pair.primaryPort()), "rows written");
        assertEquals("25006", e.getSQLState(), "the server refused the write: " + e);
    }

    private int count(int port) throws SQLException {
        try (Connection c = pair.connect(port, "postgres"); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM writes")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
