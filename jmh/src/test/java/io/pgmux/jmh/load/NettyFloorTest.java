package io.pgmux.jmh.load;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The floor pooler lends a server per transaction and queues clients, over the fixture's PostgreSQL. */
@PostgresTest
class NettyFloorTest {
    private final TestDatabase db;

    NettyFloorTest(TestDatabase db) {
        this.db = db;
    }

    private NettyFloor floor(int poolSize) throws IOException, InterruptedException {
        return NettyFloor.start(0, db.host(), db.port(), db.name(), db.superuser(), db.superuserPassword(), poolSize);
    }

    /** Any user and password: the floor lets every client in. */
    private Connection connect(NettyFloor floor) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "anyone");
        p.setProperty("password", "anything");
        p.setProperty("sslmode", "disable");
        p.setProperty("prepareThreshold", "0");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + floor.port() + "/" + db.name(), p);
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aClientWaitsForTheOneServerUntilTheTransactionHoldingItEnds() throws Exception {
        try (NettyFloor floor = floor(1); Connection a = connect(floor); Connection b = connect(floor)) {
            a.setAutoCommit(false);
            int first = backendPid(a);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> {
                try {
                    return backendPid(b);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThrows(TimeoutException.class, () -> second.get(300, MILLISECONDS),
                    "the second client ran while the first held the only server in a transaction");
            a.commit();
            assertEquals(first, second.get(10, SECONDS));
        }
    }

    @Test
    void manyClientsTakeTurnsOnFewServersOneTransactionAtATime() throws Exception {
        Set<Integer> backends = ConcurrentHashMap.newKeySet();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try (NettyFloor floor = floor(2)) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(threads.submit(() -> {
                    try (Connection c = connect(floor)) {
                        c.setAutoCommit(false);
                        for (int i = 0; i < 50; i++) {
                            int pid = backendPid(c);
                            backends.add(pid);
                            // a transaction keeps its server: the same backend answers again before the commit
                            assertEquals(pid, backendPid(c));
                            c.commit();
                        }
                        return 50;
                    }
                }));
            }
            int transactions = 0;
            for (Future<Integer> f : done) {
                transactions += f.get(60, SECONDS);
            }
            assertEquals(400, transactions);
            assertTrue(backends.size() <= 2, backends + " backends for a pool of 2");
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aServerThatRefusesTheLoginFailsTheStartWithItsMessage() {
        IOException e = assertThrows(IOException.class, () -> NettyFloor.start(0, db.host(), db.port(),
                "no_such_database", db.superuser(), db.superuserPassword(), 1).close());
        assertTrue(e.getMessage().contains("\"no_such_database\" does not exist"), e.getMessage());
    }
}
