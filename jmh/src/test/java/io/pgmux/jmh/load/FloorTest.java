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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each floor pooler lends a server per transaction and queues clients, over the fixture's PostgreSQL. */
@PostgresTest
class FloorTest {
    private final TestDatabase db;

    FloorTest(TestDatabase db) {
        this.db = db;
    }

    private Floor floor(String kind, int poolSize) throws IOException, InterruptedException {
        return floor(kind, db.name(), poolSize);
    }

    private Floor floor(String kind, String database, int poolSize) throws IOException, InterruptedException {
        return switch (kind) {
            case "netty" -> NettyFloor.start(0, db.host(), db.port(), database, db.superuser(),
                    db.superuserPassword(), poolSize);
            case "socket" -> SocketFloor.start(0, db.host(), db.port(), database, db.superuser(),
                    db.superuserPassword(), poolSize);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** Any user and password: a floor lets every client in. */
    private Connection connect(Floor floor) throws SQLException {
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

    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aClientWaitsForTheOneServerUntilTheTransactionHoldingItEnds(String kind) throws Exception {
        try (Floor floor = floor(kind, 1); Connection a = connect(floor); Connection b = connect(floor)) {
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

    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void manyClientsTakeTurnsOnFewServersOneTransactionAtATime(String kind) throws Exception {
        Set<Integer> backends = ConcurrentHashMap.newKeySet();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try (Floor floor = floor(kind, 2)) {
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

    /** 24 MB: more than the sockets' buffers take at once, so the floor keeps what the client has not read yet. */
    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aResultLargerThanTheSocketBuffersArrivesWholeAndTheServerServesOnAfterIt(String kind) throws Exception {
        try (Floor floor = floor(kind, 1); Connection a = connect(floor); Connection b = connect(floor)) {
            long bytes = 0;
            int rows = 0;
            try (Statement s = a.createStatement();
                    ResultSet rs = s.executeQuery("SELECT i, repeat('x', 1000) FROM generate_series(1, 24000) i")) {
                while (rs.next()) {
                    rows++;
                    assertEquals(rows, rs.getInt(1));
                    bytes += rs.getString(2).length();
                }
            }
            assertEquals(24_000, rows);
            assertEquals(24_000_000L, bytes);
            assertEquals(backendPid(a), backendPid(b), "the one server went back to the pool after the result");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aClientThatLeavesBetweenTransactionsLeavesItsServerToTheNext(String kind) throws Exception {
        try (Floor floor = floor(kind, 1)) {
            int first;
            try (Connection a = connect(floor)) {
                first = backendPid(a);
            }
            try (Connection b = connect(floor)) {
                assertEquals(first, backendPid(b));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aServerThatRefusesTheLoginFailsTheStartWithItsMessage(String kind) {
        IOException e = assertThrows(IOException.class, () -> floor(kind, "no_such_database", 1).close());
        assertTrue(e.getMessage().contains("\"no_such_database\" does not exist"), e.getMessage());
    }
}
