package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.unix.Socket;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.transport.ChannelSocket;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.EpollSocket;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.util.PSQLException;

/**
 * The admin console's live administration, on a proxy started from a pgbouncer.ini: SET of changeable settings,
 * RELOAD of databases and the auth file, SUSPEND, WAIT_CLOSE, KILL_CLIENT, SHUTDOWN's waiting forms and the SHOW
 * views of the process.
 */
@PostgresTest
class LiveAdministrationTest {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    /** Where the database entry sends server connections: the fixture's server unless a test puts a relay between. */
    private String serverHost;
    private int serverPort;

    LiveAdministrationTest(TestDatabase db) {
        this.db = db;
        serverHost = db.host();
        serverPort = db.port();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    // ---------------------------------------------------------------- SET

    @Test
    void setDefaultPoolSizeToOneMakesTheSecondClientWait() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection holder = client(); Connection waiter = client()) {
            assertEquals(1, selectOne(waiter));
            console.createStatement().execute("SET default_pool_size = 1");
            assertEquals("1", config(console, "default_pool_size"));
            // servers over the new size close once idle, at the janitor's next pass
            await(() -> ProxyFixture.existingPool(proxy, db.name(), db.superuser()).getTotalConnections() <= 1, "one server left");
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT 1");
            CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> selectOne(waiter));
            await(() -> "1".equals(poolRow(console).get("cl_waiting")), "the second client waits");
            assertEquals("1", poolRow(console).get("sv_active"));
            holder.commit();
            assertEquals(1, waiting.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void setQueryWaitTimeoutFailsAWaitingClientAfterTheNewTimeout() throws Exception {
        start("default_pool_size = 1\n", PASSWORD);
        try (Connection console = console(); Connection holder = client(); Connection waiter = client()) {
            console.createStatement().execute("SET query_wait_timeout = 1");
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT 1");
            PSQLException e = assertThrows(PSQLException.class, () -> waiter.createStatement().execute("SELECT 1"));
            assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
        }
    }

    @Test
    void setStatsUsersLetsTheNamedUserIntoTheConsole() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            assertThrows(SQLException.class, () -> console(USER, PASSWORD).close());
            console.createStatement().execute("SET stats_users = '" + USER + "'");
            try (Connection watcher = console(USER, PASSWORD)) {
                assertNotNull(poolRows(watcher));
            }
        }
    }

    @Test
    void setAuthFileReadsTheNamedFileForNewLogins() throws Exception {
        start("", PASSWORD);
        Files.writeString(dir.resolve("other.txt"), "\"" + USER + "\" \"other-secret\"\n\"" + ADMIN + "\" \""
                + ADMIN_PASSWORD + "\"\n");
        try (Connection console = console()) {
            console.createStatement().execute("SET auth_file = 'other.txt'");
            assertEquals(dir.resolve("other.txt").toString(), config(console, "auth_file"));
            assertThrows(PSQLException.class, () -> client().close());
            try (Connection c = connect("other-secret")) {
                assertEquals(1, selectOne(c));
            }
        }
    }

    @Test
    void setOfASettingThatTakesARestartFailsAndChangesNothing() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            String port = config(console, "listen_port");
            PSQLException e = assertThrows(PSQLException.class,
                    () -> console.createStatement().execute("SET listen_port = 7000"));
            assertEquals("08P01", e.getSQLState());
            assertEquals("SET failed", e.getServerErrorMessage().getMessage());
            assertTrue(e.getServerErrorMessage().getDetail().contains("takes a restart"), e.getMessage());
            assertEquals(port, config(console, "listen_port"));
        }
    }

    @Test
    void setOfAnUnknownSettingOrABadValueFailsWithPgBouncersText() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            PSQLException unknown = assertThrows(PSQLException.class,
                    () -> console.createStatement().execute("SET default_pool_sise = 3"));
            assertEquals("SET failed", unknown.getServerErrorMessage().getMessage());
            assertTrue(unknown.getServerErrorMessage().getDetail().contains("default_pool_size"), unknown.getMessage());
            PSQLException bad = assertThrows(PSQLException.class,
                    () -> console.createStatement().execute("SET default_pool_size = 'many'"));
            assertEquals("SET failed", bad.getServerErrorMessage().getMessage());
            assertEquals("20", config(console, "default_pool_size"));
        }
    }

    // ---------------------------------------------------------------- RELOAD

    @Test
    void reloadAppliesAPasswordChangedInTheAuthFileToNewLogins() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection before = client()) {
            writeUserlist("new-secret");
            console.createStatement().execute("RELOAD");
            PSQLException old = assertThrows(PSQLException.class, () -> client().close());
            assertEquals("password authentication failed", old.getServerErrorMessage().getMessage());
            try (Connection after = connect("new-secret")) {
                assertEquals(1, selectOne(after));
            }
            assertEquals(1, selectOne(before), "a client logged in before keeps its session");
        }
    }

    @Test
    void reloadOfAChangedDatabaseSendsNewServersToTheNewTargetAndClosesTheOldOnesOnceReleased() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            app.setAutoCommit(false);
            int oldServer = backendPid(app);
            writeIni("", "postgres");
            console.createStatement().execute("RELOAD");
            assertEquals("1", serverRow(console, oldServer).get("close_needed"));
            CompletableFuture<Void> waitClose = CompletableFuture.runAsync(() -> execute(console, "WAIT_CLOSE"));
            assertEquals(db.name(), currentDatabase(app), "the transaction keeps its server");
            assertFalse(waitClose.isDone(), "WAIT_CLOSE waits for the server in use");
            app.commit();
            waitClose.get(10, TimeUnit.SECONDS);
            assertTrue(db.awaitBackendExit(oldServer, Duration.ofSeconds(5)), "the old server is closed");
            assertEquals("postgres", currentDatabase(app));
        }
    }

    @Test
    void reloadOfADatabaseWhoseServerRefusedTheLoginTriesTheNewTargetWithoutWaitingForServerLoginRetry()
            throws Exception {
        writeUserlist(PASSWORD);
        writeIni("server_login_retry = 600\n", "no_such_database");
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
        try (Connection console = console()) {
            SQLException refused = assertThrows(SQLException.class, () -> client().close());
            assertTrue(refused.getMessage().contains("no_such_database"), refused.getMessage());
            SQLException cached = assertThrows(SQLException.class, () -> client().close());
            assertTrue(cached.getMessage().contains("server login has been failing"), cached.getMessage());
            writeIni("server_login_retry = 600\n", db.name());
            console.createStatement().execute("RELOAD");
            try (Connection app = client()) {
                assertEquals(db.name(), currentDatabase(app));
            }
        }
    }

    /**
     * As PgBouncer's kill_pool_logins: a server RECONNECT marked serves nobody once released, so a refused login
     * fails the clients waiting behind it rather than leaving them to query_wait_timeout.
     */
    @Test
    void aRefusedLoginFailsTheWaitingClientsWhenTheOnlyServerIsMarkedForClosing() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        writeUserlist(PASSWORD);
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), db.name() + " = host=" + serverHost + " port=" + serverPort
                + " dbname=" + db.name() + " user=" + user.name() + " password=" + user.password(), 0,
                "admin_users = " + ADMIN + "\npool_mode = transaction\ndefault_pool_size = 1\n"
                        + "query_wait_timeout = 600\n");
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
        try (Connection console = console(); Connection holder = client()) {
            holder.setAutoCommit(false);
            backendPid(holder);
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("ALTER ROLE " + user.name() + " PASSWORD 'changed-" + user.password() + "'");
            }
            CompletableFuture<SQLException> waiting = CompletableFuture.supplyAsync(() -> {
                try (Connection c = client()) {
                    c.createStatement().execute("SELECT 1");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            await(() -> "1".equals(poolRow(console).get("cl_waiting")), "the second client waits");
            console.createStatement().execute("RECONNECT");
            console.createStatement().execute("SET default_pool_size = 2");
            SQLException refused = waiting.get(60, TimeUnit.SECONDS);
            assertTrue(refused != null && refused.getMessage().contains("password authentication failed"),
                    String.valueOf(refused));
            holder.rollback();
        }
    }

    /** As PgBouncer: no server goes on under TLS settings RELOAD replaced; a RELOAD that changed nothing keeps them. */
    @Test
    void reloadOfAServerTlsSettingClosesTheServerConnectionsOnceReleased() throws Exception {
        start("server_tls_protocols = tlsv1.2\n", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            app.setAutoCommit(false);
            int server = backendPid(app);
            console.createStatement().execute("RELOAD");
            assertEquals("0", serverRow(console, server).get("close_needed"), "nothing changed");
            writeIni("server_tls_protocols = secure\n", db.name());
            console.createStatement().execute("RELOAD");
            assertEquals("1", serverRow(console, server).get("close_needed"));
            assertEquals(server, backendPid(app), "the transaction keeps its server");
            app.commit();
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "the server is closed once released");
        }
    }

    @Test
    void reloadOfARemovedDatabaseDisconnectsItsClientsAndRefusesNewOnes() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            assertEquals(1, selectOne(app));
            Files.writeString(dir.resolve("pgmux.ini"), Files.readString(dir.resolve("pgmux.ini"))
                    .replace(db.name() + " = ", "renamed = "));
            console.createStatement().execute("RELOAD");
            PSQLException gone = assertThrows(PSQLException.class, () -> app.createStatement().execute("SELECT 1"));
            assertTrue(gone.getMessage().contains("database removed") || app.isClosed(), gone.getMessage());
            PSQLException refused = assertThrows(PSQLException.class, () -> client().close());
            assertEquals("no such database: " + db.name(), refused.getServerErrorMessage().getMessage());
            assertTrue(proxy.registry().find(db.name(), db.superuser()).isEmpty(), "its pool is gone");
            try (Connection renamed = ProxyFixture.connect(proxy, "renamed", USER, PASSWORD, new Properties())) {
                assertEquals(1, selectOne(renamed));
            }
        }
    }

    // ---------------------------------------------------------------- keys PgBouncer changes at run time

    @Test
    void reloadOfClientIdleTimeoutEndsAClientThatLoggedInBefore() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection idle = client()) {
            assertEquals(1, selectOne(idle));
            reload(console, "client_idle_timeout = 1\n");
            assertEquals("1", config(console, "client_idle_timeout"));
            await(() -> clientsOf(console).isEmpty(), "the idle client is disconnected");
            PSQLException e = assertThrows(PSQLException.class, () -> idle.createStatement().execute("SELECT 1"));
            assertTrue(e.getMessage().contains("client_idle_timeout"), e.getMessage());
        }
    }

    @Test
    void setQueryTimeoutEndsALongQueryOfAClientThatLoggedInBefore() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            assertEquals(1, selectOne(app));
            console.createStatement().execute("SET query_timeout = 1");
            PSQLException e = assertThrows(PSQLException.class,
                    () -> app.createStatement().execute("SELECT pg_sleep(10)"));
            assertEquals("query timeout", e.getServerErrorMessage().getMessage());
        }
    }

    @Test
    void reloadOfAuthTypeTrustLetsANewClientInWithAnyPassword() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            assertThrows(PSQLException.class, () -> connect("wrong").close());
            reload(console, "auth_type = trust\n");
            assertEquals("trust", config(console, "auth_type"));
            try (Connection trusted = connect("wrong")) {
                assertEquals(1, selectOne(trusted));
            }
        }
    }

    @Test
    void reloadOfAuthTypeHbaWithANewHbaFileAppliesItsRejectLine() throws Exception {
        start("", PASSWORD);
        Files.writeString(dir.resolve("hba.conf"), "host all " + USER + " 127.0.0.1/32 reject\n"
                + "host all all 127.0.0.1/32 md5\n");
        try (Connection console = console(); Connection before = client()) {
            reload(console, "auth_type = hba\nauth_hba_file = hba.conf\n");
            PSQLException refused = assertThrows(PSQLException.class, () -> client().close());
            assertEquals("login rejected", refused.getServerErrorMessage().getMessage());
            assertEquals(1, selectOne(before), "a client logged in before keeps its session");
        }
    }

    @Test
    void reloadOfAnUnreadableHbaFileFailsAndKeepsServing() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            Files.writeString(dir.resolve("pgmux.ini"), Files.readString(dir.resolve("pgmux.ini"))
                    + "auth_type = hba\nauth_hba_file = missing.conf\n");
            PSQLException failed = assertThrows(PSQLException.class, () -> console.createStatement().execute("RELOAD"));
            assertTrue(failed.getServerErrorMessage().getDetail().contains("missing.conf"), failed.getMessage());
            assertEquals("md5", config(console, "auth_type"));
            try (Connection c = client()) {
                assertEquals(1, selectOne(c));
            }
        }
    }

    @Test
    void setMaxPacketSizeEndsANewClientWhoseMessageIsLonger() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection before = client()) {
            console.createStatement().execute("SET max_packet_size = 2000");
            String longQuery = "SELECT '" + "x".repeat(4000) + "'";
            assertTrue(before.createStatement().execute(longQuery), "a client connected before keeps its limit");
            try (Connection after = client()) {
                PSQLException e = assertThrows(PSQLException.class, () -> after.createStatement().execute(longQuery));
                assertEquals("08P01", e.getSQLState(), e.getMessage());
            }
        }
    }

    @Test
    void reloadOfApplicationNameAddHostNamesANewClientsAddressToItsServer() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            reload(console, "application_name_add_host = 1\n");
            Properties inStartup = new Properties();
            // pgjdbc sends application_name in its startup packet, where PgBouncer adds to it, only so
            inStartup.setProperty("assumeMinServerVersion", "10");
            try (Connection c = ProxyFixture.connect(proxy, db.name(), USER, PASSWORD, inStartup);
                 ResultSet rs = c.createStatement()
                    .executeQuery("SELECT current_setting('application_name')")) {
                rs.next();
                assertTrue(rs.getString(1).contains(" - 127.0.0.1:"), rs.getString(1));
            }
        }
    }

    /** The fixture's server has ssl = off: under require a new client waits for it as for a server that is down. */
    @Test
    void setServerTlsSslmodeRequireAppliesToNewServerConnections() throws Exception {
        start("query_wait_timeout = 2\n", PASSWORD);
        try (Connection console = console()) {
            console.createStatement().execute("SET server_tls_sslmode = require");
            PSQLException e = assertThrows(PSQLException.class, () -> {
                try (Connection c = client()) {
                    c.createStatement().execute("SELECT 1");
                }
            });
            assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
        }
    }

    @Test
    void setStatsPeriodEndsThePeriodRunningOnceTheNewLengthPassed() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            for (int i = 0; i < 5; i++) {
                assertEquals(1, selectOne(app));
            }
            console.createStatement().execute("SET stats_period = 1");
            // at the default 60 s, no period would end within the wait
            await(() -> {
                try {
                    return ProxyFixture.rows(console, "SHOW STATS_AVERAGES").stream().anyMatch(
                            r -> db.name().equals(r.get("database")) && Long.parseLong(r.get("xact_count")) > 0);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, "the averages of a period of one second");
        }
    }

    @Test
    void reloadOfAKeyThatTakesARestartKeepsItsValue() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            reload(console, "listen_backlog = 7\n");
            assertEquals("128", config(console, "listen_backlog"));
        }
    }

    @Test
    void serverFastCloseEndsASessionOnceItsTransactionAfterReconnectEnds() throws Exception {
        start("pool_mode = session\nserver_fast_close = 1\n", PASSWORD);
        try (Connection console = console(); Connection client = client()) {
            assertEquals("1", config(console, "server_fast_close"));
            int pid = backendPid(client);
            client.setAutoCommit(false);
            client.createStatement().execute("SELECT 1");
            console.createStatement().execute("RECONNECT " + db.name());
            assertEquals(pid, backendPid(client), "the open transaction keeps its server");
            client.commit();
            await(() -> clientsOf(console).isEmpty(), "the session closed with its server");
            assertThrows(SQLException.class, () -> client.createStatement().execute("SELECT 1"));
            assertTrue(ProxyFixture.rows(console, "SHOW SERVERS").stream().noneMatch(r -> String.valueOf(pid).equals(
                    r.get("remote_pid"))), "the server is closed");
        }
    }

    @Test
    void setCancelWaitTimeoutGivesUpACancelTheServerDoesNotTakeWithinIt() throws Exception {
        try (HoldingRelay relay = new HoldingRelay(db.host(), db.port())) {
            serverHost = "127.0.0.1";
            serverPort = relay.port();
            start("cancel_wait_timeout = 600\n", PASSWORD);
            try (Connection console = console(); Connection app = client(); Connection direct = db.connect()) {
                app.setAutoCommit(false);
                int server = backendPid(app);
                console.createStatement().execute("SET cancel_wait_timeout = 1");
                relay.hold();
                Statement sleeping = app.createStatement();
                CompletableFuture<Void> query = CompletableFuture.runAsync(() -> execute(sleeping, "SELECT pg_sleep(60)"));
                await(() -> isSleeping(direct, server), "the query runs");
                sleeping.cancel();
                await(() -> relay.heldAndClosed() == 1, "the cancel the server did not take is given up");
                assertFalse(query.isDone(), "the cancel never reached the server");
                direct.createStatement().execute("SELECT pg_cancel_backend(" + server + ")");
                assertThrows(ExecutionException.class, () -> query.get(10, TimeUnit.SECONDS));
                app.rollback();
            }
        }
    }

    @Test
    void poolIdleTimeoutFreesAPoolLeftWithoutClientsAndServers() throws Exception {
        start("pool_idle_timeout = 1\nserver_idle_timeout = 1\n", PASSWORD);
        try (Connection console = console()) {
            assertEquals("1", config(console, "pool_idle_timeout"));
            try (Connection client = client()) {
                assertEquals(1, selectOne(client));
                assertFalse(poolRow(console).isEmpty(), "the client's pool is listed");
            }
            await(() -> poolRow(console).isEmpty(), "the pool freed once its server closed too");
            try (Connection again = client()) {
                assertEquals(1, selectOne(again), "a client asking for it later gets it anew");
            }
        }
    }

    @Test
    void poolIdleTimeoutKeepsAForcedUsersPoolWithMinPoolSizeWhoseServerCannotBeReached() throws Exception {
        writeUserlist(PASSWORD);
        writeIni("pool_idle_timeout = 1\nmin_pool_size = 2\nserver_login_retry = 10\n", "no_such_database");
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
        try (Connection console = console()) {
            await(() -> !poolRow(console).isEmpty(), "the forced user's pool made for min_pool_size");
            // the login fails and the next waits server_login_retry: no client and no server for 3 pool_idle_timeouts
            Thread.sleep(3000);
            assertFalse(poolRow(console).isEmpty(), "the pool is kept for min_pool_size");
        }
    }

    @Test
    void setSuspendTimeoutClosesAClientWhoseRepliesAreNotFlushedWithinIt() throws Exception {
        start("auth_type = trust\nsuspend_timeout = 600\n", PASSWORD);
        try (Connection console = console();
             RawClient stuck = RawClient.login(proxy, db.name(), USER, PASSWORD)) {
            console.createStatement().execute("SET suspend_timeout = 1");
            // a reply far larger than the socket buffers, which the client never reads
            stuck.query("SELECT repeat('x', 1000000) FROM generate_series(1, 200)");
            await(() -> clientsOf(console).stream().anyMatch(r -> sendRemain(console, r.get("port")) > 0),
                    "replies wait to be sent to the client");
            CompletableFuture<Void> suspend = CompletableFuture.runAsync(() -> execute(console, "SUSPEND"));
            suspend.get(10, TimeUnit.SECONDS);
            assertTrue(clientsOf(console).isEmpty(), "the client not flushed is closed");
            console.createStatement().execute("RESUME");
        }
    }

    @Test
    void setMaxPreparedStatementsReachesAnOpenClientsServerAtItsNextParse() throws Exception {
        start("default_pool_size = 1\nmax_prepared_statements = 10\n", PASSWORD);
        Properties named = new Properties();
        named.setProperty("prepareThreshold", "1");
        List<PreparedStatement> open = new ArrayList<>();
        try (Connection console = console(); Connection client = connect(PASSWORD, named)) {
            for (int i = 1; i <= 3; i++) {
                open.add(client.prepareStatement("SELECT " + i));
                open.get(open.size() - 1).execute();
            }
            int before = pooledOnServer(client);
            assertTrue(before >= 3, "pgjdbc's statements and the three, under the limit of 10: " + before);
            console.createStatement().execute("SET max_prepared_statements = 1");
            open.add(client.prepareStatement("SELECT 4"));
            open.get(open.size() - 1).execute();
            assertEquals(1, pooledOnServer(client), "the server keeps the new limit from the client's next Parse on,"
                    + " as PgBouncer reads it at each Parse");
            for (PreparedStatement ps : open) {
                ps.close();
            }
        }
    }

    @Test
    void setMaxPreparedStatementsZeroLetsANewClientsNamedStatementReachTheServerByItsName() throws Exception {
        start("", PASSWORD);
        Properties named = new Properties();
        named.setProperty("prepareThreshold", "1");
        try (Connection console = console()) {
            console.createStatement().execute("SET max_prepared_statements = 0");
            try (Connection after = connect(PASSWORD, named)) {
                after.setAutoCommit(false);
                try (PreparedStatement ps = after.prepareStatement("SELECT 'named'")) {
                    ps.execute();
                }
                List<String> names = List.of(preparedOnServer(after).split(","));
                assertTrue(names.contains("S_1"), "pgjdbc's own name, not the proxy's: " + names);
                assertTrue(names.stream().noneMatch(n -> n.startsWith("PGMUX_")), names.toString());
                after.commit();
            }
        }
    }

    @Test
    void setIgnoreStartupParametersKeepsANewClientsParameterFromTheServer() throws Exception {
        start("", PASSWORD);
        Properties asked = new Properties();
        asked.setProperty("currentSchema", "nowhere");
        try (Connection console = console(); Connection before = connect(PASSWORD, asked);
             Connection direct = db.connect()) {
            console.createStatement().execute("SET ignore_startup_parameters = 'extra_float_digits, search_path'");
            try (Connection after = connect(PASSWORD, asked)) {
                assertEquals(setting(direct, "search_path"), setting(after, "search_path"));
            }
            assertEquals("nowhere", setting(before, "search_path"), "a client logged in before keeps its parameter");
        }
    }

    @Test
    void setAuthQueryLooksANewLoginUpWithTheNewQuery() throws Exception {
        TestUser user = db.createUser(PasswordMethod.MD5);
        start("auth_user = " + db.superuser() + "\nauth_query = SELECT rolname, rolpassword FROM pg_authid"
                + " WHERE rolname = $1 AND false\n", PASSWORD);
        // auth_user's password, from the auth file
        Files.writeString(dir.resolve("userlist.txt"), "\"" + db.superuser() + "\" \"" + db.superuserPassword()
                + "\"\n", StandardOpenOption.APPEND);
        try (Connection console = console()) {
            console.createStatement().execute("RELOAD");
            assertThrows(PSQLException.class, () -> login(user).close(), "the query finds no one");
            console.createStatement().execute(
                    "SET auth_query = 'SELECT rolname, rolpassword FROM pg_authid WHERE rolname = $1'");
            try (Connection found = login(user)) {
                assertEquals(1, selectOne(found));
            }
        }
    }

    /**
     * Read back from the proxy's side of each client's socket; the Linux options need epoll or io_uring. Linux
     * reports a socket buffer twice the size set, room for its bookkeeping.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp_keepalive, 0, false", "tcp_keepidle, 77, 77", "tcp_keepintvl, 7, 7", "tcp_keepcnt, 4, 4",
            "tcp_user_timeout, 7000, 7000", "tcp_socket_buffer, 24576, 49152"})
    void setOfATcpSettingAppliesToTheSocketsAcceptedAfterwards(String key, String value, String read)
            throws Exception {
        start("", PASSWORD);
        assumeTrue(proxy.transport() != TransportKind.NIO, "the Linux TCP options need epoll or io_uring");
        try (Connection console = console(); Connection before = client()) {
            ConnectionSocket beforeSocket = onlyClientSocketBut(Set.of());
            console.createStatement().execute("SET " + key + " = " + value);
            try (Connection after = client()) {
                ConnectionSocket afterSocket = onlyClientSocketBut(Set.of(beforeSocket));
                assertEquals(read, socketOption(afterSocket, key));
                assertNotEquals(read, socketOption(beforeSocket, key), "a socket accepted before keeps its options");
            }
        }
    }

    // ---------------------------------------------------------------- process control

    @Test
    void pauseHoldsAPoolMadeAfterIt() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            console.createStatement().execute("PAUSE");
            assertEquals(Map.of("active", "no", "paused", "yes", "suspended", "no"), state(console));
            CompletableFuture<Integer> late = selectOneOnANewClient();
            await(() -> "1".equals(poolRow(console).get("cl_waiting")), "the new pool's client waits");
            assertTrue(proxy.registry().find(db.name(), db.superuser()).orElseThrow().isPaused(),
                    "the pool made after PAUSE is held");
            console.createStatement().execute("RESUME");
            assertEquals(1, late.get(10, TimeUnit.SECONDS));
            PSQLException again = assertThrows(PSQLException.class, () -> console.createStatement().execute("RESUME"));
            assertEquals("pooler is not paused/suspended", again.getServerErrorMessage().getMessage());
        }
    }

    @Test
    void killOfADatabaseHoldsAPoolMadeAfterItUntilResumeOfThatDatabase() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            assertTrue(proxy.registry().find(db.name(), db.superuser()).isEmpty(), "a pool before KILL");
            console.createStatement().execute("KILL " + db.name());
            CompletableFuture<Integer> late = selectOneOnANewClient();
            await(() -> "1".equals(poolRow(console).get("cl_waiting")), "the new pool's client waits");
            assertTrue(proxy.registry().find(db.name(), db.superuser()).orElseThrow().isPaused(),
                    "the new pool is held");
            assertEquals(Map.of("active", "yes", "paused", "no", "suspended", "no"), state(console),
                    "KILL of one database leaves the pooler active");
            console.createStatement().execute("RESUME " + db.name());
            assertEquals(1, late.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void suspendStopsReadingAQuerySentDuringItUntilResume() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            assertEquals(1, selectOne(app));
            console.createStatement().execute("SUSPEND");
            assertEquals(Map.of("active", "no", "paused", "no", "suspended", "yes"), state(console));
            PSQLException twice = assertThrows(PSQLException.class, () -> console.createStatement().execute("SUSPEND"));
            assertEquals("already suspended/paused", twice.getServerErrorMessage().getMessage());
            CompletableFuture<Integer> query = CompletableFuture.supplyAsync(() -> selectOne(app));
            assertThrows(TimeoutException.class, () -> query.get(1, TimeUnit.SECONDS));
            assertEquals("0", poolRow(console).get("cl_waiting"), "the query is not even read: no client waits");
            console.createStatement().execute("RESUME");
            assertEquals(1, query.get(10, TimeUnit.SECONDS));
            assertEquals(Map.of("active", "yes", "paused", "no", "suspended", "no"), state(console));
        }
    }

    @Test
    void aSuspendAfterAResumeStopsReadingAgain() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            for (int round = 0; round < 2; round++) {
                console.createStatement().execute("SUSPEND");
                CompletableFuture<Integer> query = CompletableFuture.supplyAsync(() -> selectOne(app));
                assertThrows(TimeoutException.class, () -> query.get(1, TimeUnit.SECONDS), "round " + round);
                console.createStatement().execute("RESUME");
                assertEquals(1, query.get(10, TimeUnit.SECONDS));
                assertEquals(1, selectOne(app), "read again after RESUME");
            }
        }
    }

    @Test
    void suspendHoldsATransactionInFlightOnItsServerUntilResume() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            app.setAutoCommit(false);
            assertEquals(1, selectOne(app));
            console.createStatement().execute("SUSPEND");
            CompletableFuture<Integer> query = CompletableFuture.supplyAsync(() -> selectOne(app));
            assertThrows(TimeoutException.class, () -> query.get(1, TimeUnit.SECONDS));
            console.createStatement().execute("RESUME");
            assertEquals(1, query.get(10, TimeUnit.SECONDS));
            app.commit();
        }
    }

    @Test
    void suspendStopsAcceptingNewClientsUntilResume() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            console.createStatement().execute("SUSPEND");
            CompletableFuture<Integer> late = selectOneOnANewClient();
            assertThrows(TimeoutException.class, () -> late.get(1, TimeUnit.SECONDS));
            assertTrue(clientsOf(console).isEmpty(), "the new client is not logged in while suspended");
            console.createStatement().execute("RESUME");
            assertEquals(1, late.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aSuspensionEndsWhenTheSessionThatRanItLeavesAsInPgBouncer() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            try (Connection suspending = console()) {
                suspending.createStatement().execute("SUSPEND");
                assertEquals("yes", state(console).get("suspended"));
            }
            await(() -> {
                try {
                    return "no".equals(state(console).get("suspended"));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, "the suspension ends");
            assertEquals(1, selectOne(app));
        }
    }

    @Test
    void killClientDisconnectsThatClientWithPgBouncersMessage() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection victim = client(); Connection other = client()) {
            assertEquals(1, selectOne(victim));
            assertEquals(1, selectOne(other));
            String id = null;
            for (Map<String, String> row : ProxyFixture.rows(console, "SHOW CLIENTS")) {
                if (db.name().equals(row.get("database"))) {
                    id = row.get("id");
                    break;
                }
            }
            assertNotNull(id);
            console.createStatement().execute("KILL_CLIENT " + id);
            int left = 0;
            for (Connection c : List.of(victim, other)) {
                try {
                    selectOne(c);
                } catch (IllegalStateException e) {
                    assertTrue(e.getCause().getMessage().contains("admin forced disconnect"), e.getMessage());
                    left++;
                }
            }
            assertEquals(1, left, "exactly one client was killed");
            // ids count up from 1 over clients and servers alike: far past every socket opened so far is nobody's
            long nobody = Long.parseLong(id) + 1_000_000;
            PSQLException unknown = assertThrows(PSQLException.class,
                    () -> console.createStatement().execute("KILL_CLIENT " + nobody));
            assertEquals("client not found", unknown.getServerErrorMessage().getMessage());
        }
    }

    @Test
    void shutdownWaitForServersFailsTheWaitingClientWithPgBouncersTextAndLetsTheTransactionFinish()
            throws Exception {
        start("default_pool_size = 1\n", PASSWORD);
        try (Connection holder = client(); Connection waiter = client()) {
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT 1");
            CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> selectOne(waiter));
            try (Connection console = console()) {
                await(() -> "1".equals(poolRow(console).get("cl_waiting")), "the second client waits");
                console.createStatement().execute("SHUTDOWN WAIT_FOR_SERVERS");
            }
            ExecutionException failed = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
            assertTrue(failed.getCause().getMessage().contains("server shutting down"), failed.getCause().getMessage());
            holder.commit();
        }
        proxy.closeFuture().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void shutdownWaitForClientsServesTheConnectedClientsUntilTheyLeave() throws Exception {
        start("", PASSWORD);
        Connection app = client();
        try (Connection console = console()) {
            console.createStatement().execute("SHUTDOWN WAIT_FOR_CLIENTS");
        }
        await(() -> {
            try {
                client().close();
                return false;
            } catch (SQLException refused) {
                return true;
            }
        }, "new clients are refused");
        assertEquals(1, selectOne(app), "the connected client is still served");
        assertFalse(proxy.closeFuture().toCompletableFuture().isDone());
        app.close();
        proxy.closeFuture().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------- keys observed after SET or RELOAD

    @Test
    void setIdleTransactionTimeoutEndsAClientIdleInATransactionWithPgBouncersText() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            console.createStatement().execute("SET idle_transaction_timeout = 1");
            app.setAutoCommit(false);
            int server = backendPid(app);
            await(() -> clientsOf(console).isEmpty(), "the client idle in its transaction is disconnected");
            PSQLException e = assertThrows(PSQLException.class, () -> app.createStatement().execute("SELECT 1"));
            assertTrue(e.getMessage().contains("idle transaction timeout"), e.getMessage());
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "its server is closed");
        }
    }

    @Test
    void setTransactionTimeoutEndsATransactionLongerThanItWithPgBouncersText() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            console.createStatement().execute("SET transaction_timeout = 1");
            app.setAutoCommit(false);
            assertEquals(1, selectOne(app));
            await(() -> clientsOf(console).isEmpty(), "the client whose transaction outlasted it is disconnected");
            PSQLException e = assertThrows(PSQLException.class, () -> app.createStatement().execute("SELECT 1"));
            assertTrue(e.getMessage().contains("transaction timeout"), e.getMessage());
        }
    }

    @Test
    void setClientLoginTimeoutDisconnectsANewClientThatNeverLogsIn() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            console.createStatement().execute("SET client_login_timeout = 1");
            try (RawClient silent = new RawClient(proxy.port())) {
                List<RawClient.Message> messages = silent.readUntilClosed();
                assertEquals("client_login_timeout", messages.get(0).field('M'));
            }
        }
    }

    @Test
    void setServerIdleTimeoutClosesAServerLeftIdle() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            int server = backendPid(app);
            console.createStatement().execute("SET server_idle_timeout = 1");
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "the idle server is closed");
            assertNotEquals(server, backendPid(app), "the next transaction gets a new server");
        }
    }

    @Test
    void setServerLifetimeClosesAServerOlderThanItOnceReleased() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            app.setAutoCommit(false);
            int server = backendPid(app);
            console.createStatement().execute("SET server_lifetime = 1");
            // the transaction outlives the new lifetime on the server's own clock
            app.createStatement().execute("SELECT pg_sleep(1.2)");
            assertEquals(server, backendPid(app), "a server in a transaction is not taken from its client");
            app.commit();
            assertTrue(db.awaitBackendExit(server, Duration.ofSeconds(5)), "the server is closed once released");
        }
    }

    @Test
    void reloadOfServerCheckQueryWithDelayZeroRunsTheCheckBeforeEachReuse() throws Exception {
        start("default_pool_size = 1\n", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            assertNull(customSetting(app), "the default check does not set it");
            reload(console, "server_check_delay = 0\n"
                    + "server_check_query = SELECT set_config('pgmux.checked', 'yes', false)\n");
            assertEquals("SELECT set_config('pgmux.checked', 'yes', false)", config(console, "server_check_query"));
            assertEquals("yes", customSetting(app));
        }
    }

    @Test
    void setServerResetQueryAlwaysResetsTheServerAfterEachTransaction() throws Exception {
        start("default_pool_size = 1\n", PASSWORD);
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("CREATE SEQUENCE IF NOT EXISTS reset_always_sequence");
        }
        // a sequence's currval stays in the session, unseen by the pooler, until DISCARD ALL (DISCARD SEQUENCES)
        try (Connection console = console(); Connection app = client()) {
            app.createStatement().execute("SELECT nextval('reset_always_sequence')");
            app.createStatement().execute("SELECT currval('reset_always_sequence')");
            console.createStatement().execute("SET server_reset_query_always = 1");
            app.createStatement().execute("SELECT nextval('reset_always_sequence')");
            SQLException e = assertThrows(SQLException.class,
                    () -> app.createStatement().execute("SELECT currval('reset_always_sequence')"));
            assertEquals("55000", e.getSQLState(), "DISCARD ALL ran when the transaction released its server");
        }
    }

    @Test
    void setMinPoolSizeOpensThatManyServers() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            assertEquals(1, selectOne(app));
            console.createStatement().execute("SET min_pool_size = 3");
            // the pool's own count: the superuser's backends on the server include other tests' still exiting
            Pool<?> pool = proxy.registry().find(db.name(), db.superuser()).orElseThrow();
            assertEquals(3, Await.value(pool::getTotalConnections, total -> total == 3, Duration.ofSeconds(5)));
        }
    }

    @Test
    void setReservePoolSizeServesAClientWaitingLongerThanReservePoolTimeout() throws Exception {
        start("default_pool_size = 1\nreserve_pool_timeout = 0.2\n", PASSWORD);
        try (Connection console = console(); Connection holder = client(); Connection waiter = client()) {
            console.createStatement().execute("SET reserve_pool_size = 1");
            assertServedFromTheReservePool(holder, waiter);
        }
    }

    @Test
    void setReservePoolTimeoutShortensTheWaitBeforeTheReservePool() throws Exception {
        start("default_pool_size = 1\nreserve_pool_size = 1\nreserve_pool_timeout = 600\n", PASSWORD);
        try (Connection console = console(); Connection holder = client(); Connection waiter = client()) {
            console.createStatement().execute("SET reserve_pool_timeout = '0.2'");
            assertServedFromTheReservePool(holder, waiter);
        }
    }

    @Test
    void setMaxDbConnectionsMakesTheSecondClientWait() throws Exception {
        start("", PASSWORD);
        assertSetLimitMakesTheSecondClientWait("max_db_connections");
    }

    @Test
    void setMaxUserConnectionsMakesTheSecondClientWait() throws Exception {
        start("", PASSWORD);
        assertSetLimitMakesTheSecondClientWait("max_user_connections");
    }

    @Test
    void setQueryWaitNotifyTellsAClientWaitingLongerThanItThatItIsQueued() throws Exception {
        start("default_pool_size = 1\nquery_wait_notify = 600\n", PASSWORD);
        try (Connection console = console(); Connection holder = client();
             RawClient waiter = RawClient.login(proxy, db.name(), USER, PASSWORD)) {
            console.createStatement().execute("SET query_wait_notify = 1");
            holder.setAutoCommit(false);
            holder.createStatement().execute("SELECT 1");
            waiter.query("SELECT 1");
            RawClient.Message notice = waiter.read();
            assertEquals('N', notice.type());
            assertEquals("No server connection available in postgres backend, client being queued",
                    notice.field('M'));
            holder.commit();
            assertEquals("1", RawClient.firstColumn(waiter.readUntilReady()));
        }
    }

    @Test
    void setPinSessionStateErrorRefusesAStatementThatWouldLeaveSessionState() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            console.createStatement().execute("SET pin_session_state = error");
            Connection app = client();
            PSQLException e = assertThrows(PSQLException.class,
                    () -> app.createStatement().execute("LISTEN refused_channel; SELECT 1"));
            assertEquals("0A000", e.getSQLState());
            assertTrue(e.getMessage().contains(
                    "LISTEN is not supported in transaction pooling mode (pin_session_state = error)"), e.getMessage());
            app.close();
        }
    }

    @Test
    void setAdminUsersLetsTheNamedUserRunAConsoleCommand() throws Exception {
        start("", PASSWORD);
        try (Connection console = console()) {
            assertThrows(SQLException.class, () -> console(USER, PASSWORD).close());
            console.createStatement().execute("SET admin_users = '" + ADMIN + "," + USER + "'");
            try (Connection admin = console(USER, PASSWORD)) {
                admin.createStatement().execute("SET default_pool_size = 5");
                assertEquals("5", config(console, "default_pool_size"));
            }
        }
    }

    @Test
    void setScramIterationsSetsTheIterationsANewScramLoginIsSent() throws Exception {
        start("auth_type = scram-sha-256\n", PASSWORD);
        try (Connection console = console()) {
            console.createStatement().execute("SET scram_iterations = 1234");
            try (RawClient c = new RawClient(proxy.port())) {
                String text = c.scramServerFirst(USER, db.name());
                assertTrue(text.endsWith(",i=1234"), text);
            }
        }
    }

    // ---------------------------------------------------------------- SHOW

    @Test
    void showSocketsAndFdsListTheClientAndItsServer() throws Exception {
        start("", PASSWORD);
        try (Connection console = console(); Connection app = client()) {
            app.setAutoCommit(false);
            int server = backendPid(app);
            List<Map<String, String>> sockets = ProxyFixture.rows(console, "SHOW SOCKETS");
            assertTrue(sockets.stream().anyMatch(r -> "C".equals(r.get("type")) && db.name().equals(r.get("database"))),
                    sockets.toString());
            assertTrue(sockets.stream().anyMatch(r -> String.valueOf(server).equals(r.get("remote_pid"))),
                    sockets.toString());
            List<Map<String, String>> active = ProxyFixture.rows(console, "SHOW ACTIVE_SOCKETS");
            assertTrue(active.stream().anyMatch(r -> String.valueOf(server).equals(r.get("remote_pid"))),
                    "the server in a transaction is active: " + active);
            List<Map<String, String>> fds = ProxyFixture.rows(console, "SHOW FDS").stream()
                    .filter(r -> db.name().equals(r.get("database"))).toList();
            assertEquals(List.of("client", "server"), fds.stream().map(r -> r.get("task")).sorted().toList());
            if (proxy.isEpoll()) {
                assertNotEquals(fds.get(0).get("fd"), fds.get(1).get("fd"));
                assertNotNull(fds.get(0).get("fd"));
            }
            assertTrue(fds.stream().allMatch(r -> r.get("password") == null), "no secret is shown");
            app.commit();
            List<Map<String, String>> mem = ProxyFixture.rows(console, "SHOW MEM");
            long heap = Long.parseLong(mem.get(0).get("used"));
            assertEquals("jvm_heap", mem.get(0).get("name"));
            assertTrue(heap > 0, mem.toString());
        }
    }

    // ---------------------------------------------------------------- helpers

    private void start(String settings, String password) throws Exception {
        writeUserlist(password);
        writeIni(settings, db.name());
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2)).start();
    }

    /** Adds {@code settings} to the ini file and runs RELOAD. */
    private void reload(Connection console, String settings) throws Exception {
        Path ini = dir.resolve("pgmux.ini");
        Files.writeString(ini, Files.readString(ini) + settings);
        console.createStatement().execute("RELOAD");
    }

    private void writeUserlist(String password) throws Exception {
        ProxyFixture.writeUserlist(dir, USER, password, ADMIN, ADMIN_PASSWORD);
    }

    private void writeIni(String settings, String dbname) throws Exception {
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), db.name() + " = host=" + serverHost + " port=" + serverPort
                + " dbname=" + dbname + " user=" + db.superuser() + " password=" + db.superuserPassword(), 0,
                "admin_users = " + ADMIN + "\npool_mode = transaction\n" + settings);
    }

    private Connection client() throws SQLException {
        return connect(PASSWORD);
    }

    private Connection connect(String password) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), USER, password, new Properties());
    }

    private Connection connect(String password, Properties properties) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), USER, password, properties);
    }

    private Connection login(TestUser user) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), user.name(), user.password(), new Properties());
    }

    /** The one client socket of the proxy not in {@code known}, once its login's hand-over is done. */
    private ConnectionSocket onlyClientSocketBut(Set<ConnectionSocket> known) {
        return Await.value(() -> {
            List<ConnectionSocket> sockets = proxy.clients().stream().map(c -> c.info().socket())
                    .filter(c -> !known.contains(c)).toList();
            return sockets.size() == 1 ? sockets.get(0) : null;
        }, socket -> socket != null && (proxy.transport() != TransportKind.EPOLL
                || socket instanceof EpollSocket), Duration.ofSeconds(10));
    }

    /**
     * The value of {@code key}'s option on {@code socket}, as a channel's config gives it: read from the channel, or
     * from the descriptor of a socket served without one.
     */
    private String socketOption(ConnectionSocket socket, String key) throws IOException {
        if (socket instanceof ChannelSocket channel) {
            return String.valueOf(channel.channel().config().getOption(socketOption(key)));
        }
        Socket fd = (Socket) ((EpollSocket) socket).fd();
        return switch (key) {
            case "tcp_keepalive" -> String.valueOf(fd.isKeepAlive());
            case "tcp_socket_buffer" -> String.valueOf(fd.getReceiveBufferSize());
            default -> String.valueOf(tcpOption(fd, switch (key) {
                case "tcp_keepidle" -> 4;
                case "tcp_keepintvl" -> 5;
                case "tcp_keepcnt" -> 6;
                case "tcp_user_timeout" -> 18;
                default -> throw new IllegalArgumentException(key);
            }));
        };
    }

    /** An int option of IPPROTO_TCP (Linux's numbers), as getsockopt reads it. */
    private static int tcpOption(Socket fd, int option) throws IOException {
        ByteBuffer value = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder());
        fd.getRawOpt(6, option, value);
        return value.getInt(0);
    }

    /** The option of the proxy's transport that {@code key} sets on each TCP connection. */
    private ChannelOption<?> socketOption(String key) {
        boolean epoll = proxy.transport() == TransportKind.EPOLL;
        return switch (key) {
            case "tcp_keepalive" -> ChannelOption.SO_KEEPALIVE;
            case "tcp_keepidle" -> epoll ? EpollChannelOption.TCP_KEEPIDLE : IoUringChannelOption.TCP_KEEPIDLE;
            case "tcp_keepintvl" -> epoll ? EpollChannelOption.TCP_KEEPINTVL : IoUringChannelOption.TCP_KEEPINTVL;
            case "tcp_keepcnt" -> epoll ? EpollChannelOption.TCP_KEEPCNT : IoUringChannelOption.TCP_KEEPCNT;
            case "tcp_user_timeout" -> epoll ? EpollChannelOption.TCP_USER_TIMEOUT
                    : IoUringChannelOption.TCP_USER_TIMEOUT;
            case "tcp_socket_buffer" -> ChannelOption.SO_RCVBUF;
            default -> throw new IllegalArgumentException(key);
        };
    }

    private Connection console() throws SQLException {
        return console(ADMIN, ADMIN_PASSWORD);
    }

    private Connection console(String user, String password) throws SQLException {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        return ProxyFixture.connect(proxy, "pgbouncer", user, password, simple);
    }

    /** A client that logs in and runs SELECT 1 on a thread of its own, for a pool that holds it. */
    private CompletableFuture<Integer> selectOneOnANewClient() {
        return CompletableFuture.supplyAsync(() -> {
            try (Connection c = client()) {
                return selectOne(c);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static int selectOne(Connection c) {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static void execute(Connection c, String sql) {
        try {
            execute(c.createStatement(), sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static void execute(Statement statement, String sql) {
        try {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A client waiting on the pool of one server is served by a second server: the reserve pool's. */
    private static void assertServedFromTheReservePool(Connection holder, Connection waiter) throws Exception {
        holder.setAutoCommit(false);
        int held = backendPid(holder);
        CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return backendPid(waiter);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertNotEquals(held, waiting.get(10, TimeUnit.SECONDS), "a second server although the pool's size is 1");
        holder.commit();
    }

    /** SET {@code key} = 1, then a client holds a server: a second client waits for it. */
    private void assertSetLimitMakesTheSecondClientWait(String key) throws Exception {
        try (Connection console = console()) {
            // before any server is opened, so that none beyond the limit is left over to serve the second client
            console.createStatement().execute("SET " + key + " = 1");
            try (Connection holder = client(); Connection waiter = client()) {
                holder.setAutoCommit(false);
                holder.createStatement().execute("SELECT 1");
                CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> selectOne(waiter));
                await(() -> "1".equals(poolRow(console).get("cl_waiting")), "the second client waits");
                assertEquals("1", poolRow(console).get("sv_active"));
                holder.commit();
                assertEquals(1, waiting.get(10, TimeUnit.SECONDS));
            }
        }
    }

    /** The session's value of pgmux.checked, a custom setting the tests set on a server; null when never set. */
    private static String customSetting(Connection c) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT current_setting('pgmux.checked', true)")) {
            rs.next();
            String value = rs.getString(1);
            return value == null || value.isEmpty() ? null : value;
        }
    }

    private static String setting(Connection c, String name) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT current_setting('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The names of the statements prepared on the server of {@code c}'s transaction. */
    /** The statements the pooler prepared on the server that serves {@code c}'s next statement. */
    private static int pooledOnServer(Connection c) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery(
                "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'PGMUX\\_%'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String preparedOnServer(Connection c) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT string_agg(name, ',') FROM pg_prepared_statements")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static boolean isSleeping(Connection direct, int pid) {
        try (ResultSet rs = direct.createStatement().executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = "
                + pid + " AND state = 'active' AND query LIKE 'SELECT pg_sleep%'")) {
            rs.next();
            return rs.getInt(1) == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SHOW SOCKETS' send_remain of the client socket whose address has {@code port}. */
    private long sendRemain(Connection console, String port) {
        try {
            return ProxyFixture.rows(console, "SHOW SOCKETS").stream().filter(r -> port.equals(r.get("port")))
                    .mapToLong(r -> Long.parseLong(r.get("send_remain"))).sum();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String currentDatabase(Connection c) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT current_database()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String config(Connection console, String key) throws SQLException {
        for (Map<String, String> row : ProxyFixture.rows(console, "SHOW CONFIG")) {
            if (key.equals(row.get("key"))) {
                return row.get("value");
            }
        }
        throw new AssertionError("no setting " + key);
    }

    private List<Map<String, String>> clientsOf(Connection console) {
        try {
            return ProxyFixture.rows(console, "SHOW CLIENTS").stream().filter(r -> db.name().equals(r.get("database"))).toList();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> state(Connection console) throws SQLException {
        Map<String, String> state = new HashMap<>();
        ProxyFixture.rows(console, "SHOW STATE").forEach(r -> state.put(r.get("key"), r.get("value")));
        return state;
    }

    private Map<String, String> poolRow(Connection console) {
        try {
            for (Map<String, String> row : poolRows(console)) {
                if (db.name().equals(row.get("database"))) {
                    return row;
                }
            }
            return Map.of();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Map<String, String>> poolRows(Connection console) throws SQLException {
        return ProxyFixture.rows(console, "SHOW POOLS");
    }

    private static Map<String, String> serverRow(Connection console, int pid) throws SQLException {
        for (Map<String, String> row : ProxyFixture.rows(console, "SHOW SERVERS")) {
            if (String.valueOf(pid).equals(row.get("remote_pid"))) {
                return row;
            }
        }
        throw new AssertionError("no server " + pid);
    }

    private static void await(BooleanSupplier condition, String what) {
        Await.until(condition::getAsBoolean, Duration.ofSeconds(10), what);
    }
}
