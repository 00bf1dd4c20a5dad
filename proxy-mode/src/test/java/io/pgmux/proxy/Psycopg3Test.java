package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** psycopg 3 (Debian's python3-psycopg) through the proxy: src/test/python/psycopg3_client.py. */
@PostgresTest
class Psycopg3Test extends LibpqClientTest {
    Psycopg3Test(TestDatabase db) {
        super(db, ClientScript.python("psycopg3_client.py", "psycopg", "python3-psycopg"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void serverSideBindingSendsTextAndBinaryParameters(PoolMode mode) {
        assertEquals("row=42 binary=42 inserted=100 sum=4950", facts(mode, "server_side_binding"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void syntaxErrorInTheExtendedProtocolReports42601(PoolMode mode) {
        assertEquals("sqlstate=42601 after=1", facts(mode, "syntax_error_extended"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void preparedStatementsRunOnWhicheverServerTheClientGets(PoolMode mode) {
        assertEquals("results=15 last=28 text=named", facts(mode, "prepared"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void streamedResultArrivesRowByRow(PoolMode mode) {
        assertEquals("rows=100000 after=1", facts(mode, "streamed_result"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void pipelineModeRunsBatchesAndReportsTheirErrors(PoolMode mode) {
        assertEquals("results=21 error=22012 after=1", facts(mode, "pipeline"));
    }

    /** psycopg sends BEGIN by itself; libpq reports the FATAL error with the connection it closes. */
    @Test
    void statementModeRefusesATransactionBlockWithPgBouncersError() {
        String facts = facts(PoolMode.STATEMENT, "transaction_refused");
        assertTrue(facts.startsWith("after=1 error=consuming input failed: "
                + "transaction blocks not allowed in statement pooling mode"), facts);
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void asyncConnectionsRunConcurrently(PoolMode mode) {
        assertEquals("connections=10", facts(mode, "async_connections"));
    }
}
