package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * readRouting=replicas over a primary and its streaming standby: a transaction declared read-only runs on the
 * standby, every other one on the primary, whichever order the host list names them in.
 */
class ReadRoutingTest {
    private static StandbyPair pair;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    private static Connection connect(String hostList, String settings) throws SQLException {
        return DriverManager.getConnection("jdbc:pgmux:postgresql://" + hostList + "/postgres" + settings,
                pair.superuser(), "");
    }

    private static Connection routed() throws SQLException {
        return connect(pair.hostList(), "?readRouting=replicas");
    }

    /** Whether the transaction of {@code c} runs on a standby, asked inside it. */
    private static boolean inRecovery(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    @Test
    void aReadOnlyTransactionRunsOnTheStandby() throws SQLException {
        try (Connection c = routed()) {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            assertTrue(inRecovery(c));
            c.commit();
        }
    }

    @Test
    void aTransactionNotDeclaredReadOnlyRunsOnThePrimary() throws SQLException {
        try (Connection c = routed()) {
            c.setAutoCommit(false);
            assertFalse(inRecovery(c));
            try (Statement st = c.createStatement()) {
                assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (1)"));
            }
            c.commit();
        }
    }

    @Test
    void oneLogicalConnectionMovesBetweenStandbyAndPrimaryWithItsDeclaredIntent() throws SQLException {
        try (Connection c = routed()) {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            assertTrue(inRecovery(c));
            c.commit();
            c.setReadOnly(false);
            assertFalse(inRecovery(c));
            c.commit();
            c.setReadOnly(true);
            assertTrue(inRecovery(c));
            c.commit();
        }
    }

    @Test
    void theHostListMayNameTheStandbyFirst() throws SQLException {
        String standbyFirst = pair.host() + ":" + pair.standbyPort() + "," + pair.host() + ":" + pair.primaryPort();
        try (Connection c = connect(standbyFirst, "?readRouting=replicas")) {
            c.setReadOnly(true);
            assertTrue(inRecovery(c));
            c.setReadOnly(false);
            assertFalse(inRecovery(c));
        }
    }

    @Test
    void aWriteInAReadOnlyTransactionGetsTheServersError() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            c.setReadOnly(true);
            SQLException e = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO ledger VALUES (2)"));
            assertEquals("25006", e.getSQLState());
        }
    }

    @Test
    void aHostListWithNoPrimaryFailsThePoolsStartWithPgjdbcsError() {
        String standbyOnly = pair.host() + ":" + pair.standbyPort();
        // the pool tries the refused login again until connectionTimeout; each try has time to reach the standby
        // even on a loaded machine, so the last failure is pgjdbc's and not a connect timeout
        SQLException e = assertThrows(SQLException.class,
                () -> connect(standbyOnly, "?readRouting=replicas&serverConnectTimeout=10000&connectionTimeout=12000"));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("targetServerType"), e.getMessage());
    }

    @Test
    void withoutReadRoutingAReadOnlyTransactionRunsWhereTheUrlLeads() throws SQLException {
        try (Connection c = connect(pair.hostList(), "")) {
            c.setReadOnly(true);
            assertFalse(inRecovery(c));
        }
    }

    @Test
    void anUnknownReadRoutingIsRefusedWithItsValues() {
        SQLException e = assertThrows(SQLException.class, () -> connect(pair.hostList(), "?readRouting=standbys"));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("readRouting=standbys: must be off or replicas"), e.getMessage());
    }
}
