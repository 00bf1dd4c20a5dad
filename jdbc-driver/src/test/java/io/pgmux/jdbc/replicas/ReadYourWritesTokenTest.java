package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxConnection;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read-your-writes token carries one connection's guarantee to another pool (another process alike): a
 * connection of a second PgMuxDataSource that applies the token of the first's write reads that write even while
 * the standby has not replayed it; a garbled, forged or foreign token is refused with 22023 and changes nothing.
 */
@PostgresTest
class ReadYourWritesTokenTest {
    private static final AtomicInteger VALUES = new AtomicInteger(1000);
    private static StandbyPair pair;
    private final TestDatabase otherCluster;
    private PgMuxDataSource writer;
    private PgMuxDataSource reader;

    ReadYourWritesTokenTest(TestDatabase otherCluster) {
        this.otherCluster = otherCluster;
    }

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @BeforeEach
    void twoPools() {
        writer = dataSource();
        reader = dataSource();
    }

    @AfterEach
    void resumeReplay() throws SQLException {
        writer.close();
        reader.close();
        standby("SELECT pg_wal_replay_resume()");
        pair.awaitStandbyCaughtUp();
    }

    private static PgMuxDataSource dataSource() {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl("jdbc:postgresql://" + pair.hostList() + "/postgres?readRouting=replicas&replicaCheckPeriod=100");
        ds.setUsername(pair.superuser());
        return ds;
    }

    private static void standby(String sql) throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static void pauseReplay() throws SQLException {
        pair.awaitStandbyCaughtUp();
        standby("SELECT pg_wal_replay_pause()");
    }

    /** Inserts {@code n} in a transaction committed with commit(), and returns the connection's token after it. */
    private String writeAndTakeToken(int n) throws SQLException {
        try (Connection c = writer.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger VALUES (?)")) {
                ps.setInt(1, n);
                ps.executeUpdate();
            }
            c.commit();
            return c.unwrap(PgMuxConnection.class).readYourWritesToken();
        }
    }

    /** Whether a read-only transaction of {@code c} finds {@code n}. */
    private static boolean reads(Connection c, int n) throws SQLException {
        c.setReadOnly(true);
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM ledger WHERE n = ?")) {
            ps.setInt(1, n);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    @Test
    void aConnectionOfAnotherPoolThatAppliesTheTokenReadsTheWrite() throws SQLException {
        pauseReplay();
        int n = VALUES.incrementAndGet();
        String token = writeAndTakeToken(n);
        try (Connection c = reader.getConnection()) {
            c.unwrap(PgMuxConnection.class).applyReadYourWritesToken(token);
            assertTrue(reads(c, n));
        }
    }

    @Test
    void withoutTheTokenAConnectionOfAnotherPoolMayReadTheStandbysOlderData() throws SQLException {
        pauseReplay();
        int n = VALUES.incrementAndGet();
        writeAndTakeToken(n);
        try (Connection c = reader.getConnection()) {
            assertFalse(reads(c, n));
        }
    }

    @Test
    void theTokenIsFitForAnHttpHeader() throws SQLException {
        String token = writeAndTakeToken(VALUES.incrementAndGet());
        assertTrue(token.matches("[A-Za-z0-9.-]+"), token);
    }

    @Test
    void aGarbledTokenIsRefusedAndChangesNothing() throws SQLException {
        pauseReplay();
        String token = writeAndTakeToken(VALUES.incrementAndGet());
        char last = token.charAt(token.length() - 8);
        String garbled = token.substring(0, token.length() - 8) + (last == '0' ? '1' : '0') + token.substring(token.length() - 7);
        try (Connection c = reader.getConnection()) {
            PgMuxConnection p = c.unwrap(PgMuxConnection.class);
            for (String bad : new String[] {garbled, "", "ryw1.x.1.0.0", "hello", token.replace("ryw1", "ryw9")}) {
                SQLException e = assertThrows(SQLException.class, () -> p.applyReadYourWritesToken(bad));
                assertEquals("22023", e.getSQLState(), e.getMessage());
            }
            c.setReadOnly(true);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
                rs.next();
                assertTrue(rs.getBoolean(1), "a refused token made the reads wait for the primary");
            }
        }
    }

    @Test
    void aTokenNamingAPositionThePrimaryHasNotReachedIsRefused() throws SQLException {
        String token = writeAndTakeToken(VALUES.incrementAndGet());
        String[] f = token.split("\\.");
        String forged = "ryw1." + f[1] + "." + f[2] + ".7fffffffffffffff";
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(forged.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        try (Connection c = reader.getConnection()) {
            SQLException e = assertThrows(SQLException.class, () -> c.unwrap(PgMuxConnection.class)
                    .applyReadYourWritesToken(forged + "." + Long.toHexString(crc.getValue())));
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("the primary has not reached"), e.getMessage());
        }
    }

    @Test
    void aTokenOfAnotherClusterIsRefused() throws SQLException {
        PgMuxDataSource elsewhere = new PgMuxDataSource();
        elsewhere.setJdbcUrl(otherCluster.jdbcUrl() + "?readRouting=replicas");
        elsewhere.setUsername(otherCluster.superuser());
        elsewhere.setPassword(otherCluster.superuserPassword());
        String foreign;
        try (Connection c = elsewhere.getConnection()) {
            foreign = c.unwrap(PgMuxConnection.class).readYourWritesToken();
        } finally {
            elsewhere.close();
        }
        try (Connection c = reader.getConnection()) {
            SQLException e = assertThrows(SQLException.class,
                    () -> c.unwrap(PgMuxConnection.class).applyReadYourWritesToken(foreign));
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("another cluster"), e.getMessage());
        }
    }
}
