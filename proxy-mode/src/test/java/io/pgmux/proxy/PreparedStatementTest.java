package io.pgmux.proxy;

import static io.pgmux.proxy.RawClient.bindFrame;
import static io.pgmux.proxy.RawClient.cstring;
import static io.pgmux.proxy.RawClient.firstColumn;
import static io.pgmux.proxy.RawClient.parseFrame;
import static io.pgmux.proxy.RawClient.queryFrame;
import static io.pgmux.proxy.RawClient.types;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.proxy.auth.AuthType;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Named prepared statements in transaction mode, at the protocol level. */
@PostgresTest
class PreparedStatementTest {
    private static final String USER = "raw";
    private static final byte[] EXECUTE = RawClient.frame('E', RawClient.concat(cstring(""), new byte[4]));
    private static final byte[] SYNC = RawClient.frame('S', new byte[0]);
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
            String firstPid = firstColumn(bindAndExecute(a, "S1"));
            try (Connection holder = ProxyFixture.connect(proxy, db.name(), USER, "", new Properties());
                 Statement s = holder.createStatement()) {
                holder.setAutoCommit(false);
                s.execute("SELECT 1");
                List<RawClient.Message> second = bindAndExecute(a, "S1");
                assertEquals("2DCZ", types(second));
                assertNotEquals(firstPid, firstColumn(second));
                holder.rollback();
            }
        }
    }

    @Test
    void duplicateStatementNameIsANonFatalError() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            prepare(c, "S1", "SELECT 1");
            c.parse("S1", "SELECT 2");
            c.sync();
            List<RawClient.Message> error = c.readUntilReady();
            assertEquals("prepared statement \"S1\" already exists", assertError("42P05", error).field('M'));
            assertEquals('I', (char) error.get(1).body()[0]);
            assertEquals("1", firstColumn(bindAndExecute(c, "S1")));
        }
    }

    @Test
    void duplicateStatementNameWithQuoteAndBackslashIsTheSameErrorWithoutStandardConformingStrings() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.query("SET standard_conforming_strings = off");
            c.readUntilReady();
            String name = "S\\'; x";
            prepare(c, name, "SELECT 1");
            c.parse(name, "SELECT 2");
            c.sync();
            List<RawClient.Message> error = c.readUntilReady();
            assertEquals("prepared statement \"" + name + "\" already exists",
                    assertError("42P05", error).field('M'));
            assertEquals("1", firstColumn(bindAndExecute(c, name)));
        }
    }

    @Test
    void unknownStatementNameIsANonFatalError() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            RawClient.Message error = assertError("26000", bindAndExecute(c, "nope"));
            assertEquals("prepared statement \"nope\" does not exist", error.field('M'));
            c.query("SELECT 5");
            assertEquals("5", firstColumn(c.readUntilReady()));
        }
    }

    @Test
    void nameWhoseParseFailedCanBePreparedAgain() throws Exception {
        start(2, 200);
        try (RawClient c = login()) {
            c.parse("S1", "SELEC 1");
            c.sync();
            assertError("42601", c.readUntilReady());
            assertPreparedAndRun(c, "S1", "SELECT 'fixed'", "fixed");
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
            assertError("26000", bindAndExecute(c, "S1"));
            assertPreparedAndRun(c, "S1", "SELECT 'prepared'", "prepared");
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
            assertPreparedAndRun(c, "S1", "SELECT 'second'", "second");
        }
    }

    /**
     * A name longer than PostgreSQL takes in a Close (10,000 bytes) reaches the server renamed in Parse and Bind;
     * its Close is the pooler's to answer, or the server would drop the connection.
     */
    @Test
    void statementNameLongerThanAServerTakesInACloseIsClosed() throws Exception {
        start(1, 200);
        String name = "a".repeat(16_384);
        try (RawClient c = login()) {
            assertPreparedAndRun(c, name, "SELECT 'long'", "long");
            c.closeStatement(name);
            c.sync();
            assertEquals("3Z", types(c.readUntilReady()));
            assertPreparedAndRun(c, name, "SELECT 'again'", "again");
        }
    }

    /** The pooler's CloseComplete comes between the server's responses to the requests before and after it. */
    @Test
    void theAnswerToAPipelinedCloseComesInItsPlaceAmongTheServersResponses() throws Exception {
        start(1, 200);
        try (RawClient c = login()) {
            prepare(c, "S1", "SELECT 'first'");
            c.bind("S1");
            c.execute();
            c.closeStatement("S1");
            c.parse("S2", "SELECT 'second'");
            c.bind("S2");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("2DC312DCZ", types(result));
            assertEquals(List.of("first", "second"), RawClient.firstColumns(result));
        }
    }

    /** max_prepared_statements = 0 turns PgBouncer's tracking off: a named statement reaches the server as named. */
    @Test
    void withMaxPreparedStatementsZeroANamedStatementKeepsItsNameOnTheServer() throws Exception {
        start(1, 0);
        try (RawClient a = login()) {
            prepare(a, "mine", "SELECT 'passed through'");
            a.query("SELECT string_agg(name, ',') FROM pg_prepared_statements");
            assertEquals("mine", firstColumn(a.readUntilReady()));
        }
    }

    @Test
    void secondClientPreparingTheSameQueryIsAnsweredWithoutParsingAgain() throws Exception {
        start(1, 200);
        try (RawClient a = login(); RawClient b = login()) {
            prepare(a, "A", "SELECT 'shared'");
            assertPreparedAndRun(b, "B", "SELECT 'shared'", "shared");
            b.query("SELECT count(*) FROM pg_prepared_statements");
            assertEquals("1", firstColumn(b.readUntilReady()));
        }
    }

    /**
     * A pipelined Parse of a statement the server has is answered by the pooler between the server's responses
     * to the requests before and after it, which arrive together.
     */
    @Test
    void theAnswerToAPipelinedParseComesInItsPlaceAmongTheServersResponses() throws Exception {
        start(1, 200);
        try (RawClient a = login(); RawClient b = login()) {
            prepare(a, "A", "SELECT 'known'");
            b.parse("NEW", "SELECT 'new'");
            b.bind("NEW");
            b.execute();
            b.parse("KNOWN", "SELECT 'known'");
            b.bind("KNOWN");
            b.execute();
            b.sync();
            List<RawClient.Message> result = b.readUntilReady();
            assertEquals("12DC12DCZ", types(result));
            assertEquals(List.of("new", "known"), RawClient.firstColumns(result));
        }
    }

    /**
     * A Parse of a statement the server has, pipelined behind another batch's Sync, is answered after that
     * batch's ReadyForQuery and before its own.
     */
    @Test
    void theAnswerToAParsePipelinedBehindASyncComesAfterTheReadyForQueryBeforeIt() throws Exception {
        start(1, 200);
        try (RawClient c = login()) {
            prepare(c, "KNOWN", "SELECT 'known'");
            c.sendRaw(RawClient.concat(
                    RawClient.frame('P', RawClient.concat(cstring("NEW"), cstring("SELECT 'new'"), new byte[2])),
                    RawClient.frame('S', new byte[0]),
                    RawClient.frame('P', RawClient.concat(cstring("AGAIN"), cstring("SELECT 'known'"), new byte[2])),
                    RawClient.frame('S', new byte[0])));
            assertEquals("1Z", types(c.readUntilReady()));
            assertEquals("1Z", types(c.readUntilReady()));
            assertEquals("known", firstColumn(bindAndExecute(c, "AGAIN")));
        }
    }

    /**
     * A Parse of a statement the server has, pipelined behind a simple Query, is answered after the Query's
     * ReadyForQuery and before its own.
     */
    @Test
    void theAnswerToAParsePipelinedBehindASimpleQueryComesAfterItsReadyForQuery() throws Exception {
        start(1, 200);
        try (RawClient a = login(); RawClient b = login()) {
            prepare(a, "A", "SELECT 'known'");
            b.sendRaw(RawClient.concat(queryFrame("SELECT 'first'"), parseFrame("KNOWN", "SELECT 'known'"),
                    SYNC));
            List<RawClient.Message> query = b.readUntilReady();
            assertEquals("TDCZ", types(query));
            assertEquals("first", firstColumn(query));
            assertEquals("1Z", types(b.readUntilReady()));
            assertEquals("known", firstColumn(bindAndExecute(b, "KNOWN")));
        }
    }

    /**
     * The error of a simple Query pipelined ahead of a batch is the Query's alone: the Parse the pooler adds for
     * the batch's Bind (the server lacks the statement) is still answered, and its response dropped.
     */
    @Test
    void anErrorOfASimpleQueryPipelinedAheadOfABatchLeavesTheBatchWhole() throws Exception {
        start(1, 1);
        try (RawClient c = login()) {
            prepare(c, "S1", "SELECT 1");
            prepare(c, "S2", "SELECT 2");
            c.sendRaw(RawClient.concat(queryFrame("SELECT 1 / 0"), bindFrame("S1"), EXECUTE, SYNC));
            assertError("22012", c.readUntilReady());
            List<RawClient.Message> batch = c.readUntilReady();
            assertEquals("2DCZ", types(batch));
            assertEquals("1", firstColumn(batch));
        }
    }

    /**
     * A batch of the unnamed statement that fails in its Execute, pipelined ahead of a batch preparing a named
     * statement: the error skips its own batch only, the named statement is created, and a Parse answered by the
     * pooler later still comes in its place.
     */
    @Test
    void anErrorInAnUnnamedBatchPipelinedAheadOfANamedOneLeavesTheNamedOneWhole() throws Exception {
        start(1, 200);
        try (RawClient c = login()) {
            c.sendRaw(RawClient.concat(parseFrame("", "SELECT 1 / (random() * 0)::int"), bindFrame(""), EXECUTE,
                    SYNC, parseFrame("S1", "SELECT 'after'"), bindFrame("S1"), EXECUTE, SYNC));
            List<RawClient.Message> failed = c.readUntilReady();
            assertEquals("12EZ", types(failed));
            assertEquals("22012", failed.get(2).field('C'));
            List<RawClient.Message> named = c.readUntilReady();
            assertEquals("12DCZ", types(named));
            assertEquals("after", firstColumn(named));
            c.sendRaw(RawClient.concat(queryFrame("SELECT 'query'"), parseFrame("S2", "SELECT 'after'"), SYNC));
            assertEquals("TDCZ", types(c.readUntilReady()));
            assertEquals("1Z", types(c.readUntilReady()));
            assertEquals("after", firstColumn(bindAndExecute(c, "S1")));
            assertEquals("after", firstColumn(bindAndExecute(c, "S2")));
        }
    }

    /**
     * The response to a Parse the pooler adds in the middle of a pipeline (the statement was evicted from the
     * server) is dropped from among the server's responses that arrive with it.
     */
    @Test
    void theResponseToAParseThePoolerAddedMidPipelineIsDropped() throws Exception {
        start(1, 2);
        try (RawClient c = login()) {
            for (int i = 1; i <= 3; i++) {
                prepare(c, "S" + i, "SELECT " + i);
            }
            c.bind("S3");
            c.execute();
            c.bind("S1");
            c.execute();
            c.bind("S2");
            c.execute();
            c.sync();
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("2DC2DC2DCZ", types(result));
            assertEquals(List.of("3", "1", "2"), RawClient.firstColumns(result));
        }
    }

    @Test
    void leastRecentlyUsedStatementIsClosedOnTheServer() throws Exception {
        start(1, 2);
        try (RawClient c = login()) {
            for (int i = 1; i <= 3; i++) {
                prepare(c, "S" + i, "SELECT " + i);
            }
            c.query("SELECT count(*) FROM pg_prepared_statements");
            assertEquals("2", firstColumn(c.readUntilReady()));
            List<RawClient.Message> result = bindAndExecute(c, "S1");
            assertEquals("2DCZ", types(result));
            assertEquals("1", firstColumn(result));
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
            prepare(a, "A", "SELECT 'shared'");
            a.query(command);
            assertEquals("CZ", types(a.readUntilReady()));
            assertPreparedAndRun(b, "B", "SELECT 'shared'", "shared");
            assertError("26000", bindAndExecute(a, "A"));
        }
    }

    @Test
    void aClientPreparingMoreThanTenTimesMaxPreparedStatementsGetsANonFatal53400() throws Exception {
        start(1, 2);
        try (RawClient a = login()) {
            for (int i = 0; i < 20; i++) {
                prepare(a, "S" + i, "SELECT " + i);
            }
            a.parse("S20", "SELECT 20");
            a.sync();
            RawClient.Message error = assertError("53400", a.readUntilReady());
            assertTrue(error.field('M').contains("at most 20"), error.field('M'));
            assertPreparedAndRun(a, "", "SELECT 'unnamed'", "unnamed");
            a.closeStatement("S0");
            a.sync();
            assertEquals("3Z", types(a.readUntilReady()));
            assertPreparedAndRun(a, "S20", "SELECT 20", "20");
            assertEquals("19", firstColumn(bindAndExecute(a, "S19")));
        }
    }

    @Test
    void pgjdbcServerPreparedStatementsSurviveChangingServers() throws Exception {
        start(2, 200);
        Properties props = new Properties();
        props.setProperty("prepareThreshold", "1");
        try (Connection c = ProxyFixture.connect(proxy, db.name(), USER, "", props);
             Connection other = ProxyFixture.connect(proxy, db.name(), USER, "", new Properties());
             PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1, pg_backend_pid()")) {
            Set<Integer> pids = new HashSet<>();
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

    /** Parse and Sync: the statement must be created. */
    private static void prepare(RawClient c, String name, String sql) throws IOException {
        c.parse(name, sql);
        c.sync();
        assertEquals("1Z", types(c.readUntilReady()));
    }

    /** Bind, Execute and Sync of a prepared statement: what came back, up to ReadyForQuery. */
    private static List<RawClient.Message> bindAndExecute(RawClient c, String statement) throws IOException {
        c.bind(statement);
        c.execute();
        c.sync();
        return c.readUntilReady();
    }

    /** Parse, Bind, Execute and Sync at once: the statement is created and its one row is {@code value}. */
    private static void assertPreparedAndRun(RawClient c, String name, String sql, String value) throws IOException {
        c.parse(name, sql);
        List<RawClient.Message> result = bindAndExecute(c, name);
        assertEquals("12DCZ", types(result));
        assertEquals(value, firstColumn(result));
    }

    /** An ErrorResponse with that SQLSTATE, then ReadyForQuery (the error is not fatal); returns the error. */
    private static RawClient.Message assertError(String sqlstate, List<RawClient.Message> messages) {
        assertEquals("EZ", types(messages));
        assertEquals(sqlstate, messages.get(0).field('C'));
        return messages.get(0);
    }
}
