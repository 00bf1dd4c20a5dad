package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.testing.PostgresTest;
import io.pgmux.core.testing.TestDatabase;
import io.pgmux.proxy.auth.AuthType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Named prepared statements in transaction mode, at the protocol level. */
@PostgresTest
class PreparedStatementTest {
    private static final String USER = "raw";
    private final TestDatabase db;
    private PgMuxProxy proxy;

    PreparedStatementTest(TestDatabase db) {
        this.db = db;
    }

    private PgMuxProxy start(int poolSize, int maxPrepared) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .authType(AuthType.TRUST)
                .users(Map.of(USER, "", ProxyFixture.USER, ProxyFixture.PASSWORD))
                .defaultPoolSize(poolSize)
                .maxPreparedStatements(maxPrepared));
        return proxy;
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    private RawClient login() throws Exception {
        return RawClient.login(proxy, db.name(), USER, "");
    }

    @Test
    void statementPreparedOnOneServerRunsOnAnother() throws Exception {
        start(2, 200);
        try (RawClient a = login()) {
            a.parse("S1", "SELECT pg_backend_pid()");
            a.bind("S1");
            a.execute();
            a.sync();
            String firstPid = dataRow(a.readUntilReady());
            try (Connection holder = ProxyFixture.connect(proxy, db.name(), USER, "", new java.util.Properties());
                 Statement s = holder.createStatement()) {
                holder.setAutoCommit(false);
                s.execute("SELECT 1");
                a.bind("S1");
                a.execute();
                a.sync();
                List<RawClient.Message> second = a.readUntilReady();
                assertEquals("2DCZ", types(second));
                assertNotEquals(firstPid, dataRow(second));
                holder.rollback();
            }
        }
    }

    @Test
    void duplicateStatementNameIsANonFatalError() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.parse("S1", "SELECT 1");
            c.sync();
            assertEquals("1Z", types(c.readUntilReady()));
            c.parse("S1", "SELECT 2");
            c.sync();
            List<RawClient.Message> error = c.readUntilReady();
            assertEquals("EZ", types(error));
            assertEquals("42P05", error.get(0).field('C'));
            assertEquals("prepared statement \"S1\" already exists", error.get(0).field('M'));
            assertEquals('I', (char) error.get(1).body()[0]);
            c.bind("S1");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("1", dataRow(result));
        }
    }

    @Test
    void unknownStatementNameIsANonFatalError() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.bind("nope");
            c.execute();
            c.sync();
            List<RawClient.Message> error = c.readUntilReady();
            assertEquals("EZ", types(error));
            assertEquals("26000", error.get(0).field('C'));
            assertEquals("prepared statement \"nope\" does not exist", error.get(0).field('M'));
            c.query("SELECT 5");
            assertEquals("5", dataRow(c.readUntilReady()));
        }
    }

    @Test
    void nameWhoseParseFailedCanBePreparedAgain() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.parse("S1", "SELEC 1");
            c.sync();
            List<RawClient.Message> error = c.readUntilReady();
            assertEquals("EZ", types(error));
            assertEquals("42601", error.get(0).field('C'));
            c.parse("S1", "SELECT 'fixed'");
            c.bind("S1");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("12DCZ", types(result));
            assertEquals("fixed", dataRow(result));
        }
    }

    /** PostgreSQL skips what follows an error up to Sync: a Parse there creates no statement. */
    @Test
    void nameWhoseParseWasSkippedAfterAnErrorCanBePreparedAgain() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.parse("", "SELECT 1 / (random() * 0)::int");
            c.bind("");
            c.execute();
            c.parse("S1", "SELECT 'skipped'");
            c.sync();
            List<RawClient.Message> error = c.readUntilReady();
            assertEquals("12EZ", types(error));
            assertEquals("22012", error.get(2).field('C'));
            c.bind("S1");
            c.execute();
            c.sync();
            List<RawClient.Message> unknown = c.readUntilReady();
            assertEquals("EZ", types(unknown));
            assertEquals("26000", unknown.get(0).field('C'));
            c.parse("S1", "SELECT 'prepared'");
            c.bind("S1");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("12DCZ", types(result));
            assertEquals("prepared", dataRow(result));
        }
    }

    @Test
    void closedNameCanBePreparedAgain() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.parse("S1", "SELECT 1");
            c.closeStatement("S1");
            c.sync();
            assertEquals("13Z", types(c.readUntilReady()));
            c.parse("S1", "SELECT 'second'");
            c.bind("S1");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("12DCZ", types(result));
            assertEquals("second", dataRow(result));
        }
    }

    @Test
    void secondClientPreparingTheSameQueryIsAnsweredWithoutParsingAgain() throws Exception {
        start(1, 200);
        try (RawClient a = login(); RawClient b = login()) {
            a.parse("A", "SELECT 'shared'");
            a.sync();
            assertEquals("1Z", types(a.readUntilReady()));
            b.parse("B", "SELECT 'shared'");
            b.bind("B");
            b.execute();
            b.sync();
            List<RawClient.Message> result = b.readUntilReady();
            assertEquals("12DCZ", types(result));
            b.query("SELECT count(*) FROM pg_prepared_statements");
            assertEquals("1", dataRow(b.readUntilReady()));
        }
    }

    @Test
    void leastRecentlyUsedStatementIsClosedOnTheServer() throws Exception {
        start(1, 2);
        try (RawClient c = login()) {
            for (int i = 1; i <= 3; i++) {
                c.parse("S" + i, "SELECT " + i);
                c.sync();
                assertEquals("1Z", types(c.readUntilReady()));
            }
            c.query("SELECT count(*) FROM pg_prepared_statements");
            assertEquals("2", dataRow(c.readUntilReady()));
            c.bind("S1");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("2DCZ", types(result));
            assertEquals("1", dataRow(result));
        }
    }

    /**
     * DEALLOCATE ALL and DISCARD ALL sent as SQL drop every statement of the server connection, the pooler's
     * included: the next client preparing the same query must have it parsed again, and the client that sent the
     * command has no statements left, as on PostgreSQL.
     */
    @ParameterizedTest
    @ValueSource(strings = {"DEALLOCATE ALL", "DISCARD ALL"})
    void statementsDroppedBySqlAreParsedAgain(String command) throws Exception {
        start(1, 200);
        try (RawClient a = login(); RawClient b = login()) {
            a.parse("A", "SELECT 'shared'");
            a.sync();
            assertEquals("1Z", types(a.readUntilReady()));
            a.query(command);
            assertEquals("CZ", types(a.readUntilReady()));
            b.parse("B", "SELECT 'shared'");
            b.bind("B");
            b.execute();
            b.sync();
            List<RawClient.Message> result = b.readUntilReady();
            assertEquals("12DCZ", types(result));
            assertEquals("shared", dataRow(result));
            a.bind("A");
            a.execute();
            a.sync();
            List<RawClient.Message> gone = a.readUntilReady();
            assertEquals("EZ", types(gone));
            assertEquals("26000", gone.get(0).field('C'));
        }
    }

    @Test
    void pgjdbcServerPreparedStatementsSurviveChangingServers() throws Exception {
        start(2, 200);
        java.util.Properties props = new java.util.Properties();
        props.setProperty("prepareThreshold", "1");
        try (Connection c = ProxyFixture.connect(proxy, db.name(), USER, "", props);
             Connection other = ProxyFixture.connect(proxy, db.name(), USER, "", new java.util.Properties());
             java.sql.PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1, pg_backend_pid()")) {
            java.util.Set<Integer> pids = new java.util.HashSet<>();
            for (int i = 0; i < 6; i++) {
                other.setAutoCommit(i % 2 == 0);
                try (Statement s = other.createStatement()) {
                    s.execute("SELECT 1");
                }
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertEquals(i + 1, rs.getInt(1));
                    pids.add(rs.getInt(2));
                }
            }
            other.setAutoCommit(true);
            assertEquals(2, pids.size());
        }
    }

    private static String types(List<RawClient.Message> messages) {
        StringBuilder s = new StringBuilder();
        for (RawClient.Message m : messages) {
            if (m.type() != 'N' && m.type() != 'S') {
                s.append(m.type());
            }
        }
        return s.toString();
    }

    /** The first column of the first DataRow, as text. */
    private static String dataRow(List<RawClient.Message> messages) {
        for (RawClient.Message m : messages) {
            if (m.type() == 'D') {
                byte[] b = m.body();
                int length = ((b[2] & 0xFF) << 24) | ((b[3] & 0xFF) << 16) | ((b[4] & 0xFF) << 8) | (b[5] & 0xFF);
                return new String(b, 6, length, java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no DataRow in " + types(messages));
    }
}
