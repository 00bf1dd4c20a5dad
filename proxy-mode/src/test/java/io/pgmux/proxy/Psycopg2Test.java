package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.PinReason;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * psycopg2 (Debian's python3-psycopg2) through the proxy: src/test/python/psycopg2_client.py. It binds parameters
 * on the client and sends every statement as a simple Query.
 */
@PostgresTest
class Psycopg2Test extends LibpqClientTest {
    Psycopg2Test(TestDatabase db) {
        super(db, ClientScript.python("psycopg2_client.py", "psycopg2", "python3-psycopg2"));
    }

    /** A replication connection (issue 23) in every pool mode: its own walsender, whose stream passes through. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void aLogicalReplicationConnectionStreamsAChange(PoolMode mode) {
        assertEquals("change=INSERT a=7", facts(mode, "logical_replication"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void clientSideBindingAndBatchInserts(PoolMode mode) {
        assertEquals("row=42 inserted=100 sum=4950", facts(mode, "client_side_binding"));
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void namedCursorFetchesALargeResultInBatches(PoolMode mode) {
        assertEquals("rows=100000", facts(mode, "server_cursor"));
    }

    /** DECLARE … WITH HOLD, then each FETCH in a transaction of its own: the client keeps the cursor's server. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void heldNamedCursorFetchesAcrossTransactions(PoolMode mode) {
        assertEquals("rows=5", facts(mode, "held_cursor"));
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

    /** psycopg2 sends a LISTEN alone as a simple Query: the pool's listener hub answers it and the client is never pinned. */
    @Test
    void aListenerInTransactionModeIsServedByTheListenerHubWithoutBeingPinned() {
        assertEquals("channel=pgmux_channel payload=hello", facts(PoolMode.TRANSACTION, "notify"));
        assertEquals(0, pinCounts(PoolMode.TRANSACTION).pinsTotal(PinReason.LISTEN));
    }
}
