package io.pgmux.proxy.oracle;

import static io.pgmux.testing.Sql.backendPid;
import static io.pgmux.testing.Sql.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.proxy.RawClient;
import io.pgmux.testing.Await;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.opentest4j.TestAbortedException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PgBouncer as the oracle: each scenario runs against a real PgBouncer and against pgmux, both started from the
 * same pgbouncer.ini in front of the same PostgreSQL, and what a pgjdbc client sees must be the same. Where pgmux
 * differs on purpose, the scenario pins both sides and docs/pgbouncer-differences.md says why.
 */
@PostgresTest
class PgBouncerDifferentialTest {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String ADMIN = "boss";
    private static final String OTHER = "other";
    private static final String OTHER_PASSWORD = "other-secret";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final String OPTIONS_REFUSED = "FATAL 08P01: unsupported options startup parameter: only "
            + "'-c config=val' and '--config=val' are allowed";
    private static final String PARSE_FAILED = "FATAL 08P01: failed to parse packet";
    /** A line pgmux may add to an error PgBouncer sends alone: pgjdbc's and psql's (verbose) forms. */
    private static final Pattern ADDED_DETAIL = Pattern.compile("(DETAIL|HINT):");
    /** Columns of the SHOW views whose values differ between any two runs: addresses, ports, times, ids. */
    private static final Pattern VARYING = Pattern.compile("addr|port|local_addr|local_port|connect_time|request_time"
            + "|wait|wait_us|maxwait|maxwait_us|ptr|link|remote_pid|id|.*_time|avg_.*");
    private static Path binary;

    private final TestDatabase db;
    private final List<AutoCloseable> started = new ArrayList<>();
    @TempDir
    Path dir;

    PgBouncerDifferentialTest(TestDatabase db) {
        this.db = db;
    }

    /** Before each test, not all: surefire reports a test skipped with its reason, but a class skipped as none run. */
    @BeforeEach
    void findOracle() throws Exception {
        if (binary == null) {
            binary = PgBouncerProcess.oracle();
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : started) {
            c.close();
        }
    }

