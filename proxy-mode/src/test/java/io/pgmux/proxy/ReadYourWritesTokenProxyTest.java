package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.ReadYourWritesToken;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * read_your_writes across clients: a client of a read_routing = replicas entry gets a token naming the WAL position
 * after its write, as the ParameterStatus pgmux.read_your_writes_token; another client that sets it reads that write
 * even from a standby that has not replayed it.
 */
class ReadYourWritesTokenProxyTest {
    private static final String TOKEN = "pgmux.read_your_writes_token";
    private static final AtomicInteger VALUES = new AtomicInteger();
    private static StandbyPair pair;
    private static PgMuxProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        pair = SharedStandbyPair.withEmptyLedger();
        proxy = ReadRoutingTest.routingProxy(pair, " replica_wait_timeout=0");
        ReadRoutingTest.awaitStandbyRead(proxy);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @AfterEach
    void resumeReplay() throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_resume()");
        }
        pair.awaitStandbyCaughtUp();
    }

    private static void pauseReplay() throws SQLException {
        pair.awaitStandbyCaughtUp();
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement()) {
            st.execute("SELECT pg_wal_replay_pause()");
        }
    }

    private static Connection connect() throws SQLException {
        return ReadRoutingTest.connect(proxy, new Properties());
    }

    /** Writes {@code n} through {@code writer}; the token the proxy sent it, which pgjdbc reads with its next answer. */
    private static String write(Connection writer, int n) throws SQLException {
        try (Statement st = writer.createStatement()) {
            st.executeUpdate("INSERT INTO ledger VALUES (" + n + ")");
            st.execute("SELECT 1");
        }
        String token = writer.unwrap(PGConnection.class).getParameterStatus(TOKEN);
        assertNotNull(token, "no " + TOKEN + " after a write");
        return token;
    }

    /** Counts the rows of value {@code n} in a read-only transaction; where it ran and the count. */
    private static String countReadOnly(Connection c, int n) throws SQLException {
        c.setAutoCommit(false);
        c.setReadOnly(true);
        try (Statement st = c.createStatement()) {
            int count;
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM ledger WHERE n = " + n)) {
                rs.next();
                count = rs.getInt(1);
            }
            return ReadRoutingTest.where(st) + " " + count;
        } finally {
            c.commit();
            c.setReadOnly(false);
            c.setAutoCommit(true);
        }
    }

    private static void set(Connection c, String token) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SET " + TOKEN + " = '" + token + "'");
        }
    }

    @Test
    void theTokenNamesThePrimarysClusterAndTheWritesPositionInTheDriversFormat() throws SQLException {
        try (Connection writer = connect()) {
            ReadYourWritesToken token = ReadYourWritesToken.parse(write(writer, VALUES.incrementAndGet()));
            try (Connection c = pair.connect(pair.primaryPort(), "postgres"); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT system_identifier, (SELECT timeline_id FROM"
                         + " pg_control_checkpoint()), pg_current_wal_insert_lsn()::text FROM pg_control_system()")) {
                rs.next();
                assertEquals(rs.getLong(1), token.systemIdentifier());
                assertEquals(rs.getInt(2), token.timeline());
                assertEquals(true, Lsn.reached(Lsn.parse(rs.getString(3)), token.lsn()));
            }
        }
    }

    @Test
    void aClientThatSetsAnotherClientsTokenReadsItsWriteWhileTheStandbyHasNotReplayedIt() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection writer = connect(); Connection reader = connect()) {
            pauseReplay();
            String token = write(writer, n);
            set(reader, token);
            assertEquals("primary 1", countReadOnly(reader, n));
        }
    }

    @Test
    void withoutTheTokenAnotherClientsReadRunsOnTheStandbyAndMissesTheWrite() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection writer = connect(); Connection reader = connect()) {
            pauseReplay();
            write(writer, n);
            assertEquals("standby 0", countReadOnly(reader, n));
        }
    }

    @Test
    void aTokenGivenAsAStartupOptionCarriesTheGuarantee() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection writer = connect()) {
            pauseReplay();
            String token = write(writer, n);
            Properties options = new Properties();
            options.setProperty("options", "-c " + TOKEN + "=" + token);
            try (Connection reader = ReadRoutingTest.connect(proxy, options)) {
                assertEquals("primary 1", countReadOnly(reader, n));
            }
        }
    }

    @Test
    void aGarbledTokenSendsTheClientsReadsToThePrimaryNeverToAStaleStandby() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection writer = connect(); Connection reader = connect()) {
            pauseReplay();
            String token = write(writer, n);
            set(reader, token.substring(0, token.length() - 1) + (token.endsWith("0") ? "1" : "0"));
            assertEquals("primary 1", countReadOnly(reader, n));
        }
    }

    @Test
    void aTokenOfAnotherClusterSendsTheClientsReadsToThePrimary() throws SQLException {
        int n = VALUES.incrementAndGet();
        try (Connection writer = connect(); Connection reader = connect()) {
            pauseReplay();
            ReadYourWritesToken own = ReadYourWritesToken.parse(write(writer, n));
            set(reader, new ReadYourWritesToken(own.systemIdentifier() + 1, own.timeline(), 0).text());
            assertEquals("primary 1", countReadOnly(reader, n));
        }
    }
}
