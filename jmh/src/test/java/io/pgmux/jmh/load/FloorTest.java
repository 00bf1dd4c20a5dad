package io.pgmux.jmh.load;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
        return connect(floor, "disable");
    }

    /** A floor that stops answering fails the test within 20 s instead of blocking its read. */
    private Connection connect(Floor floor, String sslmode) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "anyone");
        p.setProperty("password", "anything");
        p.setProperty("sslmode", sslmode);
        p.setProperty("prepareThreshold", "0");
        p.setProperty("socketTimeout", "20");
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
            assertEquals(2, backends.size(), backends + ": eight clients kept busy both servers of the pool");
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

    /** 1 MB: more than a floor keeps in one spare buffer, and more than the server's socket takes at once. */
    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aLargeRequestOfAClientThatWaitsIsSentWholeOnceAServerIsFree(String kind) throws Exception {
        try (Floor floor = floor(kind, 1); Connection a = connect(floor); Connection b = connect(floor)) {
            a.setAutoCommit(false);
            backendPid(a);
            String text = "x".repeat(1_000_000);
            CompletableFuture<Integer> length = CompletableFuture.supplyAsync(() -> {
                try (Statement s = b.createStatement();
                        ResultSet rs = s.executeQuery("SELECT length('" + text + "')")) {
                    rs.next();
                    return rs.getInt(1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThrows(TimeoutException.class, () -> length.get(300, MILLISECONDS),
                    "the waiting client's request ran while the only server was in another's transaction");
            a.commit();
            assertEquals(1_000_000, length.get(20, SECONDS));
        }
    }

    /**
     * A query whose header is sent one byte per write, so that the floor reads it across several reads, is answered,
     * and the server goes back to the pool at its end. Its length, over 255, takes two bytes of the header.
     */
    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aQueryWhoseHeaderIsReadOneByteAtATimeIsAnsweredAndItsServerGivenBack(String kind) throws Exception {
        try (Floor floor = floor(kind, 1); Socket raw = new Socket("127.0.0.1", floor.port())) {
            raw.setTcpNoDelay(true);
            raw.setSoTimeout(20_000);
            OutputStream out = raw.getOutputStream();
            DataInputStream in = new DataInputStream(raw.getInputStream());
            out.write(RawLogin.startupPacket(db.name(), "anyone"));
            out.flush();
            readUntilReadyForQuery(in);
            byte[] sql = ("SELECT length('" + "x".repeat(300) + "')\0").getBytes(StandardCharsets.US_ASCII);
            byte[] query = ByteBuffer.allocate(5 + sql.length).put((byte) 'Q').putInt(4 + sql.length)
                    .put(sql).array();
            for (int i = 0; i < 8; i++) {
                out.write(query[i]);
                out.flush();
                Thread.sleep(5);
            }
            out.write(query, 8, query.length - 8);
            out.flush();
            assertEquals("300", readUntilReadyForQuery(in));
            try (Connection next = connect(floor)) {
                assertTrue(backendPid(next) > 0, "the one server went back to the pool");
            }
        }
    }

    /** The messages up to a ReadyForQuery; the first column of the last DataRow, if any. */
    private static String readUntilReadyForQuery(DataInputStream in) throws IOException {
        String value = null;
        while (true) {
            char type = (char) in.readUnsignedByte();
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            if (type == 'D') {
                ByteBuffer row = ByteBuffer.wrap(body);
                row.getShort();
                int length = row.getInt();
                value = new String(body, row.position(), length, StandardCharsets.US_ASCII);
            } else if (type == 'E') {
                throw new IOException("ErrorResponse: " + new String(body, StandardCharsets.UTF_8));
            } else if (type == 'Z') {
                return value;
            }
        }
    }

    /** pgbench's and libpq's default: SSLRequest first, answered N, then the startup packet. */
    @ParameterizedTest
    @ValueSource(strings = {"netty", "socket"})
    void aClientThatAsksForTlsFirstIsToldNoAndLogsIn(String kind) throws Exception {
        try (Floor floor = floor(kind, 1); Connection c = connect(floor, "prefer")) {
            assertTrue(backendPid(c) > 0);
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
