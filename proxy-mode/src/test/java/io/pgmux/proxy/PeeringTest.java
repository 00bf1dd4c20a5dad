package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Await;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PgBouncer's peering (issue 23, point 3): poolers behind one TCP load balancer, each with its peer_id and a
 * [peers] section naming the others by their own Unix socket. A cancel request the balancer sends to another
 * pooler than the one the client's session is on is forwarded to that one, and cancels the query.
 */
@PostgresTest
class PeeringTest {
    private static final String ADMIN = "admin";
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final String SLEEP = "SELECT pg_sleep(30)";
    private final TestDatabase db;
    private final List<PgMuxProxy> peers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    @TempDir
    Path dir;

    PeeringTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        peers.forEach(PgMuxProxy::close);
    }

    /**
     * Starts peers 1 to {@code count}, each on 127.0.0.1 at a port of its own and on a Unix socket in a directory of
     * its own, which the [peers] sections name; each names the others, and itself too when {@code ownEntry}.
     */
    private void startPeers(int count, boolean ownEntry) throws IOException {
        startPeers(count, ownEntry, "", "");
    }

    /**
     * @param entryOptions appended to each [peers] entry ({@code " pool_size=1"})
     * @param settings more [pgbouncer] lines
     */
    private void startPeers(int count, boolean ownEntry, String entryOptions, String settings) throws IOException {
        for (int i = 1; i <= count; i++) {
            ports.add(freePort());
            Files.createDirectories(socketDir(i));
        }
        for (int i = 1; i <= count; i++) {
            peers.add(ProxyConfigLoader.load(writeIni(i, count, ownEntry, entryOptions, settings))
                    .janitorPeriod(Duration.ofMillis(50)).drainTimeout(Duration.ofSeconds(2)).start());
        }
    }

    private Path writeIni(int id, int count, boolean ownEntry, String entryOptions, String settings)
            throws IOException {
        StringBuilder section = new StringBuilder("[peers]\n");
        for (int j = 1; j <= count; j++) {
            if (j != id || ownEntry) {
                section.append(j).append(" = host=").append(socketDir(j)).append(" port=").append(ports.get(j - 1))
                        .append(entryOptions).append('\n');
            }
        }
        ProxyFixture.writeUserlist(socketDir(id), ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD);
        return ProxyFixture.writeIni(socketDir(id).resolve("pgbouncer.ini"), db.name() + " = host=" + db.host()
                + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), ports.get(id - 1), "unix_socket_dir = " + socketDir(id) + "\nadmin_users = "
                + ADMIN + "\npeer_id = " + id + "\n" + settings + section);
    }

    private Path socketDir(int id) {
        return dir.resolve("peer" + id);
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    private static boolean listensOnTcp(int port) {
        try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    private Connection throughBalancer(RoundRobinBalancer balancer) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + balancer.port() + "/" + db.name(),
                ProxyFixture.USER, ProxyFixture.PASSWORD);
    }

    /** As {@link #throughBalancer}, with pgjdbc giving up a cancel after a second (its default is 10). */
    private Connection throughBalancerCancellingBriefly(RoundRobinBalancer balancer) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + balancer.port() + "/" + db.name()
                + "?cancelSignalTimeout=1", ProxyFixture.USER, ProxyFixture.PASSWORD);
    }

    /** Waits until the server runs {@link #SLEEP}. */
    private void awaitSleeping() throws SQLException {
        try (Connection direct = db.connect()) {
            Await.until(() -> "1".equals(Sql.value(direct, "SELECT count(*) FROM pg_stat_activity WHERE state ="
                    + " 'active' AND query = '" + SLEEP + "'")), Duration.ofSeconds(10), "the query runs");
        }
    }

    /** Runs {@link #SLEEP} on {@code statement} and cancels it with pgjdbc's cancel, on a connection of its own. */
    private SQLException sleepAndCancel(Statement statement) throws Exception {
        CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
            try {
                statement.execute(SLEEP);
            } catch (SQLException e) {
                throw new CompletionException(e);
            }
        });
        awaitSleeping();
        statement.cancel();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> run.get(20, TimeUnit.SECONDS));
        return (SQLException) failed.getCause();
    }

    @ParameterizedTest(name = "own entry in [peers]: {0}")
    @ValueSource(booleans = {false, true})
    void aPgjdbcCancelTheBalancerSendsToTheOtherPeerCancelsTheQuery(boolean ownEntry) throws Exception {
        startPeers(2, ownEntry);
        // the session goes to peer 1, its cancel request to peer 2
        try (RoundRobinBalancer balancer = new RoundRobinBalancer(ports); Connection client = throughBalancer(balancer);
                Statement statement = client.createStatement()) {
            SQLException cancelled = sleepAndCancel(statement);
            assertEquals("57014", cancelled.getSQLState(), cancelled.getMessage());
            assertEquals("still usable", Sql.value(client, "SELECT 'still usable'"));
        }
    }

    @Test
    void aPeerShuttingDownWithWaitForClientsStillGetsItsClientsCancelsFromTheOthers() throws Exception {
        startPeers(2, false);
        try (RoundRobinBalancer balancer = new RoundRobinBalancer(ports); Connection client = throughBalancer(balancer);
                Statement statement = client.createStatement()) {
            // a rolling restart: peer 1 stops listening on TCP and serves its client until it leaves
            CompletableFuture<Void> shutdown = CompletableFuture.runAsync(() -> {
                try {
                    peers.get(0).closeWaitForClients();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Await.until(() -> !listensOnTcp(ports.get(0)), Duration.ofSeconds(10), "peer 1 stops listening on TCP");
            SQLException cancelled = sleepAndCancel(statement);
            assertEquals("57014", cancelled.getSQLState(), cancelled.getMessage());
            assertEquals("still usable", Sql.value(client, "SELECT 'still usable'"));
            client.close();
            shutdown.get(20, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "console: {0}")
    @ValueSource(booleans = {false, true})
    void theKeysAPeerGivesCarryItsPeerIdInTheSecondAndThirdBytesAsPgBouncersDo(boolean console) throws Exception {
        startPeers(3, false);
        try (RawClient client = new RawClient(ports.get(2))) {
            client.login(console ? "pgbouncer" : db.name(), console ? ADMIN : ProxyFixture.USER,
                    console ? ADMIN_PASSWORD : ProxyFixture.PASSWORD);
            byte[] key = client.backendKey();
            assertEquals(3, key[1] & 0xFF | (key[2] & 0xFF) << 8);
            assertEquals(3, key[7] & 0x03, "a full TTL");
        }
    }

    @Test
    void psqlInterruptedThroughTheBalancerHasItsQueryCancelledByWayOfTheOtherPeer() throws Exception {
        startPeers(2, false);
        try (RoundRobinBalancer balancer = new RoundRobinBalancer(ports)) {
            Process psql = new ProcessBuilder(List.of(Clients.executable("psql", "install the PostgreSQL client"
                    + " tools (postgresql-client) to run this test").toString(), "-X", "-c", SLEEP,
                    "host=127.0.0.1 port=" + balancer.port() + " dbname=" + db.name() + " user=" + ProxyFixture.USER
                    + " password=" + ProxyFixture.PASSWORD)).redirectErrorStream(true).start();
            try {
                awaitSleeping();
                // psql's SIGINT handler sends the CancelRequest, as Ctrl-C does
                assertEquals(0, new ProcessBuilder("kill", "-INT", String.valueOf(psql.pid())).start().waitFor());
                assertTrue(psql.waitFor(20, TimeUnit.SECONDS), "psql ended");
                String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(output.contains("ERROR:  canceling statement due to user request"), output);
            } finally {
                psql.destroyForcibly();
            }
        }
    }

    @Test
    void showPeersListsTheEntriesWithDefaultPoolSizeForThoseWithoutTheirOwn() throws Exception {
        startPeers(3, false);
        try (Connection console = ProxyFixture.console(peers.get(0), ADMIN, ADMIN_PASSWORD)) {
            assertEquals(List.of(
                    Map.of("peer_id", "2", "host", socketDir(2).toString(), "port", ports.get(1).toString(),
                            "pool_size", "20"),
                    Map.of("peer_id", "3", "host", socketDir(3).toString(), "port", ports.get(2).toString(),
                            "pool_size", "20")),
                    ProxyFixture.rows(console, "SHOW PEERS"));
        }
    }

    @Test
    void showPeerPoolsOfThePeerThatForwardedACancelHasTheOwnersRow() throws Exception {
        startPeers(2, false);
        try (RoundRobinBalancer balancer = new RoundRobinBalancer(ports); Connection client = throughBalancer(balancer);
                Statement statement = client.createStatement()) {
            sleepAndCancel(statement);
        }
        try (Connection console = ProxyFixture.console(peers.get(1), ADMIN, ADMIN_PASSWORD)) {
            List<Map<String, String>> rows = Await.value(() -> ProxyFixture.rows(console, "SHOW PEER_POOLS"),
                    r -> r.size() == 1 && "0".equals(r.get(0).get("cl_active_cancel_req")), Duration.ofSeconds(10));
            assertEquals(Map.of("peer_id", "1", "cl_active_cancel_req", "0", "cl_waiting_cancel_req", "0",
                    "sv_active_cancel", "0", "sv_login", "0"), rows.get(0));
        }
    }

    @Test
    void aSetPeerIdThatLeavesTheOwnEntryUnderAnotherIdIsRefusedAndThePeerIdStays() throws Exception {
        // every [peers] names its own process too: under peer_id 2, peer 1's entry 1 would be itself under another id
        startPeers(2, true);
        try (Connection console = ProxyFixture.console(peers.get(0), ADMIN, ADMIN_PASSWORD)) {
            SQLException refused = assertThrows(SQLException.class,
                    () -> console.createStatement().execute("SET peer_id = 2"));
            assertTrue(refused.getMessage().contains("peer 1 (" + socketDir(1) + "/.s.PGSQL." + ports.get(0)
                    + ") is this process's own listen address, and this process is peer_id 2"), refused.getMessage());
            assertEquals("1", ProxyFixture.rows(console, "SHOW CONFIG").stream()
                    .filter(row -> "peer_id".equals(row.get("key"))).findFirst().orElseThrow().get("value"));
        }
    }

    @Test
    void aPeersPoolSizeBoundsTheCancelsInFlightToItAndTheRestWait() throws Exception {
        // pool_size = 0: no cancel may be in flight to peer 1, so the one the balancer sends to peer 2 waits there
        startPeers(2, false, " pool_size=0", "cancel_wait_timeout = 60\n");
        try (RoundRobinBalancer balancer = new RoundRobinBalancer(ports);
                Connection client = throughBalancerCancellingBriefly(balancer);
                Statement statement = client.createStatement();
                Connection console = ProxyFixture.console(peers.get(1), ADMIN, ADMIN_PASSWORD)) {
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
                try {
                    statement.execute(SLEEP);
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            });
            awaitSleeping();
            // pgjdbc waits for the cancel connection to close, which the waiting request keeps open
            CompletableFuture.runAsync(() -> {
                try {
                    statement.cancel();
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            });
            List<Map<String, String>> rows = Await.value(() -> ProxyFixture.rows(console, "SHOW PEER_POOLS"),
                    r -> !r.isEmpty(), Duration.ofSeconds(10));
            assertEquals(List.of(Map.of("peer_id", "1", "cl_active_cancel_req", "0", "cl_waiting_cancel_req", "1",
                    "sv_active_cancel", "0", "sv_login", "0")), rows);
            try (Connection direct = db.connect()) {
                assertEquals("t", Sql.value(direct, "SELECT bool_and(pg_cancel_backend(pid)) FROM"
                        + " pg_stat_activity WHERE query = '" + SLEEP + "'"), "the query was still running");
            }
            assertThrows(ExecutionException.class, () -> run.get(20, TimeUnit.SECONDS));
            // pgjdbc gave up on its cancel and closed its connection: the request waits no more
            Await.equal(List.of(), () -> ProxyFixture.rows(console, "SHOW PEER_POOLS").stream()
                    .filter(row -> !"0".equals(row.get("cl_waiting_cancel_req"))).toList(), Duration.ofSeconds(10),
                    "no cancel waits");
        }
    }

    @Test
    void aReloadWhosePeersEntryNamesTheProcessItselfIsRefusedAndThePeersInEffectStay() throws Exception {
        startPeers(2, false);
        // peer 1's own Unix socket under id 3: a cancel forwarded there would come back to peer 1
        Path ini = writeIni(1, 2, false, "", "");
        Files.writeString(ini, "3 = host=" + socketDir(1) + " port=" + ports.get(0) + "\n",
                StandardOpenOption.APPEND);
        try (Connection console = ProxyFixture.console(peers.get(0), ADMIN, ADMIN_PASSWORD)) {
            SQLException refused = assertThrows(SQLException.class,
                    () -> console.createStatement().execute("RELOAD"));
            assertTrue(refused.getMessage().contains("peer 3 (" + socketDir(1) + "/.s.PGSQL." + ports.get(0)
                    + ") is this process's own listen address"), refused.getMessage());
            assertEquals(List.of("2"), ProxyFixture.rows(console, "SHOW PEERS").stream()
                    .map(row -> row.get("peer_id")).toList());
        }
    }
}
