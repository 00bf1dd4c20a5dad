package io.pgmux.jmh.stub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.junit.jupiter.api.Test;

class StubPgConnectionTest {

    private static StubPgConnection open() {
        return (StubPgConnection) new StubPgDriver().connect(StubPgDriver.URL, new Properties());
    }

    @Test
    void staysIdleInAutocommitWhateverRuns() throws SQLException {
        StubPgConnection c = open();
        try (PreparedStatement ps = c.prepareStatement("SELECT 1"); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
        assertEquals(TransactionState.IDLE, c.getTransactionState());
    }

    @Test
    void opensATransactionWhenAStatementIsMadeWithAutocommitOff() throws SQLException {
        StubPgConnection c = open();
        c.setAutoCommit(false);
        assertEquals(TransactionState.IDLE, c.getTransactionState());
        c.prepareStatement("UPDATE t SET x = 1").executeUpdate();
        assertEquals(TransactionState.OPEN, c.getTransactionState());
    }

    @Test
    void commitEndsTheTransaction() throws SQLException {
        StubPgConnection c = open();
        c.setAutoCommit(false);
        c.createStatement().execute("UPDATE t SET x = 1");
        c.commit();
        assertEquals(TransactionState.IDLE, c.getTransactionState());
    }

    @Test
    void rollbackEndsTheTransaction() throws SQLException {
        StubPgConnection c = open();
        c.setAutoCommit(false);
        c.createStatement().execute("UPDATE t SET x = 1");
        c.rollback();
        assertEquals(TransactionState.IDLE, c.getTransactionState());
    }

    @Test
    void turningAutocommitOnEndsTheTransactionAsPgjdbcDoes() throws SQLException {
        StubPgConnection c = open();
        c.setAutoCommit(false);
        c.createStatement().execute("UPDATE t SET x = 1");
        c.setAutoCommit(true);
        assertEquals(TransactionState.IDLE, c.getTransactionState());
    }

    @Test
    void unwrapsToPgjdbcsBaseConnectionAsPgmuxAsksForIt() throws SQLException {
        StubPgConnection c = open();
        assertSame(c, c.unwrap(BaseConnection.class));
    }

    @Test
    void everyConnectionHasItsOwnBackendPid() {
        assertNotEquals(open().getBackendPID(), open().getBackendPID());
    }

    @Test
    void theDriverAnswersOnlyItsOwnUrls() {
        assertNull(new StubPgDriver().connect("jdbc:stub", new Properties()));
        assertNull(new StubPgDriver().connect("jdbc:postgresql://localhost/db", new Properties()));
    }
}
