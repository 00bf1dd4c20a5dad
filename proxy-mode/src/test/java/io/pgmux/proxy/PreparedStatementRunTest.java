package io.pgmux.proxy;

import static io.pgmux.proxy.RawClient.bindFrame;
import static io.pgmux.proxy.RawClient.concat;
import static io.pgmux.proxy.RawClient.executeFrame;
import static io.pgmux.proxy.RawClient.firstColumns;
import static io.pgmux.proxy.RawClient.parseFrame;
import static io.pgmux.proxy.RawClient.queryFrame;
import static io.pgmux.proxy.RawClient.syncFrame;
import static io.pgmux.proxy.RawClient.types;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Named prepared statements bound in runs: Bind, Execute and Sync (or a pipeline of them) arriving in one read are
 * forwarded together, each Bind's statement name replaced by the server's where it lies.
 */
@PostgresTest
class PreparedStatementRunTest {
    private static final String USER = "raw";
    private final TestDatabase db;
    private PgMuxProxy proxy;

    PreparedStatementRunTest(TestDatabase db) {
        this.db = db;
    }

    private RawClient login(int maxPrepared) throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .authType(AuthType.TRUST)
                .users(Map.of(USER, ""))
                .defaultPoolSize(1)
                .maxPreparedStatements(maxPrepared));
        return RawClient.login(proxy, db.name(), USER, "");
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    @Test
    void aRunOfBindExecuteAndSyncRunsTheStatementOnTheServer() throws Exception {
        try (RawClient c = login(200)) {
            prepare(c, "S1", "SELECT 'one'");
            for (int i = 0; i < 3; i++) {
                c.sendRaw(concat(bindFrame("S1"), executeFrame(), syncFrame()));
                List<RawClient.Message> result = c.readUntilReady();
                assertEquals("2DCZ", types(result));
                assertEquals(List.of("one"), firstColumns(result));
            }
        }
    }

    @Test
    void aPipelineOfBindsAnswersEachInItsPlace() throws Exception {
        try (RawClient c = login(200)) {
            prepare(c, "S1", "SELECT 'one'");
            prepare(c, "a much longer statement name than the server's", "SELECT 'two'");
            c.sendRaw(concat(bindFrame("S1"), executeFrame(),
                    bindFrame("a much longer statement name than the server's"), executeFrame(),
                    parseFrame("", "SELECT 'three'"), bindFrame(""), executeFrame(), bindFrame("S1"), executeFrame(),
                    syncFrame()));
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("2DC2DC12DC2DCZ", types(result));
            assertEquals(List.of("one", "two", "three", "one"), firstColumns(result));
        }
    }

    /** The server lost two of the statements (max_prepared_statements 2): each is parsed again before its Bind. */
    @Test
    void statementsTheServerLacksAreParsedBeforeTheirBindsInTheRun() throws Exception {
        try (RawClient c = login(2)) {
            for (int i = 1; i <= 3; i++) {
                prepare(c, "S" + i, "SELECT " + i);
            }
            c.sendRaw(concat(bindFrame("S3"), executeFrame(), bindFrame("S1"), executeFrame(), bindFrame("S2"),
                    executeFrame(), syncFrame()));
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("2DC2DC2DCZ", types(result));
            assertEquals(List.of("3", "1", "2"), firstColumns(result));
        }
    }

    @Test
    void aRunBindingAnUnknownNameGetsPostgresqlsNonFatalError() throws Exception {
        try (RawClient c = login(200)) {
            prepare(c, "S1", "SELECT 'one'");
            c.sendRaw(concat(bindFrame("S1"), executeFrame(), bindFrame("unknown"), executeFrame(), syncFrame()));
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("2DCEZ", types(result));
            assertEquals("26000", result.stream().filter(m -> m.type() == 'E').findFirst().orElseThrow().field('C'));
            c.sendRaw(concat(bindFrame("S1"), executeFrame(), syncFrame()));
            assertEquals(List.of("one"), firstColumns(c.readUntilReady()));
        }
    }

    /** Names are compared by their bytes, as PostgreSQL compares them. */
    @Test
    void aNameDifferingOnlyInTheCaseOfANonAsciiLetterIsAnotherStatement() throws Exception {
        try (RawClient c = login(200)) {
            prepare(c, "état", "SELECT 'lower'");
            prepare(c, "État", "SELECT 'upper'");
            c.sendRaw(concat(bindFrame("État"), executeFrame(), bindFrame("état"), executeFrame(), syncFrame()));
            assertEquals(List.of("upper", "lower"), firstColumns(c.readUntilReady()));
        }
    }

    @Test
    void aRunThatParsesANamedStatementAndBindsItPreparesItFirst() throws Exception {
        try (RawClient c = login(200)) {
            c.sendRaw(concat(parseFrame("S1", "SELECT 'one'"), bindFrame("S1"), executeFrame(), bindFrame("S1"),
                    executeFrame(), syncFrame()));
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals("12DC2DCZ", types(result));
            assertEquals(List.of("one", "one"), firstColumns(result));
        }
    }

    /**
     * A run binding a statement its server has, whose Execute fails, then a Query and a Parse the pooler answers,
     * all in one read: the error ends the run's batch alone, and the pooler's ParseComplete comes after the
     * Query's ReadyForQuery.
     */
    @Test
    void aFailingRunPipelinedAheadOfAQueryAndAnAnsweredParseLeavesEachAnswerInItsPlace() throws Exception {
        try (RawClient c = login(200)) {
            prepare(c, "BAD", "SELECT 1 / (random() * 0)::int");
            c.sendRaw(concat(bindFrame("BAD"), executeFrame(), syncFrame(), queryFrame("SELECT 'query'"),
                    parseFrame("AGAIN", "SELECT 1 / (random() * 0)::int"), syncFrame()));
            List<RawClient.Message> failed = c.readUntilReady();
            assertEquals("2EZ", types(failed));
            assertEquals("22012", failed.get(1).field('C'));
            List<RawClient.Message> query = c.readUntilReady();
            assertEquals("TDCZ", types(query));
            assertEquals(List.of("query"), firstColumns(query));
            assertEquals("1Z", types(c.readUntilReady()));
        }
    }

    /** Parse and Sync, one read each: the statement is created. */
    private static void prepare(RawClient c, String name, String sql) throws IOException {
        c.sendRaw(concat(parseFrame(name, sql), syncFrame()));
        assertEquals("1Z", types(c.readUntilReady()));
    }
}