    @Test
    void unknownDatabaseIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> login(endpoint, "nosuchdb", USER, PASSWORD));
    }

    @Test
    void unknownDatabaseWithAWrongPasswordIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> login(endpoint, "nosuchdb", USER, "wrong"));
    }

    /** A deliberate difference: pgmux tells a full proxy only to a client that authenticated. */
    @Test
    @SuppressWarnings("try") // the two clients only have to stay connected
    void maxClientConnWithAWrongPasswordIsRefusedAfterAuthenticationByPgmux() throws Exception {
        Poolers p = start("max_client_conn = 2\n");
        Scenario scenario = endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                return login(endpoint, "app", USER, "wrong");
            }
        };
        assertEquals("FATAL 08P01: no more connections allowed (max_client_conn)", seen(p.pgbouncer, scenario));
        assertEquals("FATAL 08P01: password authentication failed", seen(p.pgmux, scenario));
    }

    @Test
    void wrongPasswordIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> login(endpoint, "app", USER, "wrong"));
    }

    @Test
    void unknownUserIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> login(endpoint, "app", "nobody", PASSWORD));
    }

    @Test
    @SuppressWarnings("try") // the two clients only have to stay connected
    void maxClientConnRefusesTheClientOverTheLimitAlike() throws Exception {
        Poolers p = start("max_client_conn = 2\n");
        assertSame(p, endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                return login(endpoint, "app", USER, PASSWORD);
            }
        });
    }

    @Test
    @SuppressWarnings("try") // the two clients only have to stay connected
    void maxDbClientConnectionsRefusesTheClientOverTheDatabasesLimitAlike() throws Exception {
        Poolers p = start("max_db_client_connections = 5\n", "max_db_client_connections=2");
        assertSame(p, endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                return login(endpoint, "app", USER, PASSWORD);
            }
        });
    }

    @Test
    @SuppressWarnings("try") // the client only has to stay connected
    void maxUserClientConnectionsRefusesTheUsersClientOverItsLimitAlike() throws Exception {
        Poolers p = start("max_user_client_connections = 5\n[users]\n" + USER + " = max_user_client_connections=1\n");
        assertSame(p, endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD)) {
                return login(endpoint, "app", USER, PASSWORD);
            }
        });
    }

    @Test
    void aDatabasesDateStyleAndTimeZoneMeetPgjdbcsOwnAlike() throws Exception {
        Poolers p = start("", "datestyle=German timezone=Europe/Paris");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                return Sql.value(c, "SELECT current_setting('DateStyle') || ' ' "
                        + "|| current_setting('TimeZone')");
            }
        });
    }

    @Test
    void aDatabasesApplicationNameReachesAClientThatNamesNoneAlike() throws Exception {
        Poolers p = start("", "application_name=reports");
        assertSame(p, endpoint -> {
            try (RawClient client = new RawClient(endpoint.port())) {
                client.login("app", USER, PASSWORD);
                client.sendRaw(RawClient.frame('Q', RawClient.cstring("SELECT current_setting('application_name')")));
                return RawClient.firstColumn(client.readUntilReady());
            }
        });
    }

    @Test
    void whatConnectQuerySetsIsFoundAlike() throws Exception {
        Poolers p = start("", "connect_query='SELECT set_config(''pgmux.greeting'', ''hello'', false)'");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                return Sql.value(c, "SELECT current_setting('pgmux.greeting')");
            }
        });
    }

    @Test
    void aFailingConnectQueryLeavesTheConnectionInUseAlike() throws Exception {
        Poolers p = start("", "connect_query='SELECT no_such_column'");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                return Sql.value(c, "SELECT 'served'");
            }
        });
    }

    @Test
    void loginNotifyMessageIsTheSameNoticeAlike() throws Exception {
        Poolers p = start("login_notify_message = Welcome to the pooler\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                java.sql.SQLWarning w = c.getWarnings();
                return w.getSQLState() + " " + w.getMessage() + " " + w.getNextWarning();
            }
        });
    }

    @Test
    void queryWaitTimeoutFailsTheWaitingClientAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\nquery_wait_timeout = 1\n");
        assertSameAtOnce(p, "FATAL 08P01: query_wait_timeout", endpoint -> {
            try (Connection holder = connect(endpoint, "app", USER, PASSWORD);
                 Connection waiter = connect(endpoint, "app", USER, PASSWORD)) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1");
                waiter.createStatement().execute("SELECT 1");
                return "served without a timeout";
            }
        });
    }

    /**
     * The fixture's PostgreSQL answers SSLRequest with 'N' (ssl = off): under sslmode require both poolers take it as
     * a server that could not be reached, and the client waits for it into query_wait_timeout.
     */
    @Test
    void aServerRefusingTlsUnderRequireKeepsTheClientWaitingIntoQueryWaitTimeoutAlike() throws Exception {
        Poolers p = start("server_tls_sslmode = require\nquery_wait_timeout = 1\n");
        assertSame(p, "FATAL 08P01: query_wait_timeout", endpoint -> login(endpoint, "app", USER, PASSWORD));
        // the words pgmux's log uses too
        assertTrue(p.oracle().log().contains("server refused SSL"), p.oracle().log());
    }

    @Test
    void idleTransactionTimeoutEndsTheClientAlike() throws Exception {
        Poolers p = start("idle_transaction_timeout = 1\n");
        assertSameAtOnce(p, "FATAL 08P01: idle transaction timeout", endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
                return "served without a timeout";
            }
        });
    }

    @Test
    void clientIdleTimeoutEndsTheClientAlike() throws Exception {
        Poolers p = start("client_idle_timeout = 1\n");
        assertSameAtOnce(p, "FATAL 08P01: client_idle_timeout", endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
                return "served without a timeout";
            }
        });
    }

    @Test
    void queryTimeoutEndsALongQueryAlike() throws Exception {
        Poolers p = start("query_timeout = 1\n");
        assertSameAtOnce(p, "FATAL 08P01: query timeout", endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT pg_sleep(5)");
                return "served without a timeout";
            }
        });
    }

    @Test
    void queryTimeoutEndsAClientWaitingForAServerAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\nquery_timeout = 1\n");
        assertSameAtOnce(p, "FATAL 08P01: query_timeout", endpoint -> {
            try (Connection holder = connect(endpoint, "app", USER, PASSWORD);
                 Connection waiter = connect(endpoint, "app", USER, PASSWORD)) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1");
                waiter.createStatement().execute("SELECT 1");
                return "served without a timeout";
            }
        });
    }

    /** A client that logs in while the server accepts but never answers the pool's first login ends alike. */
    @Test
    void queryTimeoutEndsAClientWaitingAtLoginForTheFirstServerAlike() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Poolers p = startEntry(" port=" + silent.getLocalPort() + " user=" + db.superuser(),
                    "pool_mode = transaction\nauth_type = md5\nquery_timeout = 1\nserver_connect_timeout = 15\n"
                            + "client_login_timeout = 15\n");
            assertSameAtOnce(p, "FATAL 08P01: query_timeout", endpoint -> login(endpoint, "app", USER, PASSWORD));
        }
    }

    /** PgBouncer takes the user-level query_timeout of the user the database logs in as. */
    @Test
    void theLoginUsersQueryTimeoutEndsALongQueryAlike() throws Exception {
        Poolers p = start("[users]\n" + db.superuser() + " = query_timeout=1\n");
        assertSameAtOnce(p, "FATAL 08P01: query timeout", endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT pg_sleep(5)");
                return "served without a timeout";
            }
        });
    }

    /**
     * A deliberate difference: pgmux also takes the client's own user's query_timeout when its database logs in as
     * another user; PgBouncer takes only the login user's.
     */
    @Test
    void theClientUsersQueryTimeoutAppliesUnderAForcedUserInPgmuxOnly() throws Exception {
        Poolers p = start("[users]\n" + USER + " = query_timeout=1\n");
        Scenario scenario = endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT pg_sleep(3)");
                return "served without a timeout";
            }
        };
        Outcomes seen = seenAtOnce(p, scenario);
        assertEquals("served without a timeout", seen.pgbouncer());
        assertEquals("FATAL 08P01: query timeout", seen.pgmux());
    }

    @Test
    void transactionTimeoutEndsAnOpenTransactionAlike() throws Exception {
        Poolers p = start("transaction_timeout = 1\n");
        assertSameAtOnce(p, "FATAL 08P01: transaction timeout", endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
                return "served without a timeout";
            }
        });
    }

    @Test
    void theLoginUsersTransactionTimeoutEndsAnOpenTransactionAlike() throws Exception {
        Poolers p = start("[users]\n" + db.superuser() + " = transaction_timeout=1\n");
        assertSameAtOnce(p, "FATAL 08P01: transaction timeout", endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
                return "served without a timeout";
            }
        });
    }

    @Test
    void transactionModeServesTwoClientsFromOneServerAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\n");
        assertSame(p, "one server for both", endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                return backendPid(a) == backendPid(b) ? "one server for both" : "a server each";
            }
        });
    }

    @Test
    void statementModeRefusesATransactionBlockAlike() throws Exception {
        Poolers p = start("", "pool_mode=statement");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                c.commit();
                return "committed";
            }
        });
    }

    /**
     * pgmux and PgBouncer as peers of each other, as the cancel keys allow: a client's cancel request that reaches the
     * other pooler is forwarded to the one the client is on, both ways, and cancels its query.
     */
    @Test
    void pgmuxAndPgBouncerForwardEachOthersCancelsAsPeers() throws Exception {
        int pgmuxPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            pgmuxPort = probe.getLocalPort();
        }
        String userlist = "\"" + USER + "\" \"" + PASSWORD + "\"\n";
        String databases = "[databases]\napp = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n";
        PgBouncerProcess pgbouncer = PgBouncerProcess.start(binary, databases + "[pgbouncer]\nauth_type = md5\n"
                + "auth_file = userlist.txt\npeer_id = 1\n[peers]\n2 = host=127.0.0.1 port=" + pgmuxPort + "\n",
                "userlist.txt", userlist);
        started.add(pgbouncer);
        Files.writeString(dir.resolve("userlist.txt"), userlist);
        Path ini = dir.resolve("pgmux.ini");
        Files.writeString(ini, databases + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = " + pgmuxPort
                + "\nunix_socket_dir =\nauth_type = md5\nauth_file = userlist.txt\npeer_id = 2\n[peers]\n"
                + "1 = host=127.0.0.1 port=" + pgbouncer.port() + "\n");
        PgMuxProxy pgmux = ProxyConfigLoader.load(ini).start();
        started.add(pgmux);
        assertEquals("57014", cancelledVia(pgbouncer.port(), pgmuxPort), "a PgBouncer client's cancel, via pgmux");
        assertEquals("57014", cancelledVia(pgmuxPort, pgbouncer.port()), "a pgmux client's cancel, via PgBouncer");
    }

    /** The SQLSTATE of a query on the pooler at {@code on} that a cancel request sent to {@code via} ended. */
    private String cancelledVia(int on, int via) throws Exception {
        try (RawClient client = new RawClient(on); Connection direct = db.connect()) {
            client.login("app", USER, PASSWORD);
            client.sendRaw(RawClient.frame('Q', RawClient.cstring("SELECT pg_sleep(30)")));
            Await.until(() -> "1".equals(value(direct, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
                    + " AND query = 'SELECT pg_sleep(30)'")), Duration.ofSeconds(10), "the query runs");
            client.cancelVia(via);
            return client.readUntilReady().stream().filter(m -> m.type() == 'E').findFirst()
                    .map(m -> m.field('C')).orElse("not cancelled");
        }
    }

    /** The [peers] entries, one with its own pool_size, one with its process's own peer_id, before any cancel. */
    @Test
    void showPeersAndPeerPoolsAlike() throws Exception {
        Poolers p = start("peer_id = 1\n[peers]\n3 = host=127.0.0.3 port=7003 pool_size=4\n1 = host=/run/pooler-1\n"
                + "2 = host=/run/pooler-2 port=7002\n");
        assertSame(p, "peer_id|host|port|pool_size\n1|/run/pooler-1|6432|20\n2|/run/pooler-2|7002|20\n"
                + "3|127.0.0.3|7003|4\n(3 rows)\npeer_id|cl_active_cancel_req|cl_waiting_cancel_req|sv_active_cancel"
                + "|sv_login\n(0 rows)\n",
                endpoint -> psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW PEERS", "SHOW PEER_POOLS"));
    }

    @Test
    void consoleRefusesAUserThatIsNeitherAdminNorStatsAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> psql(endpoint, USER, PASSWORD, "SHOW POOLS"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"FOO", "SHOW NOSUCHTHING", "PAUSE nosuchdb", "RESUME nosuchdb", "SHOW POOLS; SHOW STATS",
            "SET nosuchkey = 1"})
    void consoleAnswersABadCommandAlike(String command) throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> psql(endpoint, ADMIN, ADMIN_PASSWORD, command));
    }

    /** Admin SET, the commands of live administration and their refusals: the same tag or error text. */
    @ParameterizedTest
    @ValueSource(strings = {"SET default_pool_size = 1", "SET default_pool_size=3", "SET pool_mode = 'session'",
            "SET server_reset_query = 'DISCARD ALL; SELECT 1'", "SET default_pool_size = 'abc'",
            "SET default_pool_size = -1", "SET default_pool_size", "SET pool_mode = bogus",
            "set Default_Pool_Size = 4", "KILL_CLIENT 123456", "KILL_CLIENT abc", "WAIT_CLOSE", "WAIT_CLOSE app",
            "WAIT_CLOSE nosuchdb", "SUSPEND", "RESUME", "RESUME app", "SHUTDOWN FOO", "SHOW STATE"})
    void consoleAnswersLiveAdministrationAlike(String command) throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> psql(endpoint, ADMIN, ADMIN_PASSWORD, command));
    }

    /**
     * What each command of a sequence prints, SHOW STATE after a PAUSE, SUSPEND, RESUME among them, and SHOW CONFIG's
     * header and row of the key SET changed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"SET default_pool_size = 7|SHOW CONFIG", "PAUSE|SHOW STATE", "SUSPEND|SHOW STATE",
            "SUSPEND|PAUSE", "PAUSE|SUSPEND", "PAUSE app|SHOW STATE", "PAUSE app|RESUME", "PAUSE|RESUME|SHOW STATE",
            "KILL app|RESUME", "SUSPEND|RESUME|SHOW STATE", "KILL|RESUME", "KILL|SHOW STATE", "PAUSE|KILL app",
            "PAUSE|KILL", "PAUSE|PAUSE app", "PAUSE app|PAUSE app", "KILL app|PAUSE app"})
    void consoleSequencesEndAlike(String commands) throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> {
            StringBuilder printed = new StringBuilder();
            for (String command : commands.split("\\|")) {
                String out = seen(endpoint, e -> psql(e, ADMIN, ADMIN_PASSWORD, command));
                if (command.equals("SHOW CONFIG")) {
                    out = out.lines().filter(l -> l.startsWith("key|") || l.startsWith("default_pool_size|"))
                            .collect(Collectors.joining("\n"));
                }
                printed.append(command).append(":\n").append(out.strip()).append('\n');
            }
            return printed.toString();
        });
    }

    /** RESUME in the session that ran SHUTDOWN WAIT_FOR_CLIENTS, while a client keeps the pooler up. */
    @Test
    @SuppressWarnings("try") // the client only has to stay connected
    void resumeDuringAShutdownIsRefusedAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            try (Connection client = connect(endpoint, "app", USER, PASSWORD)) {
                return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHUTDOWN WAIT_FOR_CLIENTS", "RESUME");
            }
        };
        assertSame(p, "psql exit 1: SHUTDOWN\nERROR:  08P01: pooler is shutting down", scenario);
    }

    /**
     * A deliberate difference: PgBouncer answers SET of a key it does not change at run time as if it had worked;
     * pgmux refuses it, so that no setting is silently ignored.
     */
    @Test
    void setOfAReadOnlyKeyIsRefusedByPgmux() throws Exception {
        Poolers p = start("");
        assertEquals("SET listen_port=7000", psql(p.pgbouncer, ADMIN, ADMIN_PASSWORD, "SET listen_port = 7000").strip());
        assertEquals("psql exit 1: ERROR:  08P01: SET failed\nDETAIL:  listen_port cannot be changed at run time: it"
                + " takes a restart (SHOW CONFIG's changeable column)",
                seen(p.pgmux, e -> psql(e, ADMIN, ADMIN_PASSWORD, "SET listen_port = 7000")));
        // neither changed the port (pgmux's ini asks for port 0, any free one)
        assertEquals("listen_port|PORT|6432|no", psql(p.pgbouncer, ADMIN, ADMIN_PASSWORD, "SHOW CONFIG").lines()
                .filter(l -> l.startsWith("listen_port|")).findFirst().orElse(""));
        assertEquals("listen_port|0|6432|no", psql(p.pgmux, ADMIN, ADMIN_PASSWORD, "SHOW CONFIG").lines()
                .filter(l -> l.startsWith("listen_port|")).findFirst().orElse(""));
    }

    /**
     * The first client of a pool waits at login for a server, whose parameters it is told: no server assignment in
     * PgBouncer, whose client is never linked to that server.
     */
    @Test
    void aPoolsFirstLoginIsNoServerAssignmentAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            try (RawClient c = new RawClient(endpoint.port())) {
                c.login("app", USER, PASSWORD);
            }
            return "total_server_assignment_count "
                    + rowOf(endpoint, "SHOW STATS", "app|").split("\\|")[1];
        };
        assertSame(p, "total_server_assignment_count 0", scenario);
    }

    /** SHUTDOWN ends the pooler without an answer: psql sees the connection close. */
    @Test
    void shutdownClosesTheConsoleWithoutAnAnswerAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHUTDOWN");
        String oracle = assertSame(p, scenario);
        assertTrue(oracle.startsWith("psql exit 2: server closed the connection unexpectedly"), oracle);
    }

    /**
     * A deliberate difference: PgBouncer refuses a known user that is neither admin nor stats user on the console
     * before asking for its password, which tells a client without one that the user exists (an unknown user is
     * asked for a password and refused after it); pgmux asks every user for the password first.
     */
    @Test
    void consoleRefusesAUserThatIsNeitherAdminNorStatsAfterItsPasswordInPgmux() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> psql(endpoint, USER, "wrong", "SHOW POOLS");
        assertEquals("psql exit 2: psql: error: connection to server at \"127.0.0.1\", port "
                + "PORT failed: FATAL:  not allowed", seen(p.pgbouncer, scenario));
        assertEquals("psql exit 2: psql: error: connection to server at \"127.0.0.1\", port "
                + "PORT failed: FATAL:  password authentication failed", seen(p.pgmux, scenario));
        assertEquals(seen(p.pgmux, e -> psql(e, "nobody", "wrong", "SHOW POOLS")), seen(p.pgmux, scenario));
    }

    /**
     * Clients and servers are numbered from one counter as their sockets open: the pool's first client, then the
     * server it waits for at login, then the console's client. Ids are shown from the first client's, since
     * PgBouncer's start is watched by a connection that takes one.
     */
    @Test
    void clientsAndServersAreNumberedFromOneCounterAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(c);
                List<String[]> rows = psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW CLIENTS", "SHOW SERVERS").lines()
                        .filter(l -> l.startsWith("C|") || l.startsWith("S|")).map(l -> l.split("\\|", -1)).toList();
                long first = rows.stream().filter(r -> r[0].equals("C") && r[1].equals(USER))
                        .mapToLong(r -> Long.parseLong(r[r.length - 1])).findFirst().orElseThrow();
                return rows.stream()
                        .map(r -> r[0] + " " + r[1] + " +" + (Long.parseLong(r[r.length - 1]) - first))
                        .collect(Collectors.joining(", "));
            }
        };
        assertSame(p, "C app +0, C boss +2, S " + db.superuser() + " +1", scenario);
    }

    @Test
    void killClientDisconnectsWithTheSameMessage() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> {
            try (Connection victim = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(victim);
                String id = psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW CLIENTS").lines()
                        .filter(l -> l.startsWith("C|" + USER + "|app|")).map(l -> l.substring(l.lastIndexOf('|') + 1))
                        .findFirst().orElseThrow();
                return psql(endpoint, ADMIN, ADMIN_PASSWORD, "KILL_CLIENT " + id) + stillServed(endpoint, victim);
            }
        });
    }

    @Test
    void killOfADatabaseDisconnectsItsClientWithTheSameMessage() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> {
            try (Connection victim = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(victim);
                return psql(endpoint, ADMIN, ADMIN_PASSWORD, "KILL app") + stillServed(endpoint, victim);
            }
        });
    }

    /**
     * KILL without a name pauses each database that has a pool, one by one: RESUME without a name is refused,
     * RESUME of the database ends it, and a database without a pool ({@code zoo}) was never paused.
     */
    @Test
    void killWithoutANamePausesEachDatabaseWithAPoolAlike() throws Exception {
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword() + "\nzoo = host="
                + db.host() + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), "pool_mode = transaction\nauth_type = md5\n");
        Scenario scenario = endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(c);
            }
            psql(endpoint, ADMIN, ADMIN_PASSWORD, "KILL");
            String paused = psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW DATABASES").lines()
                    .filter(l -> l.startsWith("app|") || l.startsWith("zoo|"))
                    .map(l -> l.substring(0, l.indexOf('|')) + " paused=" + l.split("\\|", -1)[15])
                    .collect(Collectors.joining(", "));
            String resumeAll = seen(endpoint, e -> psql(e, ADMIN, ADMIN_PASSWORD, "RESUME"));
            psql(endpoint, ADMIN, ADMIN_PASSWORD, "RESUME app");
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                return paused + "; RESUME: " + resumeAll.strip()
                        + "; after RESUME app: " + Sql.value(c, "SELECT 'served'");
            }
        };
        assertSame(p, "app paused=1, zoo paused=0; RESUME: psql exit 1: "
                + "ERROR:  08P01: pooler is not paused/suspended; after RESUME app: served", scenario);
    }

    /**
     * SHOW CLIENTS' state: {@code idle} for a client without a server (between transactions in transaction mode)
     * and for the console's own clients, {@code active} for one in a transaction.
     */
    @Test
    void showClientsStatesAreTheOraclesAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            List<String> states = new ArrayList<>();
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(c);
                states.add(clientStates(endpoint));
                c.setAutoCommit(false);
                backendPid(c);
                states.add(clientStates(endpoint));
                c.rollback();
            }
            return String.join("; ", states);
        };
        assertSame(p, "app/app idle, boss/pgbouncer idle; app/app active, boss/pgbouncer idle",
                scenario);
    }

    /**
     * Clients of two users of a database with a forced user share the forced user's one pool: with pool_size=1 the
     * second waits while the first holds the server in a transaction. SHOW POOLS has one row, under the forced user;
     * SHOW CLIENTS shows each client under its own user; SHOW SERVERS the server under the forced user.
     */
    @Test
    void clientsOfTwoUsersShareTheForcedUsersPoolAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\n");
        Scenario scenario = endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", OTHER, OTHER_PASSWORD)) {
                a.setAutoCommit(false);
                int server = backendPid(a);
                CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return backendPid(b);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Await.until(() -> columns(endpoint, "SHOW POOLS", "app|", "cl_waiting").equals("cl_waiting=1"),
                        Duration.ofSeconds(10), "the other user's client waiting");
                String seen = String.join("\n", columns(endpoint, "SHOW POOLS", "app|", "user", "cl_active",
                        "cl_waiting", "sv_active", "sv_idle"), clientStates(endpoint),
                        columns(endpoint, "SHOW SERVERS", "S|", "user", "database", "state"));
                a.commit();
                if (waiting.get(10, TimeUnit.SECONDS) != server) {
                    throw new IllegalStateException("the waiter got another server than the pool's one");
                }
                return seen;
            }
        };
        assertSame(p, "user=" + db.superuser() + " cl_active=1 cl_waiting=1 sv_active=1 sv_idle=0\n"
                + "app/app active, boss/pgbouncer idle, other/app waiting\n"
                + "user=" + db.superuser() + " database=app state=active", scenario);
    }

    /**
     * The views a monitoring tool reads, whole, while a transaction-mode client holds its server in a transaction
     * and a console client reads them: every row and column but the values that differ between any two runs
     * (addresses, ports, times, pointers, pids, connection ids), and what SHOW LISTS counts of slab caches.
     */
    @Test
    void theMonitoringViewsAreTheOraclesWhole() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                backendPid(c);
                StringBuilder views = new StringBuilder();
                for (String view : List.of("CLIENTS", "SERVERS", "POOLS", "DATABASES", "USERS", "STATS")) {
                    views.append(normalisedView(endpoint, "SHOW " + view));
                }
                c.rollback();
                return views.append(withoutFreeCounts(psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW LISTS"))).toString();
            }
        };
        String oracle = seen(p.pgbouncer, scenario);
        String pgmux = seen(p.pgmux, scenario);
        assertTrue(oracle.contains("\nC|app|app|none|active|ADDR|PORT|"), oracle);
        // SHOW STATS counts the login's SETs and the open transaction (BEGIN and a query in one round trip) as two
        // transactions and two queries
        assertTrue(statsCounts(oracle).startsWith("app|2|2|2|131|"), statsCounts(oracle));
        // A deliberate difference: PgBouncer's total_sent counts the answer to its own SETs of the client's DateStyle
        // and TimeZone too, which no client receives; pgmux's counts what it sent to clients
        assertTrue(totalSent(pgmux) < totalSent(oracle), statsCounts(pgmux) + " against " + statsCounts(oracle));
        assertEquals(withoutTotalSent(oracle), withoutTotalSent(pgmux));
    }

    /**
     * SHOW STATS counts alike a client that needs no setting applied: a query, then BEGIN and a query sent in one
     * write (one query, however many ReadyForQuery it is owed) whose transaction is still open, and the bytes.
     */
    @Test
    void showStatsCountsPipelinedQueriesAsOneAndAnOpenTransactionAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            try (RawClient c = new RawClient(endpoint.port())) {
                c.login("app", USER, PASSWORD);
                c.sendRaw(RawClient.frame('Q', RawClient.cstring("SELECT 'served'")));
                c.readUntilReady();
                c.sendRaw(RawClient.concat(RawClient.frame('Q', RawClient.cstring("BEGIN")),
                        RawClient.frame('Q', RawClient.cstring("SELECT 'in a transaction'"))));
                c.readUntilReady();
                c.readUntilReady();
                return statsCounts(normalisedView(endpoint, "SHOW STATS"));
            }
        };
        assertSame(p, "app|2|2|2|63|169", scenario);
    }

    /** The first six columns (database to total_sent) of SHOW STATS' row of app in {@code views}. */
    private static String statsCounts(String views) {
        return views.lines().filter(l -> l.startsWith("app|") && l.contains("|TOTAL_XACT_TIME|"))
                .map(l -> l.substring(0, l.indexOf("|TOTAL_XACT_TIME|"))).findFirst().orElse("no row");
    }

    private static long totalSent(String views) {
        String counts = statsCounts(views);
        return Long.parseLong(counts.substring(counts.lastIndexOf('|') + 1));
    }

    /** {@code views} with total_sent of SHOW STATS' row of app left out. */
    private static String withoutTotalSent(String views) {
        String counts = statsCounts(views);
        return views.replace(counts + "|TOTAL_XACT_TIME|",
                counts.substring(0, counts.lastIndexOf('|')) + "|(sent)|TOTAL_XACT_TIME|");
    }

    /**
     * What psql printed for {@code sql} on the console, with each non-empty value of a column that differs between
     * runs replaced by the column's name in capitals.
     */
    private static String normalisedView(Endpoint endpoint, String sql) throws Exception {
        List<String> lines = psql(endpoint, ADMIN, ADMIN_PASSWORD, sql).lines().toList();
        String[] header = lines.get(0).split("\\|", -1);
        StringBuilder out = new StringBuilder(lines.get(0)).append('\n');
        for (String line : lines.subList(1, lines.size())) {
            String[] values = line.split("\\|", -1);
            if (values.length == header.length) {
                for (int i = 0; i < values.length; i++) {
                    if (!values[i].isEmpty() && VARYING.matcher(header[i]).matches()) {
                        values[i] = header[i].toUpperCase(java.util.Locale.ROOT);
                    }
                }
            }
            out.append(String.join("|", values)).append('\n');
        }
        return out.toString();
    }

    /** SHOW USERS prints a user's own pool sizes as text right-aligned in 9 characters, and nothing when unset. */
    @Test
    void showUsersPrintsAUsersOwnPoolSizesAsTextAlike() throws Exception {
        Poolers p = start("[users]\n" + USER + " = pool_size=3 reserve_pool_size=1\n");
        String oracle = psql(p.pgbouncer, ADMIN, ADMIN_PASSWORD, "SHOW USERS");
        assertEquals(oracle, psql(p.pgmux, ADMIN, ADMIN_PASSWORD, "SHOW USERS"));
        assertTrue(oracle.contains(USER + "|        3|        1||"), oracle);
    }

    /**
     * SHOW STATS counts a client's login, its Parse of a named statement and each Bind of it (prepared statement
     * tracking, max_prepared_statements at its default) as PgBouncer does.
     */
    @Test
    void showStatsCountsLoginsParsesAndBindsAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            Properties named = new Properties();
            named.setProperty("prepareThreshold", "1");
            try (Connection c = connect(endpoint, "app", USER, PASSWORD, named);
                 java.sql.PreparedStatement ps = c.prepareStatement("SELECT ?::int")) {
                for (int i = 0; i < 3; i++) {
                    ps.setInt(1, i);
                    ps.executeQuery().close();
                }
            }
            String header = psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW STATS").lines().findFirst().orElseThrow();
            List<String> columns = List.of(header.split("\\|"));
            String row = psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW STATS").lines()
                    .filter(l -> l.startsWith("app|")).findFirst().orElseThrow();
            List<String> values = List.of(row.split("\\|"));
            return Stream.of("total_client_parse_count", "total_bind_count",
                    "total_client_login_count").map(c -> c + "=" + values.get(columns.indexOf(c)))
                    .collect(Collectors.joining(" "));
        };
        assertSame(p, "total_client_parse_count=1 total_bind_count=3 total_client_login_count=1",
                scenario);
    }

    /**
     * The views with a row per database list the same databases in the same order: SHOW DATABASES every entry and
     * the console's own {@code pgbouncer}; SHOW POOLS and the STATS views those with a pool ({@code zoo}, which no
     * client used, has none) and {@code pgbouncer}, the console's.
     */
    @ParameterizedTest
    @ValueSource(strings = {"STATS", "STATS_TOTALS", "STATS_AVERAGES", "POOLS", "DATABASES"})
    void showViewsListTheSameDatabasesPgbouncerIncluded(String view) throws Exception {
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword() + "\nzoo = host="
                + db.host() + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), "pool_mode = transaction\nauth_type = md5\n");
        for (Endpoint endpoint : List.of(p.pgbouncer, p.pgmux)) {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(c);
            }
        }
        List<String> oracle = firstColumn(p.pgbouncer, "SHOW " + view);
        assertEquals(view.equals("DATABASES") ? List.of("app", "pgbouncer", "zoo") : List.of("app", "pgbouncer"),
                oracle);
        assertEquals(oracle, firstColumn(p.pgmux, "SHOW " + view));
    }

    /**
     * The console's own rows count alike: each console login, and one transaction and one query per session
     * (PgBouncer never ends an admin client's query, so a session's later commands add nothing); SHOW POOLS has
     * its pool with the console clients, SHOW DATABASES its entry. A psql session of three commands, then one
     * reading the views.
     */
    @Test
    void theConsolesOwnRowsCountAlike() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW VERSION", "SHOW STATE", "SHOW LISTS");
            List<String> rows = new ArrayList<>();
            for (String view : List.of("STATS_TOTALS", "POOLS", "DATABASES")) {
                rows.add(rowOf(endpoint, "SHOW " + view, "pgbouncer|"));
            }
            return String.join("\n", rows);
        };
        assertSame(p, "pgbouncer|0|2|2|0|0|0|0|0|0|0|0|2\n"
                + "pgbouncer|pgbouncer|1|0|0|0|0|0|0|0|0|0|0|0|0|statement|\n"
                + "pgbouncer||PORT|pgbouncer|pgbouncer|2|0|0|3600|statement||0|0|0|1|0|0", scenario);
    }

    /**
     * Before any client came, SHOW USERS lists every user PgBouncer knows: the auth file's, the {@code [users]}
     * entries (one setting only a client limit, one only a timeout, one nothing) and the user the database logs in
     * as; SHOW LISTS counts them.
     */
    @Test
    void showUsersListsTheAuthFileTheUsersEntriesAndTheForcedUserAlike() throws Exception {
        Poolers p = start("[users]\nlimited = max_user_client_connections=2\ntimed = query_timeout=5\nbare =\n");
        assertSame(p, endpoint -> psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW USERS")
                + withoutFreeCounts(psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW LISTS")));
    }

    /**
     * A deliberate difference: SHOW LISTS' free_clients and free_servers count the free objects of PgBouncer's slab
     * caches (a client's or server's structure kept for reuse); pgmux keeps none, and shows 0, as SHOW MEM shows no
     * slab cache.
     */
    @Test
    void showListsCountsNoFreeSlabObjectsInPgmux() throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            login(endpoint, "app", USER, PASSWORD);
            return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW LISTS").lines()
                    .filter(l -> l.startsWith("free_") || l.startsWith("used_")).collect(Collectors.joining(" "));
        };
        assertEquals("free_clients|49 used_clients|1 free_servers|49 used_servers|1", seen(p.pgbouncer, scenario));
        assertEquals("free_clients|0 used_clients|1 free_servers|0 used_servers|1", seen(p.pgmux, scenario));
    }

    /** SHOW LISTS as psql printed it, but the counts of free slab objects, which pgmux does not keep. */
    private static String withoutFreeCounts(String showLists) {
        return showLists.replaceAll("(?m)^(free_clients|free_servers)\\|\\d+$", "$1|(slab objects)");
    }

    /** SHOW FDS lists the TCP listening socket as a {@code pooler} row, as PgBouncer does (its fd aside). */
    @Test
    void showFdsListsTheTcpListenerAlike() throws Exception {
        Poolers p = start("");
        List<String> oracle = tcpPoolerRows(p.pgbouncer);
        assertEquals(List.of("pooler|||127.0.0.1|PORT|0|0|||||||"), oracle);
        assertEquals(oracle, tcpPoolerRows(p.pgmux));
    }

    /** The keys PgBouncer's RELOAD and SET change at run time are pgmux's too; the others take a restart in both. */
    @Test
    void showConfigsChangeableColumnIsTheOraclesForEveryKeyBothTake() throws Exception {
        Poolers p = start("");
        Map<String, String> oracle = changeable(p.pgbouncer);
        Map<String, String> differing = new TreeMap<>();
        changeable(p.pgmux).forEach((key, ours) -> {
            String theirs = oracle.get(key);
            if (theirs != null && !theirs.equals(ours)) {
                differing.put(key, "pgmux " + ours + ", PgBouncer " + theirs);
            }
        });
        assertEquals(Map.of(), differing);
    }

    /**
     * An operator's unchanged pgbouncer.ini: every key PgBouncer 1.25 shows in SHOW CONFIG, written at the default
     * it shows (but the listening address, auth and console keys this test needs), starts pgmux, which takes each
     * value as written and serves the database: none refused, none silently dropped.
     */
    @Test
    void anIniWithEveryKeyAtPgBouncersDefaultIsTakenWholeByPgmux() throws Exception {
        Poolers p = start("");
        Map<String, String> defaults = showConfig(p.pgbouncer, 2);
        Set<String> needed = Set.of("listen_addr", "listen_port", "unix_socket_dir", "auth_file", "admin_users",
                "ignore_startup_parameters", "conffile", "user");
        // pgmux has no LDAP client: it refuses a value, and its empty default starts without a SHOW CONFIG row
        Set<String> notShown = Set.of("auth_ldap_options");
        StringBuilder ini = new StringBuilder(Files.readString(p.pgmuxIni)).append('\n');
        defaults.forEach((key, value) -> {
            if (!needed.contains(key)) {
                ini.append(key).append(" = ").append(value).append('\n');
            }
        });
        Path everyKey = Files.writeString(dir.resolve("every-key.ini"), ini.toString().replace("[pgbouncer]\n",
                "[pgbouncer]\nunix_socket_dir =\n"));
        try (PgMuxProxy pgmux = ProxyConfigLoader.load(everyKey).start()) {
            Endpoint endpoint = new Endpoint("pgmux", pgmux.port());
            Map<String, String> taken = showConfig(endpoint, 1);
            Map<String, String> ownDefaults = showConfig(endpoint, 2);
            Map<String, String> differing = new TreeMap<>();
            defaults.forEach((key, value) -> {
                // empty is PgBouncer's way of showing some defaults (verbose): pgmux's own default then
                String expected = value.isEmpty() ? ownDefaults.get(key) : value;
                if (!needed.contains(key) && !notShown.contains(key) && !Objects.equals(expected, taken.get(key))) {
                    differing.put(key, "written " + value + ", pgmux " + taken.get(key));
                }
            });
            assertEquals(Map.of(), differing);
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                assertEquals("served", Sql.value(c, "SELECT 'served'"));
            }
        }
    }

    @Test
    void aDatabaseRemovedByReloadDisconnectsItsClientAndRefusesNewOnesAlike() throws Exception {
        Poolers p = start("");
        String entry = "app = host=";
        Scenario removed = endpoint -> {
            try (Connection client = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(client);
                if (endpoint == p.pgbouncer) {
                    p.oracle.editIni(entry, "other = host=");
                } else {
                    Files.writeString(p.pgmuxIni, Files.readString(p.pgmuxIni).replace(entry, "other = host="));
                }
                return psql(endpoint, ADMIN, ADMIN_PASSWORD, "RELOAD") + stillServed(endpoint, client);
            }
        };
        assertSame(p, removed);
        assertSame(p, endpoint -> login(endpoint, "app", USER, PASSWORD));
    }

    /**
     * RELOAD compares the server_tls_* settings, not what their files hold: a CA file replaced at the same path marks
     * no server connection close_needed (PgBouncer 1.25 compares the file names only), one named anew marks them.
     */
    @Test
    void reloadMarksServersCloseNeededForAServerTlsFileNamedAnewNotForOneReplacedAlike() throws Exception {
        String first = Files.readString(TestCertificates.authority(Files.createDirectory(dir.resolve("ca-a")), "CA A")
                .caCertificate());
        String second = Files.readString(TestCertificates.authority(Files.createDirectory(dir.resolve("ca-b")), "CA B")
                .caCertificate());
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword(),
                "pool_mode = transaction\nauth_type = md5\nserver_tls_sslmode = prefer\nserver_tls_ca_file = ca.pem\n",
                "ca.pem", first);
        Scenario scenario = endpoint -> {
            List<String> seen = new ArrayList<>();
            try (Connection client = connect(endpoint, "app", USER, PASSWORD)) {
                client.setAutoCommit(false);
                backendPid(client);
                if (endpoint == p.pgbouncer) {
                    p.oracle.writeFile("ca.pem", second);
                } else {
                    Files.writeString(p.pgmuxIni.resolveSibling("ca.pem"), second);
                }
                psql(endpoint, ADMIN, ADMIN_PASSWORD, "RELOAD");
                seen.add("replaced: close_needed " + closeNeeded(endpoint));
                if (endpoint == p.pgbouncer) {
                    p.oracle.writeFile("cb.pem", second);
                    p.oracle.editIni("ca.pem", "cb.pem");
                } else {
                    Files.writeString(p.pgmuxIni.resolveSibling("cb.pem"), second);
                    Files.writeString(p.pgmuxIni, Files.readString(p.pgmuxIni).replace("ca.pem", "cb.pem"));
                }
                psql(endpoint, ADMIN, ADMIN_PASSWORD, "RELOAD");
                seen.add("named anew: close_needed " + closeNeeded(endpoint));
                client.rollback();
            }
            return String.join("; ", seen);
        };
        assertSame(p, "replaced: close_needed 0; named anew: close_needed 1", scenario);
    }

    /** What {@code client} sees of its next query: whether it is still served, or the error that ended it. */
    private static String stillServed(Endpoint endpoint, Connection client) {
        return "then: " + seen(endpoint, e -> Sql.value(client, "SELECT 'still served'"));
    }

    /** SHOW SERVERS' close_needed of the one server connection. */
    private static String closeNeeded(Endpoint endpoint) throws Exception {
        return rowOf(endpoint, "SHOW SERVERS", "S|").split("\\|", -1)[13];
    }

    @Test
    void anUnlistedDatabaseIsServedFromTheStarEntryAlike() throws Exception {
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword() + "\n* = host="
                + db.host() + " port=" + db.port() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), "pool_mode = transaction\nauth_type = md5\n");
        assertSame(p, endpoint -> {
            try (Connection client = connect(endpoint, db.name(), USER, PASSWORD)) {
                return value(client, "SELECT current_database()");
            }
        });
    }

    @Test
    void anAbstractSocketHostIsReachedAndShownAlike() throws Exception {
        String name = db.server().abstractSocketName();
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword() + "\nlocal = host="
                + name + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), "pool_mode = transaction\nauth_type = md5\n");
        Scenario reached = endpoint -> {
            try (Connection client = connect(endpoint, "local", USER, PASSWORD)) {
                return "over a Unix socket: "
                        + value(client, "SELECT inet_client_addr() IS NULL") + "; SHOW DATABASES: " + psql(endpoint,
                        ADMIN, ADMIN_PASSWORD, "SHOW DATABASES").lines().filter(l -> l.startsWith("local|"))
                        .map(l -> l.split("\\|")[1]).findFirst().orElse("no row");
            }
        };
        assertSame(p, reached);
        assertEquals("over a Unix socket: t; SHOW DATABASES: " + name, seen(p.pgmux, reached));
    }

    /** load_balance_hosts = round-robin, the default: a pool's first login goes to the first host, each next one on. */
    @Test
    void roundRobinLoginsStartAtTheFirstHostAlike() throws Exception {
        String login = " user=" + db.superuser() + " password=" + db.superuserPassword();
        Poolers p = startEntry(login + "\nrr = host=" + db.host() + "," + db.server().abstractSocketName() + " port="
                + db.port() + " dbname=" + db.name() + login, "pool_mode = transaction\nauth_type = md5\n");
        Scenario logins = endpoint -> {
            List<Connection> clients = new ArrayList<>();
            List<String> hosts = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Connection client = connect(endpoint, "rr", USER, PASSWORD);
                    clients.add(client);
                    // each client holds its server in a transaction, so each query needs a login of its own
                    client.setAutoCommit(false);
                    hosts.add(value(client, "SELECT coalesce(host(inet_server_addr()), 'socket')"));
                }
            } finally {
                for (Connection client : clients) {
                    client.close();
                }
            }
            return String.join(" ", hosts);
        };
        // once each: a second run would go on from where the first left the pool's turn
        String pgmux = seen(p.pgmux, logins);
        assertEquals(seen(p.pgbouncer, logins), pgmux);
        assertEquals("" + db.host() + " socket " + db.host(), pgmux);
    }

    @Test
    void disablePqexecRefusesASimpleQueryAlike() throws Exception {
        // pgjdbc sets extra_float_digits with a simple Query at connect
        Poolers p = start("disable_pqexec = 1\n");
        assertSame(p, endpoint -> login(endpoint, "app", USER, PASSWORD));
    }

    @Test
    void disabledDatabaseRefusesNewClientsAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> {
            psql(endpoint, ADMIN, ADMIN_PASSWORD, "DISABLE app");
            return login(endpoint, "app", USER, PASSWORD);
        });
    }

    // --- authentication ---------------------------------------------------------------------------------------

    @Test
    void authQueryUserLogsInAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Poolers p = authQuery("");
        assertSame(p, endpoint -> currentUser(connect(endpoint, "app", user.name(), user.password())));
        assertEquals(user.name(), currentUser(connect(p.pgmux, "app", user.name(), user.password())));
    }

    @Test
    void authQueryUserWithAWrongPasswordIsRefusedAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Poolers p = authQuery("");
        assertSame(p, endpoint -> login(endpoint, "app", user.name(), "wrong"));
    }

    @Test
    void authQueryUserWhosePasswordExpiredIsRefusedAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + user.name() + " VALID UNTIL '2000-01-01'");
        }
        Poolers p = authQuery("");
        assertSame(p, endpoint -> login(endpoint, "app", user.name(), user.password()));
    }

    /** A deliberate difference: PgBouncer tells the client at once that the query found no such user. */
    @Test
    void authQueryWithoutARowRefusesAsAnUnknownUserInPgmux() throws Exception {
        Poolers p = authQuery("");
        Scenario scenario = endpoint -> login(endpoint, "app", "nosuchuser", "whatever");
        assertEquals("FATAL 08P01: no such user", seen(p.pgbouncer, scenario));
        assertEquals("FATAL 08P01: SASL authentication failed", seen(p.pgmux, scenario));
    }

    @Test
    void failingAuthQueryIsRefusedAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Poolers p = authQuery("auth_query = SELECT usename, passwd FROM no_such_table WHERE usename = $1\n");
        assertSame(p, endpoint -> login(endpoint, "app", user.name(), user.password()));
    }

    /**
     * A database entry's {@code user=} without {@code password=} logs in with that user's auth file secret: the
     * console admin's plain-text password, which the server demands by SCRAM.
     */
    @Test
    void aForcedUserWithoutAPasswordLogsInWithItsAuthFileSecretAlike() throws Exception {
        db.createUser(ADMIN, ADMIN_PASSWORD, PasswordMethod.SCRAM_SHA_256);
        Poolers p = startEntry(" user=" + ADMIN, "pool_mode = transaction\nauth_type = md5\n");
        assertSame(p, endpoint -> currentUser(connect(endpoint, "app", USER, PASSWORD)));
        assertEquals(ADMIN, currentUser(connect(p.pgmux, "app", USER, PASSWORD)));
    }

    /** A console user missing from the auth file is looked up by the [pgbouncer] section's auth_query. */
    @Test
    void consoleUserFoundByAuthQueryLogsInAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Poolers p = authQuery("auth_dbname = app\nstats_users = " + user.name() + "\n");
        assertSame(p, endpoint -> withoutFreeCounts(psql(endpoint, user.name(), user.password(), "SHOW LISTS")));
        assertSame(p, endpoint -> psql(endpoint, user.name(), "wrong", "SHOW LISTS"));
    }

    /** Without auth_dbname the console's users would be looked up in the console itself, which cannot be. */
    @Test
    void consoleUserLookedUpWithoutAnAuthDbnameIsAConfigErrorAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Poolers p = authQuery("stats_users = " + user.name() + "\n");
        assertSame(p, endpoint -> psql(endpoint, user.name(), user.password(), "SHOW LISTS"));
        assertThrows(PsqlFailed.class, () -> psql(p.pgmux, user.name(), user.password(), "SHOW LISTS"));
    }

    @Test
    void hbaRejectLineIsRefusedAlike() throws Exception {
        Poolers p = hba("host all " + USER + " 127.0.0.1/32 reject\nhost all all 127.0.0.1/32 md5\n");
        assertSame(p, endpoint -> login(endpoint, "app", USER, PASSWORD));
    }

    @Test
    void hbaWithoutAMatchingLineIsRefusedAlike() throws Exception {
        Poolers p = hba("host all " + ADMIN + " 127.0.0.1/32 md5\n");
        assertSame(p, endpoint -> login(endpoint, "app", USER, PASSWORD));
    }

    /** An IPv4-mapped address is an IPv6 line: it loads, and a client over IPv4 goes on to the next line. */
    @Test
    void hbaIpv4MappedLineLoadsAndIsPassedOverByAnIpv4ClientAlike() throws Exception {
        Poolers p = hba("host all all ::ffff:127.0.0.1/128 reject\nhost all all 127.0.0.1/32 md5\n");
        assertSame(p, endpoint -> login(endpoint, "app", USER, PASSWORD));
        Poolers only = hba("host all all ::ffff:127.0.0.1/128 md5\n");
        assertSame(only, endpoint -> login(endpoint, "app", USER, PASSWORD));
    }

    @Test
    void hbaPasswordLineLogsInAndRefusesAWrongPasswordAlike() throws Exception {
        Poolers p = hba("host all all 127.0.0.1/32 password\n");
        assertSame(p, endpoint -> login(endpoint, "app", USER, PASSWORD));
        assertSame(p, endpoint -> login(endpoint, "app", USER, "wrong"));
    }

    @Test
    void anyLogsInWithoutAPasswordAlike() throws Exception {
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword(),
                "pool_mode = transaction\nauth_type = any\n");
        assertSame(p, endpoint -> currentUser(connect(endpoint, "app", "whoever", "")));
    }

    // --- protocol input no driver sends -----------------------------------------------------------------------

    /** Each: what is sent instead of a proper startup, the bytes, and the refusal both must answer with. */
    static Stream<Arguments> badStartups() {
        byte[] sslRequest = RawClient.concat(RawClient.int32(8), RawClient.int32(80877103));
        byte[] gssEncRequest = RawClient.concat(RawClient.int32(8), RawClient.int32(80877104));
        byte[] startup = RawClient.startupPacket(Map.of("user", USER, "database", "app"));
        return Stream.of(
                Arguments.of("a startup packet pipelined behind SSLRequest", RawClient.concat(sslRequest, startup),
                        "FATAL 08P01: received unencrypted data after SSL request"),
                Arguments.of("a startup packet pipelined behind GSSENCRequest",
                        RawClient.concat(gssEncRequest, startup),
                        "FATAL 08P01: received unencrypted data after GSSAPI encryption request"),
                Arguments.of("a length below 8", "\0\0\0\2garbage!".getBytes(StandardCharsets.US_ASCII),
                        "FATAL 08P01: bad packet header: '0000000267617262'"),
                Arguments.of("an unknown protocol code", RawClient.concat(RawClient.int32(8), RawClient.int32(1234)),
                        "FATAL 08P01: bad packet header: '00000008000004d2'"),
                Arguments.of("a password message", RawClient.frame('p', RawClient.cstring("secret")),
                        "FATAL 08P01: client password pkt before startup packet"),
                Arguments.of("protocol 2.0", RawClient.concat(RawClient.int32(8), RawClient.int32(2 << 16)),
                        "FATAL 08P01: old V2 protocol not supported"),
                Arguments.of("options other than -c", startupWith("options", "-X foo"), OPTIONS_REFUSED),
                Arguments.of("options -c without a value", startupWith("options", "-c foo"), OPTIONS_REFUSED),
                Arguments.of("options naming no setting", startupWith("options", "-c foo\\ bar=x"),
                        "FATAL 08P01: unsupported startup parameter in options: foo bar"),
                Arguments.of("a parameter naming no setting", startupWith("foo bar", "x"),
                        "FATAL 08P01: unsupported startup parameter: foo bar"),
                Arguments.of("a user name of 128 bytes",
                        RawClient.startupPacket(Map.of("user", "u".repeat(128), "database", "app")),
                        "FATAL 08P01: username too long"));
    }

    /** A startup packet of {@link #USER} to database app with one more parameter. */
    private static byte[] startupWith(String name, String value) {
        return RawClient.startupPacket(Map.of("user", USER, "database", "app", name, value));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badStartups")
    void badInputInPlaceOfAStartupIsRefusedAlike(String what, byte[] bytes, String refusal) throws Exception {
        Poolers p = start("");
        assertEquals(refusal, answer(p.pgbouncer, bytes, false), "PgBouncer, " + what);
        assertEquals(refusal, answer(p.pgmux, bytes, false), "pgmux, " + what);
    }

    /** Each: what a logged-in client sends, the bytes, and the refusal both must answer with. */
    static Stream<Arguments> badMessages() {
        byte[] sync = RawClient.frame('S', new byte[0]);
        byte[] unterminated = "abc".getBytes(StandardCharsets.US_ASCII);
        return Stream.of(
                Arguments.of("an unknown message type", RawClient.frame('y', new byte[0]),
                        "FATAL 08P01: unknown pkt"),
                Arguments.of("a startup packet", RawClient.startupPacket(Map.of("user", USER, "database", "app")),
                        "FATAL 08P01: unknown pkt"),
                Arguments.of("a password message", RawClient.frame('p', RawClient.cstring(PASSWORD)),
                        "FATAL 08P01: unknown pkt"),
                Arguments.of("a length below 4", new byte[] {'Q', 0, 0, 0, 2},
                        "FATAL 08P01: bad packet header: '5100000002'"),
                Arguments.of("a malformed Parse", RawClient.concat(RawClient.frame('P', unterminated), sync),
                        PARSE_FAILED),
                Arguments.of("a malformed Bind", RawClient.concat(RawClient.frame('B', unterminated), sync),
                        PARSE_FAILED),
                Arguments.of("a malformed Describe", RawClient.concat(RawClient.frame('D', new byte[] {'S'}),
                        sync), PARSE_FAILED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badMessages")
    void badInputOfALoggedInClientIsRefusedAlike(String what, byte[] bytes, String refusal) throws Exception {
        Poolers p = start("");
        assertEquals(refusal, answer(p.pgbouncer, bytes, true), "PgBouncer, " + what);
        assertEquals(refusal, answer(p.pgmux, bytes, true), "pgmux, " + what);
    }

    @Test
    void aStartupPacketSentAgainDuringLoginIsRefusedAlike() throws Exception {
        Poolers p = start("");
        for (Endpoint endpoint : List.of(p.pgbouncer, p.pgmux)) {
            try (RawClient c = new RawClient(endpoint.port())) {
                c.startup(Map.of("user", USER, "database", "app"));
                assertEquals('R', c.read().type());
                c.sendRaw(RawClient.startupPacket(Map.of("user", USER, "database", "app")));
                assertEquals("FATAL 08P01: client re-sent startup pkt", outcome(c), endpoint.name());
            }
        }
    }

    /** libpq 18 asks for 3.2 with max_protocol_version; a protocol option is one neither pooler knows. */
    @Test
    void aNewerMinorVersionAndAProtocolOptionAreNegotiatedDownToThreeZeroAlike() throws Exception {
        Poolers p = start("");
        byte[] startup = RawClient.startupPacket(Map.of("user", USER, "database", "app", "_pq_.test_option", ""));
        startup[7] = 2;
        byte[] threeZeroWithoutTheOption = RawClient.concat(RawClient.int32(3 << 16), RawClient.int32(1),
                RawClient.cstring("_pq_.test_option"));
        for (Endpoint endpoint : List.of(p.pgbouncer, p.pgmux)) {
            try (RawClient c = new RawClient(endpoint.port())) {
                c.sendRaw(startup);
                RawClient.Message negotiation = c.read();
                assertEquals('v', negotiation.type(), endpoint.name());
                assertArrayEquals(threeZeroWithoutTheOption, negotiation.body(), endpoint.name());
                assertEquals('R', c.read().type(), endpoint.name() + ": the password request follows");
            }
        }
    }

    @Test
    void anUnterminatedConsoleQueryIsRefusedAlike() throws Exception {
        Poolers p = start("");
        for (Endpoint endpoint : List.of(p.pgbouncer, p.pgmux)) {
            try (RawClient c = new RawClient(endpoint.port())) {
                c.login("pgbouncer", ADMIN, ADMIN_PASSWORD);
                c.sendRaw(RawClient.frame('Q', "SHOW VERSION".getBytes(StandardCharsets.US_ASCII)));
                assertEquals("FATAL 08P01: incomplete query", outcome(c), endpoint.name());
            }
        }
    }

    /** A deliberate difference: pgmux answers as PostgreSQL would, and the client can go on. */
    @Test
    void bindOfAnUnknownStatementEndsTheClientInPgBouncerOnly() throws Exception {
        Poolers p = start("");
        byte[] bind = RawClient.concat(RawClient.frame('B', RawClient.concat(RawClient.cstring(""),
                RawClient.cstring("nope"), new byte[6])), RawClient.frame('S', new byte[0]));
        assertEquals("FATAL 08P01: prepared statement did not exist", answer(p.pgbouncer, bind, true));
        assertEquals("ERROR 26000: prepared statement \"nope\" does not exist, connection kept",
                answer(p.pgmux, bind, true));
    }

    /** A deliberate difference: pgmux answers as PostgreSQL would, and the client can go on. */
    @Test
    void parseReusingANameEndsTheClientInPgBouncerOnly() throws Exception {
        Poolers p = start("");
        byte[] parse = RawClient.concat(RawClient.frame('P', RawClient.concat(RawClient.cstring("s1"),
                RawClient.cstring("SELECT 1"), new byte[2])), RawClient.frame('S', new byte[0]));
        assertEquals("FATAL 08P01: prepared statement name is already in use",
                answer(p.pgbouncer, RawClient.concat(parse, parse), true));
        assertEquals("ERROR 42P05: prepared statement \"s1\" already exists, connection kept",
                answer(p.pgmux, RawClient.concat(parse, parse), true));
    }

    /** A deliberate difference: pgmux replays every setting a client asks for, PgBouncer only those it tracks. */
    @Test
    void optionsSettingSearchPathAreTakenByPgmuxOnly() throws Exception {
        Poolers p = start("");
        Properties options = new Properties();
        options.setProperty("options", "-c search_path=x");
        Scenario scenario = endpoint -> login(endpoint, "app", USER, PASSWORD, options);
        assertEquals("FATAL 08P01: unsupported startup parameter in options: search_path",
                seen(p.pgbouncer, scenario));
        assertEquals("logged in", seen(p.pgmux, scenario));
    }

    /** IntervalStyle is in PgBouncer's default track_extra_parameters; extra_float_digits in the ini's ignored list. */
    @ParameterizedTest
    @ValueSource(strings = {"-c IntervalStyle=iso_8601", "--IntervalStyle=iso_8601",
        "-cIntervalStyle=iso_8601 -c extra_float_digits=2"})
    void optionsSettingATrackedParameterAreTakenAlike(String value) throws Exception {
        Poolers p = start("");
        Properties options = new Properties();
        options.setProperty("options", value);
        for (Endpoint endpoint : List.of(p.pgbouncer, p.pgmux)) {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD, options)) {
                assertEquals("iso_8601 1", Sql.value(c, "SELECT current_setting('IntervalStyle') || ' ' "
                        + "|| current_setting('extra_float_digits')"), endpoint.name());
            }
        }
    }

    /** With options in ignore_startup_parameters, a tracked setting in it is still applied, a bad name ignored. */
    @Test
    void optionsListedAsIgnoredStillSetWhatTheyTrackAlike() throws Exception {
        Poolers p = start("ignore_startup_parameters = extra_float_digits, options\n");
        Properties options = new Properties();
        options.setProperty("options", "-c foo\\ bar=x -c TimeZone=Europe/Lisbon");
        for (Endpoint endpoint : List.of(p.pgbouncer, p.pgmux)) {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD, options)) {
                assertEquals("Europe/Lisbon", Sql.value(c, "SELECT current_setting('TimeZone')"), endpoint.name());
            }
        }
    }

    /** A deliberate difference: with options ignored, PgBouncer leaves out what it does not track, pgmux takes it. */
    @Test
    void optionsListedAsIgnoredStillSetSearchPathInPgmuxOnly() throws Exception {
        Poolers p = start("ignore_startup_parameters = extra_float_digits, options\n");
        Properties options = new Properties();
        options.setProperty("options", "-c search_path=x");
        String sql = "SELECT current_setting('search_path')";
        try (Connection c = connect(p.pgbouncer, "app", USER, PASSWORD, options)) {
            assertEquals("\"$user\", public", Sql.value(c, sql));
        }
        try (Connection c = connect(p.pgmux, "app", USER, PASSWORD, options)) {
            assertEquals("x", Sql.value(c, sql));
        }
    }

    /**
     * What {@code endpoint} answered to {@code bytes}, sent in one write in place of the startup packet or, with
     * {@code loggedIn}, after logging in.
     */
    private static String answer(Endpoint endpoint, byte[] bytes, boolean loggedIn) throws Exception {
        try (RawClient c = new RawClient(endpoint.port())) {
            if (loggedIn) {
                c.login("app", USER, PASSWORD);
            }
            c.sendRaw(bytes);
            return outcome(c);
        }
    }

    /**
     * What the pooler answered, read until it closed the connection or sent ReadyForQuery after an error:
     * {@code FATAL 08P01: text} for an error that ended the connection, {@code ERROR 26000: text, connection kept}
     * for one the client may go on after, {@code closed without an error}, or {@code no answer}.
     */
    private static String outcome(RawClient c) throws IOException {
        String error = null;
        try {
            while (true) {
                RawClient.Message m = c.read();
                if (m.type() == 'E' && error == null) {
                    error = m.field('S') + " " + m.field('C') + ": " + m.field('M');
                } else if (m.type() == 'Z' && error != null) {
                    return error + ", connection kept";
                }
            }
        } catch (EOFException | SocketException e) {
            // a reset once the error is out ends the connection as a close does
            return error != null ? error : "closed without an error";
        } catch (SocketTimeoutException e) {
            return error != null ? error + ", then no answer" : "no answer";
        }
    }

    /** auth_user is the superuser; the database entry names no user, so pools log in as the client's user. */
    private Poolers authQuery(String settings) throws Exception {
        return startEntry("", "pool_mode = transaction\nauth_type = scram-sha-256\nauth_user = " + db.superuser() + "\n"
                + settings);
    }

    private Poolers hba(String lines) throws Exception {
        return startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword(),
                "pool_mode = transaction\nauth_type = hba\nauth_hba_file = hba.conf\n", "hba.conf", lines);
    }

    private static String currentUser(Connection c) throws SQLException {
        try (c; ResultSet rs = c.createStatement().executeQuery("SELECT current_user")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The SHOW views' column names in order, as psql prints them and exporters read them (1.25's set). */
    @ParameterizedTest
    @ValueSource(strings = {"POOLS", "STATS", "STATS_TOTALS", "STATS_AVERAGES", "TOTALS", "CLIENTS", "SERVERS",
            "DATABASES", "USERS", "LISTS", "CONFIG", "VERSION", "STATE", "FDS", "SOCKETS", "ACTIVE_SOCKETS", "MEM"})
    void showViewsHaveTheOraclesColumns(String view) throws Exception {
        Poolers p = start("");
        assertEquals(header(p.pgbouncer, view), header(p.pgmux, view), "SHOW " + view);
    }

    // --- the two poolers and what a client sees ---------------------------------------------------------------

    /** Both poolers on one ini: [pgbouncer] gets {@code settings}; the database entry gets {@code databaseKeys}. */
    private Poolers start(String settings, String... databaseKeys) throws Exception {
        String extra = String.join(" ", databaseKeys);
        return startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword()
                + (extra.isEmpty() ? "" : " " + extra), (extra.contains("pool_mode") ? "" : "pool_mode = transaction\n")
                + "auth_type = md5\n" + settings);
    }

    /**
     * Both poolers on one ini whose database {@code app} has {@code entryKeys} after where it lives, and whose
     * [pgbouncer] section has {@code settings}; the auth file holds the superuser too, for auth_user. {@code files}
     * (name, content) are written beside each pooler's ini.
     */
    private Poolers startEntry(String entryKeys, String settings, String... files) throws Exception {
        String userlist = "\"" + USER + "\" \"" + PASSWORD + "\"\n\"" + ADMIN + "\" \"" + ADMIN_PASSWORD + "\"\n\""
                + db.superuser() + "\" \"" + db.superuserPassword() + "\"\n\"" + OTHER + "\" \"" + OTHER_PASSWORD
                + "\"\n";
        String body = "[databases]\napp = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + entryKeys + "\n[pgbouncer]\nauth_file = userlist.txt\nadmin_users = " + ADMIN + "\n"
                + "ignore_startup_parameters = extra_float_digits\n" + settings;
        List<String> written = new ArrayList<>(List.of("userlist.txt", userlist));
        written.addAll(List.of(files));
        PgBouncerProcess pgbouncer = PgBouncerProcess.start(binary, body, written.toArray(String[]::new));
        started.add(pgbouncer);
        for (int i = 0; i + 1 < written.size(); i += 2) {
            Files.writeString(dir.resolve(written.get(i)), written.get(i + 1));
        }
        Path ini = dir.resolve("pgmux.ini");
        Files.writeString(ini, body.replace("[pgbouncer]\n", "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\n"));
        PgMuxProxy pgmux = ProxyConfigLoader.load(ini).start();
        started.add(pgmux);
        return new Poolers(new Endpoint("PgBouncer", pgbouncer.port()), new Endpoint("pgmux", pgmux.port()),
                pgbouncer, ini);
    }

    private record Poolers(Endpoint pgbouncer, Endpoint pgmux, PgBouncerProcess oracle, Path pgmuxIni) {
    }

    private record Endpoint(String name, int port) {
    }

    /** What a client does against one pooler; returns what it saw, compared whole with the other pooler's. */
    @FunctionalInterface
    private interface Scenario {
        String run(Endpoint endpoint) throws Exception;
    }

    /** psql exited non-zero: an outcome a scenario may compare, unlike psql not finishing. */
    private static final class PsqlFailed extends Exception {
        PsqlFailed(int exit, String output) {
            super("psql exit " + exit + ": " + output);
        }
    }

    /**
     * What the client saw: what the scenario returned, or the error that ended it, as the server sent it (severity,
     * SQLSTATE, message and any DETAIL and HINT, each on a line of its own) or as psql printed it. Anything else is
     * not an outcome but the test's failure: a check of the scenario's own, an exception of the test's code, and a
     * pooler that did not answer within the client's socketTimeout (two poolers hanging alike are no agreement).
     */
    private static String seen(Endpoint endpoint, Scenario scenario) {
        try {
            return scenario.run(endpoint);
        } catch (TestAbortedException e) {
            throw e; // a missing client skips the test (or fails it under CI); it is not what a client saw
        } catch (PSQLException e) {
            if (causedBy(e, SocketTimeoutException.class)) {
                throw new AssertionError(endpoint.name() + " did not answer within the client's socketTimeout", e);
            }
            ServerErrorMessage server = e.getServerErrorMessage();
            if (server == null) {
                return "client error " + e.getSQLState() + ": " + e.getMessage();
            }
            return server.getSeverity() + " " + server.getSQLState() + ": " + server.getMessage()
                    + (server.getDetail() == null ? "" : "\nDETAIL: " + server.getDetail())
                    + (server.getHint() == null ? "" : "\nHINT: " + server.getHint());
        } catch (PsqlFailed e) {
            return e.getMessage();
        } catch (Exception e) {
            throw new AssertionError(endpoint.name() + ": the scenario failed on its own: " + e, e);
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * What both clients saw must be the same, whole: every line of every row. pgmux may add a DETAIL or HINT line to
     * an error whose primary text and SQLSTATE are PgBouncer's (a deliberate difference: runbooks and client code
     * match on those), so such a line of pgmux's that PgBouncer's output lacks is left out. Returns PgBouncer's.
     */
    private static String assertSame(Poolers p, Scenario scenario) {
        String oracle = seen(p.pgbouncer, scenario);
        return assertSame(oracle, seen(p.pgmux, scenario));
    }

    private static String assertSame(String oracle, String pgmuxSaw) {
        String pgmux = withoutAddedDetail(pgmuxSaw, oracle);
        assertEquals(oracle, pgmux, "PgBouncer saw «" + oracle + "», pgmux «" + pgmux + "»");
        return oracle;
    }

    /**
     * {@link #assertSame} where both poolers could fail alike (a timeout neither enforced, a scenario that no longer
     * tests what it says): PgBouncer's outcome is pinned to {@code expected} too.
     */
    private static void assertSame(Poolers p, String expected, Scenario scenario) {
        assertEquals(expected, assertSame(p, scenario), "PgBouncer's outcome, the oracle's");
    }

    /**
     * {@link #assertSame(Poolers, String, Scenario)} with the scenario run against both poolers at once, for one that
     * waits out a timeout: each pooler keeps its own clock, so neither has to wait for the other's.
     */
    private static void assertSameAtOnce(Poolers p, String expected, Scenario scenario) throws Exception {
        Outcomes seen = seenAtOnce(p, scenario);
        assertEquals(expected, assertSame(seen.pgbouncer(), seen.pgmux()), "PgBouncer's outcome, the oracle's");
    }

    /** What each pooler's client saw, the scenario run against both at once. */
    private static Outcomes seenAtOnce(Poolers p, Scenario scenario) throws Exception {
        FutureTask<String> oracle = new FutureTask<>(() -> seen(p.pgbouncer, scenario));
        new Thread(oracle, "scenario-on-pgbouncer").start();
        String pgmux = seen(p.pgmux, scenario);
        try {
            return new Outcomes(oracle.get(), pgmux);
        } catch (ExecutionException e) {
            // an assertion of seen's, or the abort of a test whose client is missing, as if thrown here
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw (Exception) e.getCause();
        }
    }

    private record Outcomes(String pgbouncer, String pgmux) {
    }

    private static String withoutAddedDetail(String pgmux, String oracle) {
        Set<String> oracleLines = Set.copyOf(oracle.lines().toList());
        return pgmux.lines().filter(l -> oracleLines.contains(l) || !ADDED_DETAIL.matcher(l).lookingAt())
                .collect(Collectors.joining("\n", "", pgmux.endsWith("\n") ? "\n" : ""));
    }

    /** Logs in and out: what a client sees of a login that works. */
    private static String login(Endpoint endpoint, String database, String user, String password) throws SQLException {
        return login(endpoint, database, user, password, new Properties());
    }

    private static String login(Endpoint endpoint, String database, String user, String password, Properties extra)
            throws SQLException {
        connect(endpoint, database, user, password, extra).close();
        return "logged in";
    }

    private static Connection connect(Endpoint endpoint, String database, String user, String password)
            throws SQLException {
        return connect(endpoint, database, user, password, new Properties());
    }

    private static Connection connect(Endpoint endpoint, String database, String user, String password,
            Properties extra) throws SQLException {
        Properties props = new Properties();
        props.putAll(extra);
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("connectTimeout", "10");
        props.setProperty("socketTimeout", "30");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + endpoint.port() + "/" + database, props);
    }

    /**
     * Runs {@code sql} on the admin console with psql, as operators do (PgBouncer's console answers pgjdbc's
     * post-login SETs with "SET failed"; pgmux's accepts them, see the differences page), each command in turn in
     * one session. Returns what psql printed, with the port taken out; throws with psql's error output when it
     * exits non-zero.
     */
    private static String psql(Endpoint endpoint, String user, String password, String... sql) throws Exception {
        Path psql = Clients.executable("psql", "install the PostgreSQL client tools (postgresql-client)");
        List<String> command = new ArrayList<>(List.of(psql.toString(), "-X", "-A", "-F", "|", "-v",
                "VERBOSITY=verbose", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String.valueOf(endpoint.port()),
                "-U", user, "-d", "pgbouncer"));
        for (String one : sql) {
            command.addAll(List.of("-c", one));
        }
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("PGPASSWORD", password);
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        pb.redirectErrorStream(true);
        Process process = pb.start();
        // the port as a number of its own: a random name (an abstract socket's) may hold its digits
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .replaceAll("(?<![0-9])" + endpoint.port() + "(?![0-9])", "PORT");
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("psql did not finish: " + out);
        }
        if (process.exitValue() != 0) {
            throw new PsqlFailed(process.exitValue(), out.strip());
        }
        return out;
    }

    /** The first column of each row {@code sql} returns on the console, in order. */
    private static List<String> firstColumn(Endpoint endpoint, String sql) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, sql).lines().skip(1).filter(l -> !l.matches("\\(\\d+ rows?\\)"))
                .map(l -> l.split("\\|", -1)[0]).toList();
    }

    /** The row of {@code sql}'s result that starts with {@code start}, as psql prints it. */
    private static String rowOf(Endpoint endpoint, String sql, String start) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, sql).lines().filter(l -> l.startsWith(start)).findFirst()
                .orElse("no row " + start + " in " + sql);
    }

    /** The named columns of the first row of {@code sql}'s result that starts with {@code start}, as name=value. */
    private static String columns(Endpoint endpoint, String sql, String start, String... names) throws Exception {
        List<String> lines = psql(endpoint, ADMIN, ADMIN_PASSWORD, sql).lines().toList();
        List<String> header = List.of(lines.get(0).split("\\|", -1));
        List<String> row = lines.stream().filter(l -> l.startsWith(start)).findFirst()
                .map(l -> List.of(l.split("\\|", -1))).orElseThrow(() -> new IllegalStateException(
                        "no row " + start + " in " + sql));
        return Stream.of(names).map(n -> n + "=" + row.get(header.indexOf(n))).collect(Collectors.joining(" "));
    }

    /** SHOW FDS's pooler rows of TCP sockets, without their fd. */
    private static List<String> tcpPoolerRows(Endpoint endpoint) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW FDS").lines().filter(l -> l.contains("|pooler|"))
                .filter(l -> !l.contains("|unix|")).map(l -> l.substring(l.indexOf('|') + 1)).toList();
    }

    /** SHOW CONFIG's changeable column by key. */
    private static Map<String, String> changeable(Endpoint endpoint) throws Exception {
        return showConfig(endpoint, 3);
    }

    /** One column of SHOW CONFIG (1 value, 2 default, 3 changeable) by key. */
    private static Map<String, String> showConfig(Endpoint endpoint, int column) throws Exception {
        Map<String, String> byKey = new TreeMap<>();
        psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW CONFIG").lines().skip(1).map(l -> l.split("\\|", -1))
                .filter(columns -> columns.length == 4).forEach(columns -> byKey.put(columns[0], columns[column]));
        return byKey;
    }

    /** SHOW CLIENTS' user, database and state of each client, by user. */
    private static String clientStates(Endpoint endpoint) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW CLIENTS").lines().filter(l -> l.startsWith("C|"))
                .map(l -> l.split("\\|", -1)).map(c -> c[1] + "/" + c[2] + " " + c[4]).sorted()
                .collect(Collectors.joining(", "));
    }

    private static String header(Endpoint endpoint, String view) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW " + view).lines().findFirst().orElse("");
    }
}
