package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * readRouting=replicas with read-your-writes: a logical connection's read-only transaction sees what the
 * connection committed before, even while the standby has not replayed it (replay paused), and reads that follow
 * no write of their own still run on the standby.
 */
class ReadYourWritesTest {
    private static final AtomicInteger VALUES = new AtomicInteger();
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

    /** Pauses the standby's replay once it has replayed everything written so far. */
    private static void pauseReplay() throws SQLException {
        pair.awaitStandbyCaughtUp();
        standby("SELECT pg_wal_replay_pause()");
    }

    private static Connection connect(String settings) throws SQLException {
        return DriverManager.getConnection("jdbc:pgmux:postgresql://" + pair.hostList()
                + "/postgres?readRouting=replicas&replicaCheckPeriod=100" + settings, pair.superuser(), "");
    }

    private static void insert(Connection c, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger VALUES (?)")) {
            ps.setInt(1, n);
            assertEquals(1, ps.executeUpdate());
        }
    }

    /** In one read-only transaction: whether it ran on a standby, and how many rows hold {@code n}. */
    private static String readOnly(Connection c, int n) throws SQLException {
        c.setReadOnly(true);
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT pg_is_in_recovery(), (SELECT count(*) FROM ledger WHERE n = ?)")) {
            ps.setInt(1, n);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return (rs.getBoolean(1) ? "standby" : "primary") + ", " + rs.getInt(2) + " row";
            }
        } finally {
            if (!c.getAutoCommit()) {
                c.commit();
            }
            c.setReadOnly(false);
        }
    }

    @Test
    void aCommittedWriteIsSeenByTheNextReadWhileTheStandbyHasNotReplayedIt() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection c = connect("")) {
            pauseReplay();
            c.setAutoCommit(false);
            insert(c, n);
            c.commit();

            assertEquals("primary, 1 row", readOnly(c, n));
        }
    }

    @Test
    void anAutoCommitWriteIsSeenByTheNextReadWhileTheStandbyHasNotReplayedIt() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection c = connect("")) {
            pauseReplay();
            insert(c, n);

            assertEquals("primary, 1 row", readOnly(c, n));
        }
    }

    @Test
    void aReadWaitsForTheStandbyToReplayTheWriteWithinReplicaWaitTimeout() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection c = connect("&replicaWaitTimeout=20s")) {
            c.setAutoCommit(false);
            insert(c, n);
            c.commit();

            assertEquals("standby, 1 row", readOnly(c, n));
        }
    }

    @Test
    void everyReadSeesTheWriteJustBeforeItWhileTheStandbyReplaysBehind() throws SQLException {
        try (Connection c = connect("")) {
            for (int i = 0; i < 50; i++) {
                int n = VALUES.incrementAndGet();
                insert(c, n);
                String read = readOnly(c, n);
                assertTrue(read.endsWith(", 1 row"), "read " + i + " after its write: " + read);
            }
        }
    }

    @Test
    void aCommitThatFailsAtCommitTimeGetsTheServersErrorAndKeepsNothing() throws SQLException {
        pair.executeOnPrimary("CREATE TABLE IF NOT EXISTS once (n int UNIQUE DEFERRABLE INITIALLY DEFERRED)");
        try (Connection c = connect("")) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO once VALUES (1), (1)");
            }
            SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("23505", e.getSQLState());
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM once")) {
                rs.next();
                assertEquals(0, rs.getInt(1));
            }
            c.commit();
        }
    }

    @Test
    void aCommitUnderPgjdbcsAutosaveIsSeenByTheNextRead() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection c = connect("&autosave=always")) {
            pauseReplay();
            c.setAutoCommit(false);
            insert(c, n);
            c.commit();

            assertEquals("primary, 1 row", readOnly(c, n));
            assertEquals("primary, 1 row", readOnly(c, n));
        }
    }

    @Test
    void readsAfterATransactionThatWroteNothingStayOnTheStandby() throws SQLException {
        try (Connection c = connect("")) {
            pauseReplay();
            c.setAutoCommit(false);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger")) {
                rs.next();
            }
            c.commit();

            assertEquals("standby, 0 row", readOnly(c, -1));
        }
    }

    @Test
    void anotherConnectionsReadsStayOnTheStandbyWhileItsOwnWritesWait() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection writer = connect(""); Connection reader = connect("")) {
            pauseReplay();
            insert(writer, n);

            assertEquals("standby, 0 row", readOnly(reader, n));
            assertEquals("primary, 1 row", readOnly(writer, n));
        }
    }

    @Test
    void withReadYourWritesOffTheReadRunsOnTheStandbyThatHasNotReplayedTheWrite() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection c = connect("&readYourWrites=false")) {
            pauseReplay();
            insert(c, n);

            assertEquals("standby, 0 row", readOnly(c, n));
        }
    }
}
