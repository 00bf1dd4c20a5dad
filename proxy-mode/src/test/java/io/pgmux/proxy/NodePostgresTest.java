package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.PinReason;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * node-postgres (npm pg, pinned in src/test/node/package.json) through the proxy: src/test/node/client.js. It
 * sends parameterised queries as Parse/Bind/Execute of the unnamed statement, and a query with a name as a named
 * statement parsed once per connection.
 */
@PostgresTest
class NodePostgresTest extends RealClientTest {
    NodePostgresTest(TestDatabase db) {
        super(db, ClientScript.node("client.js", "pg"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void parameterisedQueriesUseTheUnnamedStatement(PoolMode mode) {
        assertEquals("row=42 inserted=100 sum=4950", facts(mode, "parameterised"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void syntaxErrorInTheExtendedProtocolReports42601(PoolMode mode) {
        assertEquals("sqlstate=42601 after=1", facts(mode, "syntax_error_extended"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void namedStatementsRunOnWhicheverServerTheClientGets(PoolMode mode) {
        assertEquals("results=15 last=28 text=named", facts(mode, "named"));
    }

    /** The Parse failed, so the name was never created: pg parses it again, which must not be 42P05. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void namedQueryRetriedAfterItsTableIsCreatedRuns(PoolMode mode) {
        assertEquals("first=42P01 then=0", facts(mode, "named_after_error"));
    }

    /** application_name, statement_timeout and options -c search_path=… hold on every server connection. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void startupParametersHoldOnEveryServerConnection(PoolMode mode) {
        assertEquals("application_name=node app statement_timeout=500ms current_schema=public timeout=57014",
                facts(mode, "startup_parameters"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void poolRunsQueriesAndTransactions(PoolMode mode) {
        assertEquals("queries=10 ids=2", facts(mode, "pool"));
    }

    @Test
    void statementModeRefusesATransactionBlockWithPgBouncersError() {
        assertEquals("after=1 error=08P01 transaction blocks not allowed in statement pooling mode",
                facts(PoolMode.STATEMENT, "transaction_refused"));
    }

    /** pg sends a LISTEN alone as a simple Query: the pool's listener hub answers it and the client is never pinned. */
    @Test
    void aListenerInTransactionModeIsServedByTheListenerHubWithoutBeingPinned() {
        assertEquals("channel=pgmux_channel payload=hello", facts(PoolMode.TRANSACTION, "notify"));
        assertEquals(0, pinCounts(PoolMode.TRANSACTION).pinsTotal(PinReason.LISTEN));
    }
}
