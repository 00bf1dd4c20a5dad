package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A [databases] host list whose first host cannot be reached, in front of the fixture's PostgreSQL, as psql and
 * pgjdbc log in through the proxy: the login passes over it to the next host, as libpq does (a deliberate difference
 * from PgBouncer, see docs/pgbouncer-differences.md).
 */
@PostgresTest
class HostListLoginTest {
    private static final String UNRESOLVABLE = "no-such-host.invalid";

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    HostListLoginTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void psqlLogsInThroughTheServersSocketDirectoryListedAfterAHostThatRefusesConnections() throws Exception {
        proxy = start("host=127.0.0.1," + db.server().unixSocketDirectory() + " port=" + closedPort() + ","
                + db.port(), "");
        Psql.Result result = Psql.run(connectionString(), "SELECT inet_client_addr() IS NULL");
        assertTrue(result.succeeded(), result.output());
        assertEquals("t", result.output().strip(), "the server saw a Unix socket client");
    }

    @Test
    void pgjdbcLogsInThroughTheHostListedAfterANameThatDoesNotResolve() throws Exception {
        proxy = start("host=" + UNRESOLVABLE + "," + db.host() + " port=" + db.port(), "");
        try (Connection c = ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_database()")) {
            rs.next();
            assertEquals(db.name(), rs.getString(1));
        }
    }

    @Test
    void whenNoHostOfTheListAnswersTheClientIsRefusedAfterQueryWaitTimeout() throws Exception {
        proxy = start("host=" + UNRESOLVABLE + ",127.0.0.1 port=" + closedPort(), "query_wait_timeout = 1\n");
        Psql.Result result = Psql.run(connectionString(), "SELECT 1");
        assertFalse(result.succeeded(), result.output());
        assertTrue(result.output().contains("query_wait_timeout"), result.output());
    }

    @Test
    void concurrentLoginsTryAFirstHostNotYetKnownToWorkOnceRatherThanOnceEach() throws Exception {
        try (SlowRefusingHost firstHost = new SlowRefusingHost()) {
            proxy = start("host=127.0.0.1," + db.host() + " port=" + firstHost.port() + "," + db.port(), "");
            ExecutorService clients = Executors.newFixedThreadPool(2);
            try {
                CountDownLatch together = new CountDownLatch(2);
                List<Future<String>> sleeps = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    sleeps.add(clients.submit(() -> {
                        try (Connection c = ProxyFixture.connect(proxy, "app", ProxyFixture.USER,
                                ProxyFixture.PASSWORD, new Properties()); Statement s = c.createStatement()) {
                            together.countDown();
                            together.await();
                            try (ResultSet rs = s.executeQuery("SELECT pg_sleep(0.5)::text")) {
                                rs.next();
                                return rs.getString(1);
                            }
                        }
                    }));
                }
                for (Future<String> sleep : sleeps) {
                    assertEquals("", sleep.get(30, TimeUnit.SECONDS), "each client's query ran on the second host");
                }
            } finally {
                clients.shutdownNow();
            }
            assertEquals(1, firstHost.accepted(), "connections the first host was asked for by both logins");
        }
    }

    /** load_balance_hosts=disable: each login starts at the first host of the list. */
    private PgMuxProxy start(String hosts, String settings) throws Exception {
        ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD);
        return ProxyConfigLoader.load(ProxyFixture.writeIni(dir.resolve("pgbouncer.ini"), "app = " + hosts
                + " load_balance_hosts=disable dbname=" + db.name() + " user=" + db.superuser() + " password='" + db.superuserPassword() + "'",
                0, "unix_socket_dir =\npool_mode = transaction\n" + settings)).start();
    }

    private String connectionString() {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=app user=" + ProxyFixture.USER + " password="
                + ProxyFixture.PASSWORD + " sslmode=disable";
    }

    /**
     * A host that takes each connection and closes it a second later without a word, as a server that is going
     * down might: a login tried there fails only after logins of other clients could have started.
     */
    private static final class SlowRefusingHost implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        private final AtomicInteger accepted = new AtomicInteger();
        private final Thread acceptor = new Thread(this::serve, "slow-refusing-host");

        SlowRefusingHost() throws IOException {
            acceptor.start();
        }

        private void serve() {
            ScheduledExecutorService closer = Executors.newSingleThreadScheduledExecutor();
            try {
                while (true) {
                    Socket s = socket.accept();
                    accepted.incrementAndGet();
                    closer.schedule(() -> {
                        s.close();
                        return null;
                    }, 1, TimeUnit.SECONDS);
                }
            } catch (IOException closed) {
                closer.shutdown();
            }
        }

        int port() {
            return socket.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws Exception {
            socket.close();
            acceptor.join();
        }
    }

    /** A port nothing listens on: bound to an ephemeral port, then closed. */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
