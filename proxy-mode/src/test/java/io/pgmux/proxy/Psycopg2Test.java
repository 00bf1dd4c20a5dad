package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.testing.PostgresTest;
import io.pgmux.core.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * psycopg2 (Debian's python3-psycopg2) through the proxy: src/test/python/psycopg2_client.py. It binds parameters
 * on the client and sends every statement as a simple Query.
 */
@PostgresTest
class Psycopg2Test extends RealClientTest {
    private static final ClientScript SCRIPT = ClientScript.python("psycopg2_client.py", "psycopg2",
            "python3-psycopg2");

    Psycopg2Test(TestDatabase db) {
        super(db);
    }

    @Override
    ClientScript script() {
        return SCRIPT;
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void clientSideBindingAndBatchInserts(PoolMode mode) {
        assertEquals("row=42 inserted=100 sum=4950", facts(mode, "client_side_binding"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void cancelStopsPgSleepWith57014(PoolMode mode) {
        assertEquals("sqlstate=57014 after=1", facts(mode, "cancel"));
    }

    /** copy_expert in and out, a COPY whose source breaks (CopyFail), and one the server refuses for bad data. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void copyInAndOut(PoolMode mode) {
        assertEquals("copied_in=5000 copied_out=5000 bad_data=22P02 count=5000", facts(mode, "copy"));
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void namedCursorFetchesALargeResultInBatches(PoolMode mode) {
        assertEquals("rows=100000", facts(mode, "server_cursor"));
    }

    /**
     * psycopg2 sends BEGIN by itself, gets its CommandComplete, then the FATAL error and the closed connection;
     * libpq reports only the closed connection there, as it does behind PgBouncer.
     */
    @Test
    void statementModeRefusesATransactionBlockByClosingTheConnection() {
        String facts = facts(PoolMode.STATEMENT, "transaction_refused");
        assertTrue(facts.startsWith("after=1 error=server closed the connection unexpectedly"), facts);
    }
}
