package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.HbaFormatException;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** auth_type hba and any, with real clients (pgjdbc, psql) against the fixture's PostgreSQL. */
@PostgresTest
class HbaTest {
    private final TestDatabase db;
    /** Users of {@link #startHba()}'s lines: SCRAM, password (md5 on the server) and reject. */
    private TestUser scram;
    private TestUser password;
    private TestUser rejected;
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    HbaTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void eachLinesMethodAcceptsTheRightPasswordAndRefusesAWrongOne() throws Exception {
        startHba();
        assertEquals(scram.name(), currentUser(scram.name(), scram.password()));
        assertEquals("SASL authentication failed", refusal(scram.name(), "wrong"));
        assertEquals(password.name(), currentUser(password.name(), password.password()));
        assertEquals("password authentication failed", refusal(password.name(), "wrong"));
    }

    @Test
    void rejectLineRefusesEvenTheRightPassword() throws Exception {
        startHba();
        assertEquals("login rejected", refusal(rejected.name(), rejected.password()));
    }

    @Test
    void userNoLineMatchesIsRefused() throws Exception {
        startHba();
        assertEquals("no authentication method is found", refusal(ProxyFixture.USER, ProxyFixture.PASSWORD));
    }

    /**
     * An IPv4-mapped address is an IPv6 line, as in PgBouncer 1.25.2 and PostgreSQL: it loads, and a client over
     * IPv4 goes on to the next line (PgBouncer, given only the mapped line, answers "no authentication method is
     * found" to a 127.0.0.1 client).
     */
    @Test
    void anIpv4MappedAddressLineLoadsAndAnIpv4ClientLogsInThroughTheNextLine() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, "host all all ::ffff:127.0.0.1/128 reject\n"
                + "host all all 127.0.0.1/32 scram-sha-256\n");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .database(db.name(), "postgresql://" + db.host() + ":" + db.port() + "/" + db.name()
                        + "?sslmode=disable")
                .users(Map.of(user.name(), user.password()))
                .set("auth_type", "hba")
                .set("auth_hba_file", hba.toString()));
        assertEquals(user.name(), currentUser(user.name(), user.password()));
        assertEquals("SASL authentication failed", refusal(user.name(), "wrong"));
    }

    @Test
    void psqlLogsInThroughAPasswordLineAndIsRefusedWithAWrongPassword() throws Exception {
        startHba();
        String url = "postgresql://" + password.name() + ":%s@127.0.0.1:" + proxy.port() + "/" + db.name()
                + "?sslmode=disable";
        Psql.Result good = Psql.run(url.formatted(password.password()), "SELECT current_user");
        assertTrue(good.succeeded(), good.output());
        assertEquals(password.name(), good.output().strip());
        Psql.Result bad = Psql.run(url.formatted("wrong"), "SELECT 1");
        assertFalse(bad.succeeded(), bad.output());
        assertTrue(bad.output().contains("password authentication failed"), bad.output());
    }

    /** PgBouncer's test suite names its hba file relative to the working directory, where PgBouncer looks. */
    @Test
    void aRelativeHbaFileMissingBesideTheIniIsReadFromTheWorkingDirectory() throws Exception {
        Path hba = Files.createTempFile(Path.of("target"), "hba-", ".conf");
        try {
            Files.writeString(hba, "host all all 0.0.0.0/0 reject\n");
            ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD);
            Path ini = ProxyFixture.writeIni(dir.resolve("pgbouncer.ini"), db.name() + " = host=" + db.host()
                    + " port=" + db.port() + " dbname=" + db.name() + " user=" + db.superuser() + " password="
                    + db.superuserPassword(), 0, "unix_socket_dir =\nauth_type = hba\nauth_hba_file = target/"
                    + hba.getFileName() + "\n");
            proxy = ProxyConfigLoader.load(ini).start();
            assertEquals("login rejected", refusal(ProxyFixture.USER, ProxyFixture.PASSWORD));
        } finally {
            Files.delete(hba);
        }
    }

    @Test
    void aUserListWithSpacesAroundItsCommasMatchesEachUserInIt() throws Exception {
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, "host all nobody , " + ProxyFixture.USER + " 0.0.0.0/0 reject\n"
                + "host all all 0.0.0.0/0 md5\n");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .set("auth_type", "hba").set("auth_hba_file", hba.toString()));
        assertEquals("login rejected", refusal(ProxyFixture.USER, ProxyFixture.PASSWORD));
    }

    @Test
    void hostsslLineDoesNotMatchAPlainTextClient() throws Exception {
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, "hostssl all all 0.0.0.0/0 trust\nhost all all 127.0.0.1/32 md5\n");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .set("auth_type", "hba").set("auth_hba_file", hba.toString()));
        assertEquals("password authentication failed", refusal(ProxyFixture.USER, "wrong"));
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            assertTrue(c.isValid(5));
        }
    }

    @Test
    void localLinesDecideForClientsOfTheUnixSocketAndHostLinesForTcpClients() throws Exception {
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, "local all all md5\nhost all all 0.0.0.0/0 reject\n");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir)
                .set("auth_type", "hba").set("auth_hba_file", hba.toString()));
        Psql.Result unix = Psql.run("host=" + dir + " port=" + proxy.port() + " user=" + ProxyFixture.USER
                + " dbname=" + db.name() + " password=" + ProxyFixture.PASSWORD, "SELECT 6 * 7");
        assertTrue(unix.succeeded(), unix.output());
        assertEquals("42", unix.output().strip());
        assertEquals("login rejected", refusal(ProxyFixture.USER, ProxyFixture.PASSWORD));
    }

    @Test
    void hbaWithoutAnHbaFileIsRefusedAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("auth_type", "hba")));
        assertEquals("auth_type = hba needs auth_hba_file", e.getMessage());
    }

    @Test
    void malformedHbaLineStopsTheStartNamingFileAndLine() throws Exception {
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, "host all all 127.0.0.1/32 md5\nhost all all 127.0.0.1/32 gss\n");
        HbaFormatException e = assertThrows(HbaFormatException.class,
                () -> ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                        .set("auth_type", "hba").set("auth_hba_file", hba.toString())));
        assertTrue(e.getMessage().startsWith(hba + " line 2: unsupported method \"gss\""), e.getMessage());
    }

    @Test
    void anyLogsEveryoneInAsTheDatabasesUserWithoutAPassword() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.ANY));
        try (Connection c = ProxyFixture.connect(proxy, db.name(), "whoever", "", new Properties());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            assertEquals(db.superuser(), rs.getString(1));
        }
    }

    @Test
    void anyRefusesADatabaseThatNamesNoUser() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.ANY)
                .database(db.name(), "postgresql://" + db.host() + ":" + db.port() + "/" + db.name()));
        assertEquals("bouncer config error", refusal("whoever", ""));
    }

    @Test
    void scramIterationsSetsTheIterationsOfVerifiersDerivedFromPlaintextPasswords() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .authType(AuthType.SCRAM_SHA_256).set("scram_iterations", "1234"));
        try (RawClient c = new RawClient(proxy.port())) {
            String text = c.scramServerFirst(ProxyFixture.USER, db.name());
            assertTrue(text.endsWith(",i=1234"), text);
        }
    }

    /** The OS user running the tests, the peer of every Unix socket client they start. */
    private static final String OS_USER = System.getProperty("user.name");

    /** auth_type hba with {@code lines}, the OS user and the fixture's user known, and the Unix socket in dir. */
    private void startPeer(String lines, String identMap) throws Exception {
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, lines);
        Path ident = dir.resolve("ident.conf");
        Files.writeString(ident, identMap);
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir)
                .users(Map.of(OS_USER, "unused", ProxyFixture.USER, ProxyFixture.PASSWORD))
                .set("auth_type", "hba").set("auth_hba_file", hba.toString())
                .set("auth_ident_file", ident.toString()));
    }

    private Psql.Result psqlOverTheUnixSocket(String user) throws Exception {
        return Psql.run("host=" + dir + " port=" + proxy.port() + " user=" + user + " dbname=" + db.name(),
                "SELECT 6 * 7");
    }

    @Test
    void peerLetsTheOsUserOfAUnixSocketClientLogInAsItselfWithoutAPassword() throws Exception {
        startPeer("local all all peer\n", "");
        Psql.Result psql = psqlOverTheUnixSocket(OS_USER);
        assertTrue(psql.succeeded(), psql.output());
        assertEquals("42", psql.output().strip());
    }

    @Test
    void peerRefusesAUnixSocketClientAskingForAnotherUserWithPgBouncersText() throws Exception {
        startPeer("local all all peer\n", "");
        Psql.Result psql = psqlOverTheUnixSocket(ProxyFixture.USER);
        assertFalse(psql.succeeded(), psql.output());
        assertTrue(psql.output().contains("unix socket login rejected"), psql.output());
    }

    @Test
    void peerWithAMapLetsTheOsUserLogInAsTheUserTheMapNames() throws Exception {
        startPeer("local all all peer map=os\n", "os " + OS_USER + " " + ProxyFixture.USER + "\n");
        Psql.Result mapped = psqlOverTheUnixSocket(ProxyFixture.USER);
        assertTrue(mapped.succeeded(), mapped.output());
        assertEquals("42", mapped.output().strip());
        Psql.Result itself = psqlOverTheUnixSocket(OS_USER);
        assertFalse(itself.succeeded(), "the map lets the OS user be app only: " + itself.output());
        assertTrue(itself.output().contains("unix socket login rejected"), itself.output());
    }

    @Test
    void peerRefusesAnOsUserTheAuthFileDoesNotKnow() throws Exception {
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, "local all all peer\n");
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.unixSocketDir(dir)
                .set("auth_type", "hba").set("auth_hba_file", hba.toString()));
        Psql.Result psql = psqlOverTheUnixSocket(OS_USER);
        assertFalse(psql.succeeded(), psql.output());
        assertTrue(psql.output().contains("unix socket login rejected"), psql.output());
    }

    private void startHba() throws Exception {
        scram = db.createUser(PasswordMethod.SCRAM_SHA_256);
        password = db.createUser(PasswordMethod.MD5);
        rejected = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Path hba = dir.resolve("hba.conf");
        Files.writeString(hba, """
                # TYPE  DATABASE  USER          ADDRESS       METHOD
                host    all       %s  127.0.0.1/32  reject
                host    all       %s     127.0.0.1/32  scram-sha-256
                host    all       %s  127.0.0.1 255.255.255.255  password
                """.formatted(rejected.name(), scram.name(), password.name()));
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .database(db.name(), "postgresql://" + db.host() + ":" + db.port() + "/" + db.name()
                        + "?sslmode=disable")
                .users(Map.of(scram.name(), scram.password(), password.name(), password.password(),
                        rejected.name(), rejected.password(), ProxyFixture.USER, ProxyFixture.PASSWORD))
                .set("auth_type", "hba")
                .set("auth_hba_file", hba.toString()));
    }

    private String currentUser(String user, String password) throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, db.name(), user, password, new Properties());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private String refusal(String user, String password) {
        SQLException e = assertThrows(SQLException.class,
                () -> ProxyFixture.connect(proxy, db.name(), user, password, new Properties()).close());
        assertEquals("08P01", e.getSQLState(), e.getMessage());
        return e.getMessage().replaceFirst("^FATAL: ", "");
    }
}
