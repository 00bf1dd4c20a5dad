package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionModeTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    TransactionModeTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() throws SQLException {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, name text)");
            s.execute("GRANT ALL ON items TO PUBLIC");
        }
    }

    @AfterAll
    void stop() {
        proxy.close();
    }

    @Test
    void simpleQueryReturnsRows() throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 40 + 2, current_database()")) {
            assertTrue(rs.next());
            assertEquals(42, rs.getInt(1));
            assertEquals(db.name(), rs.getString(2));
        }
    }

    @Test
    void serverConnectionGoesBackToThePoolAfterEachTransaction() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
            c.setAutoCommit(false);
            s.execute("SELECT 1");
            assertEquals(1, ProxyFixture.pool(proxy, db).getActiveConnections());
            c.commit();
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
        }
    }

    @Test
    void transactionCommitsAndRollsBack() throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO items VALUES (1, 'kept')");
            c.commit();
            s.execute("INSERT INTO items VALUES (2, 'dropped')");
            c.rollback();
            c.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery("SELECT string_agg(name, ',') FROM items WHERE id IN (1, 2)")) {
                rs.next();
                assertEquals("kept", rs.getString(1));
            }
        }
    }

    @Test
    void errorIsReportedAndConnectionStaysUsable() throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT * FROM no_such_table"));
            assertEquals("42P01", e.getSQLState());
            c.setAutoCommit(false);
            assertThrows(SQLException.class, () -> s.execute("SELECT 1/0"));
            c.rollback();
            c.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery("SELECT 7")) {
                rs.next();
                assertEquals(7, rs.getInt(1));
            }
        }
    }

    @Test
    void preparedStatementsFromManyThreadsShareFewServerConnections() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                results.add(threads.submit(() -> {
                    int sum = 0;
                    try (Connection c = connect(proxy, "prepareThreshold", "1");
                         PreparedStatement ps = c.prepareStatement("SELECT ?::int * 2")) {
                        for (int i = 0; i < 50; i++) {
                            ps.setInt(1, thread * 1000 + i);
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                sum += rs.getInt(1) - 2 * (thread * 1000 + i);
                            }
                        }
                    }
                    return sum;
                }));
            }
            for (Future<Integer> result : results) {
                assertEquals(0, result.get(60, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }
        assertTrue(ProxyFixture.pool(proxy, db).getTotalConnections() <= 4);
    }

    @Test
    void timeZoneOfEachClientIsCarriedToTheServerItGets() throws Exception {
        try (Connection a = connect(proxy, "options", "-c TimeZone=Europe/Berlin");
             Connection b = connect(proxy, "options", "-c TimeZone=Asia/Tokyo")) {
            assertEachSeesItsOwn("TimeZone", a, "Europe/Berlin", b, "Asia/Tokyo");
        }
    }

    /** A list in a startup setting is a list, as PostgreSQL reads it, not one quoted schema name. */
    @Test
    void searchPathListOfTheStartupPacketIsCarriedToTheServer() throws Exception {
        try (Connection c = connect(proxy, "options", "-c search_path=pgmux_app,public")) {
            assertEquals("pgmux_app,public", show(c, "search_path"));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_schema()")) {
                rs.next();
                assertEquals("public", rs.getString(1));
            }
        }
    }

    @Test
    void aStartupSettingTheServerDoesNotReportIsCarriedToTheServerItGets() throws Exception {
        try (Connection a = connect(proxy, "currentSchema", "alpha");
             Connection b = connect(proxy, "currentSchema", "beta")) {
            assertEachSeesItsOwn("search_path", a, "alpha", b, "beta");
        }
    }

    @Test
    void aStartupSettingOfOneClientDoesNotReachAClientThatDidNotAskForIt() throws Exception {
        try (PgMuxProxy oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
             Connection plain = ProxyFixture.connect(oneServer, db)) {
            String byDefault = show(plain, "search_path");
            try (Connection a = connect(oneServer, "currentSchema", "alpha")) {
                assertEquals("alpha", show(a, "search_path"));
                assertEquals(byDefault, show(plain, "search_path"));
            }
        }
    }

    @Test
    void applicationNameIsCarriedToTheServer() throws Exception {
        try (Connection c = connect(proxy, "ApplicationName", "proxy-test-app")) {
            assertEquals("proxy-test-app", show(c, "application_name"));
            assertFalse(c.isClosed());
        }
    }

    @Test
    void queriesTransactionsAndBytesAreCountedForShowStats() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement()) {
            // counted from here: pgjdbc runs a SET of its own right after connecting
            io.pgmux.core.stats.TrafficStats.Totals before = ProxyFixture.pool(proxy, db).traffic().totals();
            s.execute("SELECT 1");
            c.setAutoCommit(false);
            s.execute("SELECT 2");
            s.execute("SELECT 3");
            c.commit();
            io.pgmux.core.stats.TrafficStats.Totals after = ProxyFixture.pool(proxy, db).traffic().totals();
            assertTrue(after.queryCount - before.queryCount >= 3, "SELECT 1, BEGIN + SELECT 2, SELECT 3, COMMIT");
            assertEquals(2, after.xactCount - before.xactCount);
            assertTrue(after.received > before.received && after.sent > before.sent);
        }
    }

    @Test
    void eventLoopsUseEpollOnLinuxX86() {
        Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux")
                && System.getProperty("os.arch").equals("amd64"), "epoll's native library is bundled for Linux x86-64");
        assertTrue(proxy.isEpoll());
    }

    /** A client of the fixture's user with one connection property of pgjdbc set. */
    private Connection connect(PgMuxProxy to, String property, String value) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty(property, value);
        return ProxyFixture.connect(to, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, properties);
    }

    /** Two clients taking turns over the pool's server connections: each sees its own value every time. */
    private static void assertEachSeesItsOwn(String setting, Connection a, String aValue, Connection b, String bValue)
            throws SQLException {
        for (int i = 0; i < 5; i++) {
            assertEquals(aValue, show(a, setting));
            assertEquals(bValue, show(b, setting));
        }
    }

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
