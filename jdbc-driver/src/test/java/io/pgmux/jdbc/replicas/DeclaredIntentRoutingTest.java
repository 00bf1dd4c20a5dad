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
 * readRouting=replicas for intent declared in SQL rather than with setReadOnly: BEGIN READ ONLY in auto-commit
 * mode routes its transaction, as SET TRANSACTION READ ONLY does as the first statement of a transaction with
 * auto-commit off; default_transaction_read_only and SET SESSION CHARACTERISTICS route the logical connection's
 * transactions until set back, without leaving the setting on a pooled server connection.
 */
class DeclaredIntentRoutingTest {
    private static StandbyPair pair;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    /** One server connection per pool, so that a setting left behind would reach the next borrower. */
    private static Connection routed() throws SQLException {
        return DriverManager.getConnection("jdbc:pgmux:postgresql://" + pair.hostList()
                + "/postgres?readRouting=replicas&maximumPoolSize=1", pair.superuser(), "");
    }

    private static String one(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static boolean inRecovery(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    @Test
    void beginReadOnlyInAutoCommitRunsItsTransactionOnTheStandby() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("begin read only");
            assertTrue(inRecovery(st));
            st.execute("COMMIT");
            assertFalse(inRecovery(st));
        }
    }

    @Test
    void startTransactionWithAnIsolationLevelAndReadOnlyRunsOnTheStandby() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            assertTrue(inRecovery(st));
            assertEquals("repeatable read", one(st, "SHOW transaction_isolation"));
            st.execute("COMMIT");
        }
    }

    @Test
    void aPlainBeginRunsOnThePrimary() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("BEGIN");
            assertFalse(inRecovery(st));
            assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (1)"));
            st.execute("COMMIT");
        }
    }

    @Test
    void defaultTransactionReadOnlyRoutesUntilItIsSetBack() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("SET default_transaction_read_only = on");
            assertTrue(c.isReadOnly());
            assertTrue(inRecovery(st));
            assertTrue(inRecovery(st));
            st.execute("SET default_transaction_read_only TO off");
            assertFalse(c.isReadOnly());
            assertFalse(inRecovery(st));
            assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (2)"));
        }
    }

    @Test
    void sessionCharacteristicsReadOnlyRoutesUntilReadWrite() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
            assertTrue(inRecovery(st));
            st.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE");
            assertFalse(inRecovery(st));
        }
    }

    @Test
    void resetDefaultTransactionReadOnlyReturnsToThePoolsDefault() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("SET default_transaction_read_only = on");
            st.execute("RESET default_transaction_read_only");
            assertFalse(inRecovery(st));
        }
    }

    @Test
    void theSettingStaysWithItsLogicalConnectionNotWithTheServerConnection() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("SET default_transaction_read_only = off");
            try (Connection other = routed(); Statement o = other.createStatement()) {
                assertEquals("off", one(o, "SHOW default_transaction_read_only"));
            }
            st.execute("SET default_transaction_read_only = on");
            try (Connection other = routed(); Statement o = other.createStatement()) {
                assertFalse(inRecovery(o));
                assertEquals("off", one(o, "SHOW default_transaction_read_only"));
                assertEquals(1, o.executeUpdate("INSERT INTO ledger VALUES (3)"));
            }
        }
    }

    @Test
    void aWriteAfterDefaultTransactionReadOnlyGetsTheServersError() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            st.execute("SET default_transaction_read_only = on");
            SQLException e = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO ledger VALUES (4)"));
            assertEquals("25006", e.getSQLState());
        }
    }

    @Test
    void setTransactionReadOnlyFirstRunsThatTransactionOnTheStandby() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SET TRANSACTION READ ONLY");
            assertTrue(inRecovery(st));
            c.commit();
            assertFalse(inRecovery(st));
            assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (5)"));
            c.commit();
        }
    }

    @Test
    void setTransactionWithAnIsolationLevelAndReadOnlyFirstRunsOnTheStandby() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("set  transaction isolation level repeatable read, read only, not deferrable");
            assertTrue(inRecovery(st));
            assertEquals("repeatable read", one(st, "SHOW transaction_isolation"));
            c.rollback();
        }
    }

    @Test
    void setTransactionReadWriteFirstStaysOnThePrimary() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SET TRANSACTION READ WRITE");
            assertFalse(inRecovery(st));
            assertEquals(1, st.executeUpdate("INSERT INTO ledger VALUES (6)"));
            c.commit();
        }
    }

    @Test
    void setTransactionReadOnlyAfterAnotherStatementCannotMoveItsTransaction() throws SQLException {
        try (Connection c = routed(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            assertFalse(inRecovery(st));
            st.execute("SET TRANSACTION READ ONLY");
            assertFalse(inRecovery(st));
            SQLException e = assertThrows(SQLException.class, () -> st.executeUpdate("INSERT INTO ledger VALUES (7)"));
            assertEquals("25006", e.getSQLState());
            c.rollback();
        }
    }
}
