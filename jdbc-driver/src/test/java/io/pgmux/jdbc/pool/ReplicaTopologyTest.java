package io.pgmux.jdbc.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.Replica;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With readRouting=replicas a pool knows every host of its URL's list, which of them are standbys and how far
 * each has replayed, from checks that follow a promotion.
 */
class ReplicaTopologyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private StandbyPair pair;
    private JdbcPool pool;

    @BeforeEach
    void startPair() {
        pair = StandbyPair.start();
    }

    @AfterEach
    void stop() {
        if (pool != null) {
            pool.close();
        }
        if (pair != null) {
            pair.close();
        }
    }

    private JdbcPool open(ReadRouting routing) {
        Properties properties = new Properties();
        properties.setProperty("user", pair.superuser());
        pool = new JdbcPool(JdbcPoolSettings.builder()
                .targetUrl("jdbc:postgresql://" + pair.hostList() + "/postgres")
                .driverProperties(properties)
                .poolKey("postgres", pair.superuser())
                .poolConfig(PoolConfig.jdbcDefaults().build())
                .readRouting(routing)
                .replicaCheckPeriod(Duration.ofMillis(100))
                .build());
        return pool;
    }

    private Replica<PhysicalConnection> host(int port) {
        return pool.replicas().replicas().stream()
                .filter(r -> r.host().equals(pair.host() + ":" + port)).findFirst().orElseThrow();
    }

    @Test
    void theStandbyOfTheHostListIsFoundAndThePrimaryIsNot() {
        open(ReadRouting.REPLICAS);

        assertEquals(List.of(pair.host() + ":" + pair.primaryPort(), pair.host() + ":" + pair.standbyPort()),
                pool.replicas().replicas().stream().map(Replica::host).toList());
        assertTrue(host(pair.standbyPort()).isStandby());
        assertFalse(host(pair.primaryPort()).isStandby());
    }

    @Test
    void aPromotedStandbyLeavesTheReadSetWithoutARestart() {
        open(ReadRouting.REPLICAS);
        assertTrue(pool.replicas().hasStandby());

        pair.promoteStandby();

        Await.until(() -> !host(pair.standbyPort()).isStandby(), WAIT, "the promoted standby left the read set");
        assertNull(pool.replicas().pick(0));
    }

    @Test
    void theStandbysReplayPositionFollowsThePrimarysWrites() throws SQLException {
        open(ReadRouting.REPLICAS);
        pair.executeOnPrimary("CREATE TABLE ledger (n int)", "INSERT INTO ledger VALUES (1)");
        long written;
        try (Connection c = pair.connect(pair.primaryPort(), "postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
            rs.next();
            written = Lsn.parse(rs.getString(1));
        }

        Await.until(() -> Lsn.reached(host(pair.standbyPort()).replayLsn(), written), WAIT,
                "the standby's checked replay position reached " + Lsn.format(written));
    }

    @Test
    void withoutReadRoutingThePoolKnowsNoReplicas() {
        open(ReadRouting.OFF);

        assertNull(pool.replicas());
    }
}
