package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A jdbc:pgmux: URL with pgjdbc's host list and targetServerType=primary follows the primary when the standby
 * is promoted and the old primary stops.
 */
class FailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private StandbyPair pair;

    @BeforeEach
    void startPair() {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE ledger (n int)");
        // a promotion before the standby replayed the table would lose it, which is not what the test is about
        pair.awaitStandbyCaughtUp();
    }

    @AfterEach
    void stopPair() {
        PgMuxDriver.closeAll();
        if (pair != null) {
            pair.close();
        }
    }

    private Connection connect() throws SQLException {
        // a login that fails is not retried for a minute: only the connector's own search can serve the client
        return DriverManager.getConnection("jdbc:pgmux:postgresql://" + pair.hostList()
                + "/postgres?targetServerType=primary&serverLoginRetry=60000&serverConnectTimeout=20000",
                pair.superuser(), "");
    }

    private static int insertAndReadPort(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO ledger VALUES (1)");
            try (ResultSet rs = st.executeQuery("SELECT inet_server_port()")) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void anIdleLogicalConnectionRunsItsNextTransactionOnThePromotedStandby() throws Exception {
        try (Connection c = connect()) {
            assertEquals(pair.primaryPort(), insertAndReadPort(c));

            pair.promoteStandby();
            pair.stopPrimary();

            assertEquals(pair.standbyPort(), insertAndReadPort(c));
        }
    }

    @Test
    void aLoginWhileNoHostIsPrimaryWaitsForThePromotionInsteadOfFailing() throws Exception {
        try (Connection c = connect()) {
            assertEquals(pair.primaryPort(), insertAndReadPort(c));
            pair.stopPrimary();
            int standbyLogins = pair.standbyLogins();
            CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
                try {
                    return insertAndReadPort(c);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // pgjdbc has found the standby not to be the primary at least once before it is promoted
            pair.awaitStandbyLogin(standbyLogins, port);
            pair.promoteStandby();

            assertEquals(pair.standbyPort(), port.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }
}
