package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Read-your-writes with several clients over two standbys that replay late (recovery_min_apply_delay): every
 * client commits a fresh value into its own row and reads the row back at once, read-only; not one read may be
 * older than its client's write. The benchmark of docs/benchmarks.md counts the same at 10,000 pairs.
 */
class ReadYourWritesAcrossStandbysTest {
    private static final int CLIENTS = 8;
    private static final int PAIRS_PER_CLIENT = 15;
    private static StandbyPair servers;

    @BeforeAll
    static void startServers() {
        servers = StandbyPair.withStandbys(2);
        servers.executeOnPrimary("CREATE TABLE own_rows (id int PRIMARY KEY, v bigint NOT NULL)",
                "INSERT INTO own_rows SELECT g, 0 FROM generate_series(1, " + CLIENTS + ") g");
        servers.awaitStandbyCaughtUp();
        for (int i = 0; i < servers.standbyCount(); i++) {
            servers.executeOnStandby(i, "ALTER SYSTEM SET recovery_min_apply_delay = '50ms'",
                    "SELECT pg_reload_conf()");
        }
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    /** How many of the clients' reads did not return the value the client had just committed. */
    private static long staleReads(String settings) throws Exception {
        String url = "jdbc:pgmux:postgresql://" + servers.hostList() + "/postgres?readRouting=replicas" + settings;
        AtomicLong values = new AtomicLong();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<Integer>> stale = new ArrayList<>();
            for (int id = 1; id <= CLIENTS; id++) {
                int row = id;
                stale.add(clients.submit(() -> writeThenRead(url, row, values)));
            }
            long total = 0;
            for (Future<Integer> f : stale) {
                total += f.get();
            }
            return total;
        } finally {
            clients.shutdownNow();
        }
    }

    private static int writeThenRead(String url, int row, AtomicLong values) throws SQLException {
        int stale = 0;
        try (Connection c = DriverManager.getConnection(url, servers.superuser(), "");
             PreparedStatement write = c.prepareStatement("UPDATE own_rows SET v = ? WHERE id = ?");
             PreparedStatement read = c.prepareStatement("SELECT v FROM own_rows WHERE id = ?")) {
            c.setAutoCommit(false);
            write.setInt(2, row);
            read.setInt(1, row);
            for (int i = 0; i < PAIRS_PER_CLIENT; i++) {
                long value = values.incrementAndGet();
                c.setReadOnly(false);
                write.setLong(1, value);
                write.executeUpdate();
                c.commit();
                c.setReadOnly(true);
                try (ResultSet rs = read.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) != value) {
                        stale++;
                    }
                }
                c.commit();
            }
        }
        return stale;
    }

    @Test
    void noClientReadsOlderThanItsOwnCommitWhileBothStandbysReplayLate() throws Exception {
        assertEquals(0, staleReads(""));
    }
}
