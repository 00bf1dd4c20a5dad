package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.StandbyPair;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * readRouting=replicas when the standby stops under read load (an immediate shutdown, as a crash): read-only
 * transactions that had not started on it run on the primary instead, and none of them fails.
 */
class StandbyStopTest {
    private static final int READERS = 4;
    private StandbyPair pair;

    @BeforeEach
    void startPair() {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE ledger (n int)", "INSERT INTO ledger SELECT generate_series(1, 100)");
        pair.awaitStandbyCaughtUp();
    }

    @AfterEach
    void stopPair() {
        PgMuxDriver.closeAll();
        if (pair != null) {
            pair.close();
        }
    }

    /** What {@code pg_ctl stop -m immediate} does: SIGQUIT to the standby's postmaster. */
    private void stopStandbyImmediately() throws SQLException, IOException, InterruptedException {
        String dataDirectory;
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW data_directory")) {
            rs.next();
            dataDirectory = rs.getString(1);
        }
        String pid = Files.readAllLines(Path.of(dataDirectory, "postmaster.pid")).get(0).trim();
        Process kill = new ProcessBuilder("kill", "-QUIT", pid).inheritIO().start();
        assertEquals(0, kill.waitFor());
        ProcessHandle.of(Long.parseLong(pid)).ifPresent(p -> p.onExit().join());
    }

    @Test
    void readsGoOnWithoutAnErrorWhenTheStandbyStops() throws Exception {
        String url = "jdbc:pgmux:postgresql://" + pair.hostList() + "/postgres?readRouting=replicas";
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger onStandby = new AtomicInteger();
        AtomicInteger onPrimaryAfterStop = new AtomicInteger();
        AtomicBoolean stopped = new AtomicBoolean();
        Queue<SQLException> errors = new ConcurrentLinkedQueue<>();
        ExecutorService readers = Executors.newFixedThreadPool(READERS);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < READERS; i++) {
            boolean inTransactions = i % 2 == 0;
            done.add(readers.submit(() -> {
                while (running.get()) {
                    try (Connection c = DriverManager.getConnection(url, pair.superuser(), "")) {
                        c.setReadOnly(true);
                        c.setAutoCommit(!inTransactions);
                        try (Statement st = c.createStatement();
                             ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery(), count(*) FROM ledger")) {
                            rs.next();
                            assertEquals(100, rs.getInt(2));
                            if (rs.getBoolean(1)) {
                                onStandby.incrementAndGet();
                            } else if (stopped.get()) {
                                onPrimaryAfterStop.incrementAndGet();
                            }
                        }
                        if (inTransactions) {
                            c.commit();
                        }
                    } catch (SQLException e) {
                        errors.add(e);
                    }
                }
                return null;
            }));
        }
        while (onStandby.get() < 200) {
            Thread.sleep(10);
        }
        stopStandbyImmediately();
        stopped.set(true);
        while (onPrimaryAfterStop.get() < 200) {
            Thread.sleep(10);
        }
        running.set(false);
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        readers.shutdown();
        errors.forEach(Throwable::printStackTrace);
        assertTrue(errors.isEmpty(), errors.size() + " reads failed, the first: " + errors.peek());
        assertFalse(onPrimaryAfterStop.get() == 0);
    }
}
