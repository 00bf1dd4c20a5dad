package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Clients;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar as PgBouncer's operators run it — {@code java -jar pgmux-proxy-<version>-all.jar
 * pgbouncer.ini} — in front of the fixture's PostgreSQL: clients, logfile, pidfile and PgBouncer 1.25's signals.
 */
@PostgresTest
class ProxyProcessIT {
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";
    /** PgBouncer's log line: {@code 2025-01-01 12:00:00.000 UTC [pid] LEVEL message}. */
    private static final String LINE_START = "^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\S+ \\[%d\\] ";

    private final TestDatabase db;
    @TempDir
    Path dir;

    ProxyProcessIT(TestDatabase db) {
        this.db = db;
    }

    /**
     * A pgbouncer.ini with database {@code app} on the fixture's server, its Unix socket in the test's directory
     * (a killed process leaves it there, not in /tmp), plus {@code extra} [pgbouncer] lines, which win.
     */
    private Path ini(String... extra) throws Exception {
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\n"
                + "app = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\npool_mode = transaction\n"
                + "default_pool_size = 2\nauth_type = scram-sha-256\nauth_file = userlist.txt\n"
                + "unix_socket_dir = " + dir + "\n"
                + String.join("\n", extra) + "\n");
        return ini;
    }

    private static Connection connect(int port, String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", USER);
        properties.setProperty("password", PASSWORD);
        // the admin console takes the simple query protocol only
        properties.setProperty("preferQueryMode", "simple");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, properties);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(50);
        }
    }

    @Test
    void pgjdbcQueriesThroughTheProxyStartedOnAPgbouncerIni() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                assertEquals(db.name(), Sql.value(c, "SELECT current_database()"));
            }
        }
    }

    @Test
    void psqlQueriesThroughTheProxyStartedOnAPgbouncerIni() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            Process psql;
            try {
                psql = new ProcessBuilder("psql", "-X", "-A", "-t", "-c", "SELECT 6 * 7", "host=127.0.0.1 port="
                        + port + " dbname=app user=" + USER + " password=" + PASSWORD + " sslmode=disable")
                        .redirectErrorStream(true).start();
            } catch (IOException e) {
                Clients.missing("psql cannot be started (" + e.getMessage() + "): install the PostgreSQL client"
                        + " tools to run this test");
                return;
            }
            assertTrue(psql.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
            String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, psql.exitValue(), output);
            assertEquals("42", output.strip());
        }
    }

    /** A client served from the reserve pool is logged in PgBouncer's words, once per reserve connection. */
    @Test
    void aConnectionFromTheReservePoolIsLoggedAsPgBouncerLogsIt() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini("default_pool_size = 1", "reserve_pool_size = 1",
                "reserve_pool_timeout = 0.2").toString())) {
            int port = proxy.awaitPort();
            try (Connection holder = connect(port, "app"); Connection waiter = connect(port, "app")) {
                holder.setAutoCommit(false);
                Sql.value(holder, "SELECT 1");
                assertTrue(proxy.stderr().stream().noneMatch(line -> line.contains("reserve_pool")),
                        "a pool within its size logged a reserve connection: " + String.join("\n", proxy.stderr()));
                assertEquals("2", Sql.value(waiter, "SELECT 2"));
                proxy.awaitStderr(Pattern.compile("WARNING .*taking connection from reserve_pool$"));
            }
        }
    }

    @Test
    void theLogfileIsAppendedToInPgBouncersLineFormat() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        Files.writeString(logfile, "an earlier run's line\n");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log").toString())) {
            int port = proxy.awaitPort();
            List<String> lines = Files.readAllLines(logfile);
            assertEquals("an earlier run's line", lines.get(0));
            String start = String.format(LINE_START, proxy.pid());
            assertTrue(lines.stream().anyMatch(Pattern.compile(start + "LOG listening on 127\\.0\\.0\\.1:" + port
                    + "$").asPredicate()), String.join("\n", lines));
            assertTrue(lines.stream().skip(1).allMatch(Pattern.compile(start).asPredicate()),
                    String.join("\n", lines));
            assertTrue(lines.stream().noneMatch(line -> line.contains("setting logfile")),
                    "logfile, taken by the process, is reported as ignored:\n" + String.join("\n", lines));
        }
    }

    @Test
    void quietLogsToTheLogfileOnly() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        try (ProxyJar proxy = ProxyJar.start("-q", ini("logfile = pgmux.log").toString())) {
            await(() -> contains(logfile, "LOG listening on"), "the listening line in the logfile");
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
            assertEquals(List.of(), proxy.stderr());
            assertTrue(contains(logfile, "LOG shutdown complete"), "the logfile lacks the shutdown");
        }
    }

    @Test
    void aKeyTakenWithoutEffectIsNamedAtStartWhenItIsNotAtItsDefault() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini("server_round_robin = 1", "dns_max_ttl = 30", "pkt_buf = 4096")
                .toString())) {
            proxy.awaitPort();
            List<String> lines = proxy.stderr();
            assertLogged(lines, ".* LOG pgbouncer\\.ini setting server_round_robin = 1 has no effect in pgmux: .+");
            assertLogged(lines, ".* LOG pgbouncer\\.ini setting dns_max_ttl = 30 has no effect in pgmux: .+");
            assertTrue(lines.stream().noneMatch(line -> line.contains("pkt_buf")),
                    "a key at its default is not worth a line:\n" + String.join("\n", lines));
        }
    }

    @Test
    void thePidfileHoldsThePidWhileRunningAndIsRemovedAtACleanExit() throws Exception {
        Path pidfile = dir.resolve("pgmux.pid");
        try (ProxyJar proxy = ProxyJar.start(ini("pidfile = pgmux.pid").toString())) {
            proxy.awaitPort();
            assertEquals(String.valueOf(proxy.pid()), Files.readString(pidfile).strip());
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
            assertFalse(Files.exists(pidfile), "the pidfile is left behind");
        }
    }

    @Test
    void aPidfileNamingARunningProcessStopsTheStart() throws Exception {
        Path pidfile = dir.resolve("pgmux.pid");
        Files.writeString(pidfile, ProcessHandle.current().pid() + "\n");
        ProxyJar proxy = ProxyJar.run(ini("pidfile = pgmux.pid").toString());
        assertEquals(1, proxy.awaitExit());
        assertTrue(proxy.stderr().stream().anyMatch(line -> line.contains("FATAL pidfile " + pidfile
                + " exists and process " + ProcessHandle.current().pid() + " is running")),
                String.join("\n", proxy.stderr()));
        assertEquals(String.valueOf(ProcessHandle.current().pid()), Files.readString(pidfile).strip());
    }

    @Test
    void aSighupIgnoredAtStartIsNamedInAWarningWithTheConsolesReload() throws Exception {
        try (ProxyJar proxy = ProxyJar.startIgnoring("HUP", ini().toString())) {
            proxy.awaitStderr(Pattern.compile("WARNING SIGHUP was ignored when the process started .* and stays"
                    + " ignored: RELOAD on the admin console still reloads"));
            proxy.awaitStderr(Pattern.compile("LOG process up: "));
            assertEquals(1, proxy.stderr().stream().filter(l -> l.contains("was ignored when the process started"))
                    .count(), String.join("\n", proxy.stderr()));
        }
    }

    @Test
    void aSigintIgnoredAtStartAsABackgroundJobOfAScriptIsNamedInAWarningWithTheConsolesShutdown()
            throws Exception {
        try (ProxyJar proxy = ProxyJar.startIgnoring("INT,QUIT", ini().toString())) {
            proxy.awaitStderr(Pattern.compile("WARNING SIGINT was ignored when the process started .* and stays"
                    + " ignored: SHUTDOWN WAIT_FOR_SERVERS on the admin console and SIGTERM still shut down"));
        }
    }

    @Test
    void signalsAtTheirDefaultAtStartGiveNoWarning() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            proxy.awaitStderr(Pattern.compile("LOG process up: "));
            assertTrue(proxy.stderr().stream().noneMatch(l -> l.contains("was ignored when the process started")),
                    String.join("\n", proxy.stderr()));
        }
    }

    @Test
    void sighupAppliesTheEditedIni() throws Exception {
        Path ini = ini();
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            SQLException refused = assertThrows(SQLException.class, () -> connect(port, "pgbouncer").close());
            assertTrue(refused.getMessage().contains("not allowed"), refused.getMessage());
            Files.writeString(ini, Files.readString(ini) + "admin_users = " + USER + "\n");
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("LOG RELOAD: configuration applied"));
            try (Connection admin = connect(port, "pgbouncer")) {
                assertTrue(Sql.value(admin, "SHOW VERSION").contains("PgBouncer"));
            }
        }
    }

    @Test
    void aServerThatRefusedTheLoginIsLoggedClosingWithTheServersMessage() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Path ini = ini();
        Files.writeString(ini, Files.readString(ini).replace(" user=" + db.superuser() + " password="
                + db.superuserPassword() + "\n", " user=" + user.name() + " password=wrong-" + user.password() + "\n"));
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            SQLException refused = assertThrows(SQLException.class, () -> connect(port, "app").close());
            assertTrue(refused.getMessage().contains("password authentication failed"), refused.getMessage());
            proxy.awaitStderr(Pattern.compile("LOG S-0x[0-9a-f]+: app/" + user.name() + "@\\S+ closing because:"
                    + " password authentication failed for user \"" + user.name() + "\" \\(age="));
        }
    }

    @Test
    void aHostNameThatDoesNotResolveIsLoggedInPgBouncersWordsAndTheNextHostServes() throws Exception {
        Path ini = ini();
        Files.writeString(ini, Files.readString(ini).replace("app = host=" + db.host() + " ",
                "app = host=unresolvable-hostname," + db.host() + " load_balance_hosts=disable "));
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
            proxy.awaitStderr(Pattern.compile("LOG S-0x[0-9a-f]+: app/\\S+@unresolvable-hostname:" + db.port()
                    + " closing because: server DNS lookup failed \\(age="));
        }
    }

    @Test
    void aServerClosedForAChangedServerTlsSettingIsLoggedInPgBouncersWords() throws Exception {
        Path ini = ini("server_tls_sslmode = disable");
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
                Files.writeString(ini, Files.readString(ini).replace("server_tls_sslmode = disable",
                        "server_tls_sslmode = allow"));
                proxy.signal("HUP");
                proxy.awaitStderr(Pattern.compile("LOG S-0x[0-9a-f]+: app/\\S+ closing because: database"
                        + " configuration changed \\(age="));
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
        }
    }

    @Test
    void sighupAddsADatabaseWrittenIntoTheIni() throws Exception {
        Path ini = ini();
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            SQLException unknown = assertThrows(SQLException.class, () -> connect(port, "added").close());
            assertTrue(unknown.getMessage().contains("no such database: added"), unknown.getMessage());
            Files.writeString(ini, Files.readString(ini).replace("[pgbouncer]\n", "added = host=" + db.host()
                    + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password="
                    + db.superuserPassword() + "\n[pgbouncer]\n"));
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("LOG RELOAD: configuration applied"));
            try (Connection c = connect(port, "added")) {
                assertEquals(db.name(), Sql.value(c, "SELECT current_database()"));
            }
        }
    }

    @Test
    void sighupAfterEditingTheIniAndTheAuthFileAppliesThePasswordRemovesTheDatabaseAndNamesRestartOnlyKeys()
            throws Exception {
        Path ini = ini();
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            try (Connection before = connect(port, "app")) {
                assertEquals("1", Sql.value(before, "SELECT 1"));
                Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"changed-secret\"\n");
                Files.writeString(ini, Files.readString(ini).replace("app = host=", "moved = host=")
                        + "listen_backlog = 100\n");
                proxy.signal("HUP");
                proxy.awaitStderr(Pattern.compile("LOG RELOAD: configuration applied"));
                assertTrue(proxy.stderr().stream().anyMatch(l -> l.matches(".*WARNING RELOAD: changes to "
                        + "listen_backlog take effect only after a restart")), String.join("\n", proxy.stderr()));
                SQLException removed = assertThrows(SQLException.class, () -> Sql.value(before, "SELECT 1"));
                assertTrue(removed.getMessage().contains("database removed"), removed.getMessage());
            }
            SQLException oldPassword = assertThrows(SQLException.class, () -> connect(port, "moved").close());
            assertTrue(oldPassword.getMessage().contains("SASL authentication failed"), oldPassword.getMessage());
            Properties changed = new Properties();
            changed.setProperty("user", USER);
            changed.setProperty("password", "changed-secret");
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/moved", changed)) {
                assertEquals(db.name(), Sql.value(c, "SELECT current_database()"));
            }
            SQLException gone = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                    "jdbc:postgresql://127.0.0.1:" + port + "/app", changed).close());
            assertTrue(gone.getMessage().contains("no such database: app"), gone.getMessage());
        }
    }

    @Test
    void aSighupWithABrokenIniKeepsTheProxyServing() throws Exception {
        Path ini = ini();
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            Files.writeString(ini, Files.readString(ini) + "no equals sign here\n");
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("ERROR RELOAD failed, the running configuration is kept: .*"
                    + Pattern.quote(ini.toAbsolutePath().normalize().toString()) + " line \\d+: expected key = value"));
            try (Connection c = connect(port, "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
        }
    }

    /**
     * Secrets never reach the log: the [databases] password, the auth_file's, a client's, and the password of a
     * connection URI entry a SIGHUP refuses, through start, logins, queries and RELOAD, logged at verbose = 2.
     */
    @Test
    void noPasswordReachesTheLogFromStartLoginsOrAFailedReload() throws Exception {
        String uriSecret = "uri-s3cr3t";
        TestUser server = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Path ini = ini("verbose = 2", "admin_users = " + USER);
        Files.writeString(ini, Files.readString(ini).replace("user=" + db.superuser() + " password="
                + db.superuserPassword(), "user=" + server.name() + " password=" + server.password()));
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app"); Connection console = connect(port, "pgbouncer")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
                Sql.value(console, "SHOW DATABASES");
            }
            Files.writeString(ini, Files.readString(ini).replace("[pgbouncer]", "other = postgresql://u:" + uriSecret
                    + "@127.0.0.1/app\n[pgbouncer]"));
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("ERROR RELOAD failed, the running configuration is kept: .*"
                    + "a connection URI is not taken here"));
            List<String> log = new ArrayList<>(proxy.stderr());
            log.addAll(proxy.stdout());
            for (String secret : List.of(server.password(), PASSWORD, uriSecret)) {
                assertTrue(log.stream().noneMatch(line -> line.contains(secret)), secret + " in the log:\n"
                        + String.join("\n", log));
            }
        }
    }

    /** logrotate's way: the logfile is renamed, SIGHUP, and the lines after the reload go to a new file. */
    @Test
    void sighupReopensTheLogfileSoThatARotatedOneIsLetGo() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        Path rotated = dir.resolve("pgmux.log.1");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log").toString())) {
            int port = proxy.awaitPort();
            Files.move(logfile, rotated);
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("LOG RELOAD: configuration applied"));
            assertNextLinesGoToTheNewLogfile(port, logfile, rotated);
        }
    }

    /** PgBouncer reopens the logfile at the end of every reload, one that fails on a broken ini too. */
    @Test
    void aSighupWithABrokenIniStillReopensTheLogfile() throws Exception {
        Path ini = ini("logfile = pgmux.log");
        Path logfile = dir.resolve("pgmux.log");
        Path rotated = dir.resolve("pgmux.log.1");
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            Files.move(logfile, rotated);
            Files.writeString(ini, Files.readString(ini) + "no equals sign here\n");
            proxy.signal("HUP");
            proxy.awaitStderr(Pattern.compile("ERROR RELOAD failed, the running configuration is kept"));
            assertNextLinesGoToTheNewLogfile(port, logfile, rotated);
        }
    }

    /** A client's login line lands in {@code logfile}, opened anew, and not in {@code rotated}, which has the SIGHUP. */
    private static void assertNextLinesGoToTheNewLogfile(int port, Path logfile, Path rotated) throws Exception {
        try (Connection c = connect(port, "app")) {
            assertEquals("1", Sql.value(c, "SELECT 1"));
        }
        await(() -> contains(logfile, "login attempt: db=app"), "the login in the new logfile");
        assertTrue(contains(rotated, "LOG got SIGHUP, re-reading config"), "the rotated file lacks the SIGHUP");
        assertFalse(contains(rotated, "login attempt"), "a line after the reload went to the rotated file");
    }

    @Test
    void sigintLetsATransactionInFlightCompleteThenExitsZero() throws Exception {
        try (Connection setup = db.connect(); Statement s = setup.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS sigint_done (n int)");
            s.execute("TRUNCATE sigint_done");
        }
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO sigint_done VALUES (1)");
                    proxy.signal("INT");
                    proxy.awaitStderr(Pattern.compile("LOG got SIGINT, shutting down"));
                    s.execute("INSERT INTO sigint_done VALUES (2)");
                }
                c.commit();
            }
            assertEquals(0, proxy.awaitExit());
        }
        try (Connection c = db.connect()) {
            assertEquals("2", Sql.value(c, "SELECT count(*) FROM sigint_done"));
        }
    }

    @Test
    void aSecondSigintDuringTheShutdownExitsAtOnce() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                c.setAutoCommit(false);
                assertEquals("1", Sql.value(c, "SELECT 1"));
                proxy.signal("INT");
                proxy.awaitStderr(Pattern.compile("LOG got SIGINT, shutting down"));
                // the transaction stays open: only the second signal ends the wait
                proxy.signal("INT");
                assertEquals(0, proxy.awaitExit());
                proxy.awaitStderr(Pattern.compile("LOG got SIGINT, fast exit"));
            }
        }
    }

    @Test
    void sigtermWaitsForTheClientsToLeaveThenExitsZero() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                proxy.signal("TERM");
                proxy.awaitStderr(Pattern.compile("LOG got SIGTERM, shutting down, waiting for all clients"));
                // a client connected before keeps being served, transaction after transaction
                assertEquals("1", Sql.value(c, "SELECT 1"));
                assertEquals("2", Sql.value(c, "SELECT 2"));
                await(() -> refused(port), "new clients to be refused");
                assertTrue(proxy.isAlive(), "the proxy exited with a client connected");
            }
            assertEquals(0, proxy.awaitExit());
        }
    }

    @Test
    void whileSigtermWaitsTheUnixSocketServesTheConsoleAndRefusesOtherClients() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                proxy.signal("TERM");
                await(() -> refused(port), "TCP clients to be refused");
                String unix = "host=" + dir + " port=" + port;
                String version = psql(unix + " dbname=pgbouncer user=pgbouncer", "SHOW VERSION");
                assertTrue(version.startsWith("PgBouncer"), version);
                String refusal = psql(unix + " dbname=app user=" + USER + " password=" + PASSWORD, "SELECT 1");
                assertTrue(refusal.contains("FATAL:  pooler is shutting down"), refusal);
            }
            assertEquals(0, proxy.awaitExit());
            assertFalse(Files.exists(dir.resolve(".s.PGSQL." + port)), "the socket file is left behind");
        }
    }

    @Test
    void sigusr1PausesAndSigusr2Resumes() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini("admin_users = " + USER).toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app"); Connection admin = connect(port, "pgbouncer")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
                proxy.signal("USR1");
                proxy.awaitStderr(Pattern.compile("LOG PAUSE done"));
                CompletableFuture<String> paused = CompletableFuture.supplyAsync(() -> {
                    try {
                        return Sql.value(c, "SELECT 2");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                await(() -> waiting(admin) == 1, "the client to wait for a server in SHOW POOLS");
                assertFalse(paused.isDone(), "a query ran while paused");
                proxy.signal("USR2");
                assertEquals("2", paused.get(60, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void sigusr2DuringAShutdownIsIgnored() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            try (Connection c = connect(port, "app")) {
                proxy.signal("TERM");
                proxy.awaitStderr(Pattern.compile("LOG got SIGTERM, shutting down"));
                proxy.signal("USR2");
                proxy.awaitStderr(Pattern.compile("LOG got SIGUSR2 while shutting down, ignoring"));
                assertEquals("1", Sql.value(c, "SELECT 1"));
                await(() -> refused(port), "new clients to be refused");
            }
            assertEquals(0, proxy.awaitExit());
        }
    }

    @Test
    void sigquitStaysTheJvmsThreadDumpAndTheProxyKeepsServing() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            int port = proxy.awaitPort();
            proxy.awaitStderr(Pattern.compile("LOG SIGQUIT stays the JVM's thread dump"));
            proxy.signal("QUIT");
            proxy.awaitStdout(Pattern.compile("^Full thread dump"));
            try (Connection c = connect(port, "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
        }
    }

    /** psql as an operator runs it; aborts the test where psql is not installed. */
    private static String psql(String connection, String command) throws Exception {
        Process psql;
        try {
            psql = new ProcessBuilder("psql", "-X", "-A", "-t", "-c", command, connection).redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            Clients.missing("psql cannot be started (" + e.getMessage() + "): install the PostgreSQL client tools to"
                    + " run this test");
            throw e;
        }
        assertTrue(psql.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
        return new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip()
                + (psql.exitValue() == 0 ? "" : " (exit " + psql.exitValue() + ")");
    }

    private static void assertLogged(List<String> lines, String regex) {
        assertTrue(lines.stream().anyMatch(Pattern.compile(regex).asPredicate()), "no line matching " + regex
                + " in\n" + String.join("\n", lines));
    }

    @Test
    void psqlReachesEveryListenAddrAndTheUnixSocketWhichIsRemovedAtExit() throws Exception {
        Path sockets = Files.createDirectory(dir.resolve("sockets"));
        try (ProxyJar proxy = ProxyJar.start(ini("listen_addr = 127.0.0.1, ::1", "unix_socket_dir = " + sockets,
                "logfile = pgmux.log").toString())) {
            int port = proxy.awaitPort();
            String login = " port=" + port + " dbname=app user=" + USER + " password=" + PASSWORD;
            assertEquals("4", psql("host=127.0.0.1 sslmode=disable" + login, "SELECT 2 + 2"));
            assertEquals("6", psql("host=::1 sslmode=disable" + login, "SELECT 3 + 3"));
            assertEquals("8", psql("host=" + sockets + login, "SELECT 4 + 4"));
            Path socket = sockets.resolve(".s.PGSQL." + port);
            List<String> lines = Files.readAllLines(dir.resolve("pgmux.log"));
            String start = String.format(LINE_START, proxy.pid());
            assertLogged(lines, start + "LOG listening on 127\\.0\\.0\\.1:" + port + "$");
            assertLogged(lines, start + "LOG listening on \\[::1\\]:" + port + "$");
            assertLogged(lines, start + "LOG listening on unix:" + Pattern.quote(socket.toString()) + "$");
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
            assertFalse(Files.exists(socket), "the socket file is left behind");
            assertFalse(Files.exists(Path.of(socket + ".lock")), "the lock file is left behind");
        }
    }

    @Test
    void theOsUserRunningThePoolerUsesTheAdminConsoleOnTheUnixSocketWithoutAPassword() throws Exception {
        Path sockets = Files.createDirectory(dir.resolve("sockets"));
        try (ProxyJar proxy = ProxyJar.start(ini("unix_socket_dir = " + sockets, "logfile = pgmux.log")
                .toString())) {
            int port = proxy.awaitPort();
            String version = psql("host=" + sockets + " port=" + port + " dbname=pgbouncer user=pgbouncer",
                    "SHOW VERSION");
            assertTrue(version.startsWith("PgBouncer"), version);
            await(() -> contains(dir.resolve("pgmux.log"), "pgbouncer access from unix socket"),
                    "the console login in the logfile");
            assertLogged(Files.readAllLines(dir.resolve("pgmux.log")), String.format(LINE_START, proxy.pid())
                    + "LOG C-0x[0-9a-f]{8}: \\(nodb\\)/pgbouncer@unix\\(\\d+\\):" + port
                    + " pgbouncer access from unix socket$");
        }
    }

    @Test
    void connectionsDisconnectionsAndPoolerErrorsAreLoggedWithPgBouncersPrefix() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log").toString())) {
            int port = proxy.awaitPort();
            String login = "host=127.0.0.1 sslmode=disable port=" + port + " user=" + USER + " password=" + PASSWORD;
            assertEquals("1", psql(login + " dbname=app", "SELECT 1"));
            assertTrue(psql(login + " dbname=nosuch", "SELECT 1").contains("no such database: nosuch"));
            await(() -> contains(logfile, "closing because: no such database: nosuch"), "the refusal in the logfile");
            await(() -> contains(logfile, "app/app@127.0.0.1:") && contains(logfile, "client close request"),
                    "the first client's disconnection in the logfile");
            List<String> lines = Files.readAllLines(logfile);
            String start = String.format(LINE_START, proxy.pid());
            String client = "C-0x[0-9a-f]{8}: ";
            assertLogged(lines, start + "LOG " + client + "app/app@127\\.0\\.0\\.1:\\d+ login attempt: db=app"
                    + " user=app tls=no replication=no$");
            assertLogged(lines, start + "LOG " + client + "app/app@127\\.0\\.0\\.1:\\d+ closing because: client"
                    + " close request \\(age=\\d+s\\)$");
            assertLogged(lines, start + "LOG " + client + "\\(nodb\\)/app@127\\.0\\.0\\.1:\\d+ login attempt:"
                    + " db=nosuch user=app tls=no replication=no$");
            assertLogged(lines, start + "WARNING " + client + "\\(nodb\\)/app@127\\.0\\.0\\.1:\\d+ pooler error:"
                    + " no such database: nosuch$");
            String server = "LOG S-0x[0-9a-f]{8}: app/" + Pattern.quote(db.superuser()) + "@\\S+:" + db.port() + " ";
            assertLogged(lines, start + server + "new connection to server \\(from \\S+:\\d+\\)$");
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
            assertLogged(Files.readAllLines(logfile), start + server + "closing because: pool closing"
                    + " \\(age=\\d+s\\)$");
        }
    }

    /** PgBouncer's line, which its suite (test_no_database_pg) and operators' log watchers look for. */
    @Test
    void aServerRefusingTheLoginIsLoggedWithItsSeverityAndMessage() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        Path ini = ini("logfile = pgmux.log");
        Files.writeString(ini, Files.readString(ini).replace("[pgbouncer]", "gone = host=" + db.host() + " port="
                + db.port() + " dbname=no_such_pg_db user=" + db.superuser() + " password="
                + db.superuserPassword() + "\n[pgbouncer]"));
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            String login = "host=127.0.0.1 sslmode=disable port=" + port + " user=" + USER + " password=" + PASSWORD;
            String refused = psql(login + " dbname=gone", "SELECT 1");
            assertTrue(refused.contains("database \"no_such_pg_db\" does not exist"), refused);
            await(() -> contains(logfile, "server login failed: "), "the failed server login in the logfile");
            assertLogged(Files.readAllLines(logfile), String.format(LINE_START, proxy.pid()) + "WARNING .*server"
                    + " login failed: FATAL database \"no_such_pg_db\" does not exist$");
        }
    }

    @Test
    void logConnectionsDisconnectionsAndPoolerErrorsAtZeroLeaveTheirLinesOut() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log", "log_connections = 0",
                "log_disconnections = 0", "log_pooler_errors = 0").toString())) {
            int port = proxy.awaitPort();
            String login = "host=127.0.0.1 sslmode=disable port=" + port + " user=" + USER + " password=" + PASSWORD;
            assertEquals("1", psql(login + " dbname=app", "SELECT 1"));
            assertTrue(psql(login + " dbname=nosuch", "SELECT 1").contains("no such database: nosuch"));
            proxy.signal("INT");
            assertEquals(0, proxy.awaitExit());
        }
        List<String> lines = Files.readAllLines(logfile);
        assertLogged(lines, ".* LOG shutdown complete$");
        for (String text : List.of("login attempt", "new connection to server", "closing because", "pooler error")) {
            assertTrue(lines.stream().noneMatch(line -> line.contains(text)), "a line with " + text + " in\n"
                    + String.join("\n", lines));
        }
    }

    @Test
    void aPoolFreedByPoolIdleTimeoutIsLoggedInPgBouncersWords() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log", "pool_idle_timeout = 1",
                "server_idle_timeout = 1").toString())) {
            int port = proxy.awaitPort();
            String login = "host=127.0.0.1 sslmode=disable port=" + port + " user=" + USER + " password=" + PASSWORD;
            assertEquals("1", psql(login + " dbname=app", "SELECT 1"));
            await(() -> contains(logfile, "cleaning up idle pool"), "the freed pool in the logfile");
            assertLogged(Files.readAllLines(logfile), String.format(LINE_START, proxy.pid()) + "LOG cleaning up idle"
                    + " pool for user \\S+ on db app because: pool idle timeout \\(age=\\d+s\\)$");
        }
    }

    @Test
    void aServerConnectionRefusedIsLoggedAsConnectFailed() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        assertServerConnectionLogged(closedPort, "connect failed");
    }

    @Test
    void aServerLoginPastServerConnectTimeoutIsLoggedAsConnectTimeout() throws Exception {
        // a listener that never accepts: the kernel completes the TCP handshake, the login gets no answer
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertServerConnectionLogged(silent.getLocalPort(), "connect timeout");
        }
    }

    /** A client of database {@code down}, on {@code serverPort}, gets no server; the log says why as PgBouncer's. */
    private void assertServerConnectionLogged(int serverPort, String reason) throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        Path ini = ini("logfile = pgmux.log", "server_connect_timeout = 1", "query_wait_timeout = 3");
        Files.writeString(ini, Files.readString(ini).replace("[pgbouncer]\n", "down = host=127.0.0.1 port="
                + serverPort + " dbname=down user=" + USER + "\n[pgbouncer]\n"));
        try (ProxyJar proxy = ProxyJar.start(ini.toString())) {
            int port = proxy.awaitPort();
            psql("host=127.0.0.1 sslmode=disable port=" + port + " user=" + USER + " password=" + PASSWORD
                    + " dbname=down", "SELECT 1");
            await(() -> contains(logfile, reason), "the server connection's end in the logfile");
            assertLogged(Files.readAllLines(logfile), String.format(LINE_START, proxy.pid()) + "LOG S-0x[0-9a-f]{8}:"
                    + " down/app@127\\.0\\.0\\.1:" + serverPort + " closing because: " + reason + " \\(age=\\d+s\\)$");
        }
    }

    @Test
    void logStatsWritesPgBouncersStatsLineEveryStatsPeriod() throws Exception {
        Path logfile = dir.resolve("pgmux.log");
        try (ProxyJar proxy = ProxyJar.start(ini("logfile = pgmux.log", "stats_period = 1").toString())) {
            proxy.awaitPort();
            await(() -> contains(logfile, "LOG stats: "), "a stats line in the logfile");
            assertLogged(Files.readAllLines(logfile), String.format(LINE_START, proxy.pid()) + "LOG stats: \\d+"
                    + " xacts/s, \\d+ queries/s, \\d+ client parses/s, \\d+ server parses/s, \\d+ binds/s,"
                    + " \\d+ client logins/s,"
                    + " in \\d+ B/s, out \\d+ B/s, xact \\d+ us, query \\d+ us, wait \\d+ us$");
        }
    }

    @Test
    void aStartWithServerTlsPreferBuildsNoTlsContextForAServerThatOffersNone() throws Exception {
        // the fixture's server runs with ssl = off: it answers the pooler's SSLRequest 'N'
        Path classes = dir.resolve("classes.log");
        try (ProxyJar proxy = ProxyJar.start(List.of("-Xlog:class+load:file=" + classes),
                ini("server_tls_sslmode = prefer").toString())) {
            try (Connection c = connect(proxy.awaitPort(), "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
            proxy.signal("TERM");
            assertEquals(0, proxy.awaitExit());
        }
        String loaded = Files.readString(classes);
        assertTrue(loaded.contains(" io.pgmux.proxy.server.ServerConnection source: "), "no server login logged");
        assertFalse(loaded.contains(" sun.security.ssl.SSLContextImpl source: "), "a TLS context was built");
    }

    /** The JDK 17 commands of proxy-mode/README.md's "A faster start: a class-data archive", as written there. */
    @Test
    void theDocumentedClassDataArchiveIsWrittenAtExitAndServesTheNextStart() throws Exception {
        Path archive = dir.resolve("pgmux.jsa");
        try (ProxyJar training = ProxyJar.start(List.of("-Xint", "-XX:ArchiveClassesAtExit=" + archive),
                ini().toString())) {
            try (Connection c = connect(training.awaitPort(), "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
            training.signal("TERM");
            assertEquals(0, training.awaitExit());
        }
        assertTrue(Files.isRegularFile(archive) && Files.size(archive) > 0, "no archive was written at exit");
        Path classes = dir.resolve("classes.log");
        // -Xshare:on refuses to start when the archive cannot be used; the class log says where each class came from
        try (ProxyJar proxy = ProxyJar.start(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:on",
                "-Xlog:class+load:file=" + classes), ini().toString())) {
            try (Connection c = connect(proxy.awaitPort(), "app")) {
                assertEquals("1", Sql.value(c, "SELECT 1"));
            }
            proxy.signal("TERM");
            assertEquals(0, proxy.awaitExit());
        }
        String loaded = Files.readString(classes);
        assertTrue(loaded.contains(" io.pgmux.proxy.standalone.Main source: shared objects file (top)"),
                "the proxy's main class did not come from the archive");
        assertTrue(loaded.contains(" io.pgmux.proxy.auth.ScramServer source: shared objects file (top)"),
                "the login's classes did not come from the archive");
    }

    private static boolean refused(int port) {
        try (Connection c = connect(port, "app")) {
            return false;
        } catch (SQLException e) {
            return true;
        }
    }

    private static int waiting(Connection admin) {
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SHOW POOLS")) {
            int waiting = 0;
            while (rs.next()) {
                if ("app".equals(rs.getString("database"))) {
                    waiting += rs.getInt("cl_waiting");
                }
            }
            return waiting;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean contains(Path file, String text) {
        try {
            return Files.exists(file) && Files.readString(file).contains(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
