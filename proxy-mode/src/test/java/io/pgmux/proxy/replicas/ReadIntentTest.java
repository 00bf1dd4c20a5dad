package io.pgmux.proxy.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What read routing reads as a transaction declared read-only before it starts, and what it leaves to the primary. */
class ReadIntentTest {

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN READ ONLY", "begin read only;", "BEGIN TRANSACTION READ ONLY",
            "BEGIN WORK READ ONLY; SELECT 1", "START TRANSACTION READ ONLY", "start   transaction\n\tread  only",
            "BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE",
            "START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY",
            "BEGIN READ ONLY ISOLATION LEVEL READ COMMITTED NOT DEFERRABLE", "BEGIN READ ONLY, ISOLATION LEVEL READ UNCOMMITTED"})
    void aBeginWithReadOnlyAmongItsModesIsARead(String sql) {
        assertEquals(Boolean.TRUE, ReadIntent.declared(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN; SET TRANSACTION READ ONLY", "begin work ;set  transaction\n read only; SELECT 1",
            "START TRANSACTION; SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE"})
    void aBeginFollowedBySetTransactionReadOnlyIsARead(String sql) {
        assertEquals(Boolean.TRUE, ReadIntent.declared(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN READ WRITE", "START TRANSACTION READ ONLY, READ WRITE",
            "BEGIN ISOLATION LEVEL SERIALIZABLE READ WRITE", "BEGIN; SET TRANSACTION READ WRITE"})
    void aBeginReadWriteIsAWrite(String sql) {
        assertEquals(Boolean.FALSE, ReadIntent.declared(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN", "BEGIN;", "SELECT 1", "SET TRANSACTION READ ONLY", "/* x */ BEGIN READ ONLY",
            "-- x\nBEGIN READ ONLY", "BEGIN READ ONLYX", "BEGIN READ ONLY2", "BEGIN READ", "BEGINREAD ONLY",
            "START READ ONLY", "BEGIN ISOLATION LEVEL SNAPSHOT READ ONLY", "BEGIN READ ONLY FOR UPDATE",
            "COMMIT; BEGIN READ ONLY", "BEGIN \"READ\" ONLY", "BEGIN; SELECT 1; SET TRANSACTION READ ONLY",
            "BEGIN; SET TRANSACTION SNAPSHOT '00000003-0000001B-1'", "BEGIN; SET LOCAL default_transaction_read_only = on",
            "BEGIN; /* x */ SET TRANSACTION READ ONLY"})
    void anythingElseDeclaresNothing(String sql) {
        assertNull(ReadIntent.declared(sql), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"on", "ON", "true", "yes", "1", " on "})
    void aDefaultTransactionReadOnlyValueThatIsOn(String value) {
        assertTrue(ReadIntent.on(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"off", "false", "0", "no", "o", ""})
    void aDefaultTransactionReadOnlyValueThatIsNotOn(String value) {
        assertFalse(ReadIntent.on(value));
    }
}
