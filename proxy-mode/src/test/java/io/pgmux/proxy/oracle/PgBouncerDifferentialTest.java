package io.pgmux.proxy.oracle;

import static io.pgmux.testing.Sql.backendPid;
import static io.pgmux.testing.Sql.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.config.ProxyConfigLoader;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
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
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static Path binary;
    private static int[] version;

    private final TestDatabase db;
    private final List<AutoCloseable> started = new ArrayList<>();
    @TempDir
    Path dir;

    PgBouncerDifferentialTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void findOracle() throws Exception {
        binary = PgBouncerProcess.binary().orElse(null);
        if (binary == null) {
            Clients.missing("no pgbouncer binary: install Debian's pgbouncer or set PGMUX_TEST_PGBOUNCER to a "
                    + "PgBouncer 1.25 build");
        }
        version = PgBouncerProcess.version(binary);
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
        assertSame(p, endpoint -> connect(endpoint, "nosuchdb", USER, PASSWORD).close());
    }

    @Test
    void unknownDatabaseWithAWrongPasswordIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> connect(endpoint, "nosuchdb", USER, "wrong").close());
    }

    /** A deliberate difference: pgmux tells a full proxy only to a client that authenticated. */
    @Test
    @SuppressWarnings("try") // the two clients only have to stay connected
    void maxClientConnWithAWrongPasswordIsRefusedAfterAuthenticationByPgmux() throws Exception {
        Poolers p = start("max_client_conn = 2\n");
        Scenario scenario = endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                connect(endpoint, "app", USER, "wrong").close();
            }
        };
        assertEquals("FATAL 08P01: no more connections allowed (max_client_conn)", seen(p.pgbouncer, scenario));
        assertEquals("FATAL 08P01: password authentication failed", seen(p.pgmux, scenario));
    }

    @Test
    void wrongPasswordIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> connect(endpoint, "app", USER, "wrong").close());
    }

    @Test
    void unknownUserIsRefusedAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> connect(endpoint, "app", "nobody", PASSWORD).close());
    }

    @Test
    @SuppressWarnings("try") // the two clients only have to stay connected
    void maxClientConnRefusesTheClientOverTheLimitAlike() throws Exception {
        Poolers p = start("max_client_conn = 2\n");
        assertSame(p, endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                connect(endpoint, "app", USER, PASSWORD).close();
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
                connect(endpoint, "app", USER, PASSWORD).close();
            }
        });
    }

    @Test
    @SuppressWarnings("try") // the client only has to stay connected
    void maxUserClientConnectionsRefusesTheUsersClientOverItsLimitAlike() throws Exception {
        Poolers p = start("max_user_client_connections = 5\n[users]\n" + USER + " = max_user_client_connections=1\n");
        assertSame(p, endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD)) {
                connect(endpoint, "app", USER, PASSWORD).close();
            }
        });
    }

    @Test
    void aDatabasesDateStyleAndTimeZoneMeetPgjdbcsOwnAlike() throws Exception {
        Poolers p = start("", "datestyle=German timezone=Europe/Paris");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                throw new IllegalStateException(text(c, "SELECT current_setting('DateStyle') || ' ' "
                        + "|| current_setting('TimeZone')"));
            }
        });
    }

    @Test
    void whatConnectQuerySetsIsFoundAlike() throws Exception {
        Poolers p = start("", "connect_query='SELECT set_config(''pgmux.greeting'', ''hello'', false)'");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                throw new IllegalStateException(text(c, "SELECT current_setting('pgmux.greeting')"));
            }
        });
    }

    @Test
    void aFailingConnectQueryLeavesTheConnectionInUseAlike() throws Exception {
        Poolers p = start("", "connect_query='SELECT no_such_column'");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                throw new IllegalStateException(text(c, "SELECT 'served'"));
            }
        });
    }

    @Test
    void loginNotifyMessageIsTheSameNoticeAlike() throws Exception {
        Poolers p = start("login_notify_message = Welcome to the pooler\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                java.sql.SQLWarning w = c.getWarnings();
                throw new IllegalStateException(w.getSQLState() + " " + w.getMessage() + " " + w.getNextWarning());
            }
        });
    }

    @Test
    void queryWaitTimeoutFailsTheWaitingClientAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\nquery_wait_timeout = 1\n");
        assertSame(p, endpoint -> {
            try (Connection holder = connect(endpoint, "app", USER, PASSWORD);
                 Connection waiter = connect(endpoint, "app", USER, PASSWORD)) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1");
                waiter.createStatement().execute("SELECT 1");
            }
        });
    }

    @Test
    void idleTransactionTimeoutEndsTheClientAlike() throws Exception {
        Poolers p = start("idle_transaction_timeout = 1\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
            }
        });
    }

    @Test
    void clientIdleTimeoutEndsTheClientAlike() throws Exception {
        Poolers p = start("client_idle_timeout = 1\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
            }
        });
    }

    @Test
    void queryTimeoutEndsALongQueryAlike() throws Exception {
        Poolers p = start("query_timeout = 1\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT pg_sleep(5)");
            }
        });
    }

    @Test
    void queryTimeoutEndsAClientWaitingForAServerAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\nquery_timeout = 1\n");
        assertSame(p, endpoint -> {
            try (Connection holder = connect(endpoint, "app", USER, PASSWORD);
                 Connection waiter = connect(endpoint, "app", USER, PASSWORD)) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1");
                waiter.createStatement().execute("SELECT 1");
            }
        });
    }

    /** PgBouncer takes the user-level query_timeout of the user the database logs in as. */
    @Test
    void theLoginUsersQueryTimeoutEndsALongQueryAlike() throws Exception {
        Poolers p = start("[users]\n" + db.superuser() + " = query_timeout=1\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.createStatement().execute("SELECT pg_sleep(5)");
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
            }
        };
        assertEquals("ok", seen(p.pgbouncer, scenario));
        assertEquals("FATAL 08P01: query timeout", seen(p.pgmux, scenario));
    }

    @Test
    void transactionTimeoutEndsAnOpenTransactionAlike() throws Exception {
        Poolers p = start("transaction_timeout = 1\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
            }
        });
    }

    @Test
    void theLoginUsersTransactionTimeoutEndsAnOpenTransactionAlike() throws Exception {
        Poolers p = start("[users]\n" + db.superuser() + " = transaction_timeout=1\n");
        assertSame(p, endpoint -> {
            try (Connection c = connect(endpoint, "app", USER, PASSWORD)) {
                c.setAutoCommit(false);
                c.createStatement().execute("SELECT 1");
                Thread.sleep(3_000);
                c.createStatement().execute("SELECT 1");
            }
        });
    }

    @Test
    void transactionModeServesTwoClientsFromOneServerAlike() throws Exception {
        Poolers p = start("default_pool_size = 1\n");
        assertSame(p, endpoint -> {
            try (Connection a = connect(endpoint, "app", USER, PASSWORD);
                 Connection b = connect(endpoint, "app", USER, PASSWORD)) {
                int first = backendPid(a);
                if (first != backendPid(b)) {
                    throw new IllegalStateException("two servers for a pool of one");
                }
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
            }
        });
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

    /** What SHOW CONFIG and SHOW STATE print after a SET or a PAUSE, SUSPEND, RESUME. */
    @ParameterizedTest
    @ValueSource(strings = {"SET default_pool_size = 7|SHOW CONFIG", "PAUSE|SHOW STATE", "SUSPEND|SHOW STATE",
            "SUSPEND|PAUSE", "PAUSE|SUSPEND", "PAUSE app|SHOW STATE", "PAUSE app|RESUME", "PAUSE|RESUME|SHOW STATE",
            "KILL app|RESUME", "SUSPEND|RESUME|SHOW STATE"})
    void consoleSequencesEndAlike(String commands) throws Exception {
        Poolers p = start("");
        Scenario scenario = endpoint -> {
            String[] each = commands.split("\\|");
            for (int i = 0; i < each.length - 1; i++) {
                psql(endpoint, ADMIN, ADMIN_PASSWORD, each[i]);
            }
            String last = psql(endpoint, ADMIN, ADMIN_PASSWORD, each[each.length - 1]);
            if (last.startsWith("key|value|default|changeable")) {
                last = last.lines().filter(l -> l.startsWith("default_pool_size|")).findFirst().orElse(last);
            }
            throw new IllegalStateException(last.strip().replace("\n", " / "));
        };
        assertEquals(seen(p.pgbouncer, scenario), seen(p.pgmux, scenario));
    }

    /**
     * A deliberate difference: PgBouncer answers SET of a key it does not change at run time as if it had worked;
     * pgmux refuses it, so that no setting is silently ignored.
     */
    @Test
    void setOfAReadOnlyKeyIsRefusedByPgmux() throws Exception {
        Poolers p = start("");
        assertEquals("SET listen_port=7000", psql(p.pgbouncer, ADMIN, ADMIN_PASSWORD, "SET listen_port = 7000").strip());
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> psql(p.pgmux, ADMIN, ADMIN_PASSWORD, "SET listen_port = 7000"));
        assertEquals("psql exit 1: ERROR:  08P01: SET failed", refused.getMessage().lines().findFirst().orElse(""));
        // neither changed the port (pgmux's ini asks for port 0, any free one)
        assertEquals("listen_port|PORT|6432|no", psql(p.pgbouncer, ADMIN, ADMIN_PASSWORD, "SHOW CONFIG").lines()
                .filter(l -> l.startsWith("listen_port|")).findFirst().orElse(""));
        assertEquals("listen_port|0|6432|no", psql(p.pgmux, ADMIN, ADMIN_PASSWORD, "SHOW CONFIG").lines()
                .filter(l -> l.startsWith("listen_port|")).findFirst().orElse(""));
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
                psql(endpoint, ADMIN, ADMIN_PASSWORD, "KILL_CLIENT " + id);
                backendPid(victim);
            }
        });
    }

    @Test
    void killOfADatabaseDisconnectsItsClientWithTheSameMessage() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> {
            try (Connection victim = connect(endpoint, "app", USER, PASSWORD)) {
                backendPid(victim);
                psql(endpoint, ADMIN, ADMIN_PASSWORD, "KILL app");
                backendPid(victim);
            }
        });
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
            throw new IllegalStateException(Stream.of("total_client_parse_count", "total_bind_count",
                    "total_client_login_count").map(c -> c + "=" + values.get(columns.indexOf(c)))
                    .collect(Collectors.joining(" ")));
        };
        String oracle = seen(p.pgbouncer, scenario);
        assertEquals("IllegalStateException: total_client_parse_count=1 total_bind_count=3 total_client_login_count=1",
                oracle);
        assertEquals(oracle, seen(p.pgmux, scenario));
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
                psql(endpoint, ADMIN, ADMIN_PASSWORD, "RELOAD");
                backendPid(client);
            }
        };
        assertEquals(seen(p.pgbouncer, removed), seen(p.pgmux, removed));
        assertSame(p, endpoint -> connect(endpoint, "app", USER, PASSWORD).close());
    }

    @Test
    void anUnlistedDatabaseIsServedFromTheStarEntryAlike() throws Exception {
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword() + "\n* = host="
                + db.host() + " port=" + db.port() + " user=" + db.superuser() + " password="
                + db.superuserPassword(), "pool_mode = transaction\nauth_type = md5\n");
        assertSame(p, endpoint -> {
            try (Connection client = connect(endpoint, db.name(), USER, PASSWORD)) {
                throw new IllegalStateException(value(client, "SELECT current_database()"));
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
                throw new IllegalStateException("over a Unix socket: "
                        + value(client, "SELECT inet_client_addr() IS NULL") + "; SHOW DATABASES: " + psql(endpoint,
                        ADMIN, ADMIN_PASSWORD, "SHOW DATABASES").lines().filter(l -> l.startsWith("local|"))
                        .map(l -> l.split("\\|")[1]).findFirst().orElse("no row"));
            }
        };
        assertSame(p, reached);
        assertEquals("IllegalStateException: over a Unix socket: t; SHOW DATABASES: " + name, seen(p.pgmux, reached));
    }

    @Test
    void disablePqexecRefusesASimpleQueryAlike() throws Exception {
        // pgjdbc sets extra_float_digits with a simple Query at connect
        Poolers p = start("disable_pqexec = 1\n");
        assertSame(p, endpoint -> connect(endpoint, "app", USER, PASSWORD).close());
    }

    @Test
    void disabledDatabaseRefusesNewClientsAlike() throws Exception {
        Poolers p = start("");
        assertSame(p, endpoint -> {
            psql(endpoint, ADMIN, ADMIN_PASSWORD, "DISABLE app");
            connect(endpoint, "app", USER, PASSWORD).close();
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
        assertSame(p, endpoint -> connect(endpoint, "app", user.name(), "wrong").close());
    }

    @Test
    void authQueryUserWhosePasswordExpiredIsRefusedAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + user.name() + " VALID UNTIL '2000-01-01'");
        }
        Poolers p = authQuery("");
        assertSame(p, endpoint -> connect(endpoint, "app", user.name(), user.password()).close());
    }

    /** A deliberate difference: PgBouncer tells the client at once that the query found no such user. */
    @Test
    void authQueryWithoutARowRefusesAsAnUnknownUserInPgmux() throws Exception {
        Poolers p = authQuery("");
        Scenario scenario = endpoint -> connect(endpoint, "app", "nosuchuser", "whatever").close();
        assertEquals("FATAL 08P01: no such user", seen(p.pgbouncer, scenario));
        assertEquals("FATAL 08P01: SASL authentication failed", seen(p.pgmux, scenario));
    }

    @Test
    void failingAuthQueryIsRefusedAlike() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Poolers p = authQuery("auth_query = SELECT usename, passwd FROM no_such_table WHERE usename = $1\n");
        assertSame(p, endpoint -> connect(endpoint, "app", user.name(), user.password()).close());
    }

    @Test
    void hbaRejectLineIsRefusedAlike() throws Exception {
        Poolers p = hba("host all " + USER + " 127.0.0.1/32 reject\nhost all all 127.0.0.1/32 md5\n");
        assertSame(p, endpoint -> connect(endpoint, "app", USER, PASSWORD).close());
    }

    @Test
    void hbaWithoutAMatchingLineIsRefusedAlike() throws Exception {
        Poolers p = hba("host all " + ADMIN + " 127.0.0.1/32 md5\n");
        assertSame(p, endpoint -> connect(endpoint, "app", USER, PASSWORD).close());
    }

    @Test
    void hbaPasswordLineLogsInAndRefusesAWrongPasswordAlike() throws Exception {
        Poolers p = hba("host all all 127.0.0.1/32 password\n");
        assertSame(p, endpoint -> connect(endpoint, "app", USER, PASSWORD).close());
        assertSame(p, endpoint -> connect(endpoint, "app", USER, "wrong").close());
    }

    @Test
    void anyLogsInWithoutAPasswordAlike() throws Exception {
        Poolers p = startEntry(" user=" + db.superuser() + " password=" + db.superuserPassword(),
                "pool_mode = transaction\nauth_type = any\n");
        assertSame(p, endpoint -> currentUser(connect(endpoint, "app", "whoever", "")));
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
        Assumptions.assumeTrue(version[0] > 1 || version[1] >= 25, "the oracle is PgBouncer " + version[0] + "."
                + version[1] + "; pgmux's admin views follow 1.25's columns: set PGMUX_TEST_PGBOUNCER to a 1.25 build");
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
                + db.superuser() + "\" \"" + db.superuserPassword() + "\"\n";
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

    @FunctionalInterface
    private interface Scenario {
        void run(Endpoint endpoint) throws Exception;
    }

    /** What the client saw: "ok", or the error's severity, SQLSTATE and message. */
    private static String seen(Endpoint endpoint, Scenario scenario) {
        try {
            scenario.run(endpoint);
            return "ok";
        } catch (TestAbortedException e) {
            throw e; // a missing client skips the test (or fails it under CI); it is not what a client saw
        } catch (PSQLException e) {
            ServerErrorMessage server = e.getServerErrorMessage();
            return server == null
                    ? "client error " + e.getSQLState() + ": " + e.getMessage()
                    : server.getSeverity() + " " + server.getSQLState() + ": " + server.getMessage();
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /**
     * What both clients saw must be the same, up to the first line: pgmux may add a DETAIL or HINT line to an
     * error whose primary text and SQLSTATE are PgBouncer's (runbooks and client code match on those).
     */
    private static void assertSame(Poolers p, Scenario scenario) {
        String oracle = seen(p.pgbouncer, scenario).lines().findFirst().orElse("");
        String pgmux = seen(p.pgmux, scenario).lines().findFirst().orElse("");
        assertEquals(oracle, pgmux, "PgBouncer saw «" + oracle + "», pgmux «" + pgmux + "»");
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
     * post-login SETs with "SET failed"; pgmux's accepts them, see the differences page). Returns what psql
     * printed, with the port taken out; throws with psql's error output when it exits non-zero.
     */
    private static String psql(Endpoint endpoint, String user, String password, String sql) throws Exception {
        Path psql = Clients.executable("psql", "install the PostgreSQL client tools (postgresql-client)");
        ProcessBuilder pb = new ProcessBuilder(psql.toString(), "-X", "-A", "-F", "|", "-v", "VERBOSITY=verbose",
                "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String.valueOf(endpoint.port()), "-U", user,
                "-d", "pgbouncer", "-c", sql);
        pb.environment().put("PGPASSWORD", password);
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        pb.redirectErrorStream(true);
        Process process = pb.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .replace(String.valueOf(endpoint.port()), "PORT");
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("psql did not finish: " + out);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("psql exit " + process.exitValue() + ": " + out.strip());
        }
        return out;
    }

    /** SHOW FDS's pooler rows of TCP sockets, without their fd. */
    private static List<String> tcpPoolerRows(Endpoint endpoint) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW FDS").lines().filter(l -> l.contains("|pooler|"))
                .filter(l -> !l.contains("|unix|")).map(l -> l.substring(l.indexOf('|') + 1)).toList();
    }

    /** SHOW CONFIG's changeable column by key. */
    private static Map<String, String> changeable(Endpoint endpoint) throws Exception {
        Map<String, String> byKey = new TreeMap<>();
        psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW CONFIG").lines().skip(1).map(l -> l.split("\\|", -1))
                .filter(columns -> columns.length == 4).forEach(columns -> byKey.put(columns[0], columns[3]));
        return byKey;
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String header(Endpoint endpoint, String view) throws Exception {
        return psql(endpoint, ADMIN, ADMIN_PASSWORD, "SHOW " + view).lines().findFirst().orElse("");
    }
}
