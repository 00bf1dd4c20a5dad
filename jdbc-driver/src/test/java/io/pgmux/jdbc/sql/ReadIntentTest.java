package io.pgmux.jdbc.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which statements declare read-only intent for read routing, and which are left to the primary. */
class ReadIntentTest {

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN READ ONLY", "begin read only;", "BEGIN TRANSACTION READ ONLY",
            "Begin Work Read Only", "START TRANSACTION READ ONLY",
            "start transaction isolation level repeatable read, read only",
            "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE",
            "BEGIN READ ONLY, ISOLATION LEVEL READ COMMITTED", "/* hint */ BEGIN -- c\n READ ONLY"})
    void aTransactionOpenedReadOnlyIsARead(String sql) {
        assertEquals(ReadIntent.READ_ONLY_TRANSACTION, ReadIntent.of(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"BEGIN", "BEGIN READ WRITE", "START TRANSACTION", "BEGIN READ ONLY READ WRITE",
            "BEGIN ISOLATION LEVEL SERIALIZABLE", "SET TRANSACTION READ WRITE", "BEGIN READ", "BEGIN ONLY",
            "BEGIN READ ONLY; INSERT INTO t VALUES (1)", "SET LOCAL default_transaction_read_only = on",
            "SET default_transaction_read_only = maybe", "SET \"default_transaction_read_only\" = on",
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY",
            "SELECT 1", "SET default_transaction_read_only = E'on'", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET TRANSACTION SNAPSHOT '00000003-0000001B-1'", "SET TRANSACTION READ ONLY READ WRITE"})
    void anythingElseDeclaresNothing(String sql) {
        assertEquals(ReadIntent.NONE, ReadIntent.of(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET TRANSACTION READ ONLY", "set transaction read only;", "Set  Transaction\n Read Only",
            "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE",
            "SET TRANSACTION READ ONLY NOT DEFERRABLE"})
    void theCurrentTransactionMadeReadOnly(String sql) {
        assertEquals(ReadIntent.READ_ONLY_THIS_TRANSACTION, ReadIntent.of(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET TRANSACTION READ ONLY", "  set\ttransaction read only", "SET x = 1"})
    void aSetIsRecognisedWithoutLexing(String sql) {
        assertTrue(ReadIntent.startsWithSet(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "SETTLE", "set", "/* c */ SET TRANSACTION READ ONLY", ""})
    void anythingElseIsNotASet(String sql) {
        assertFalse(ReadIntent.startsWithSet(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET default_transaction_read_only = on", "set default_transaction_read_only to true",
            "SET SESSION default_transaction_read_only = 'on'", "SET default_transaction_read_only = 1",
            "SET default_transaction_read_only TO yes;", "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"})
    void aSessionMadeReadOnly(String sql) {
        assertEquals(ReadIntent.READ_ONLY_SESSION, ReadIntent.of(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET default_transaction_read_only = off", "SET default_transaction_read_only TO false",
            "SET default_transaction_read_only = '0'", "set session characteristics as transaction read write"})
    void aSessionMadeReadWrite(String sql) {
        assertEquals(ReadIntent.READ_WRITE_SESSION, ReadIntent.of(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"RESET default_transaction_read_only", "SET default_transaction_read_only TO DEFAULT"})
    void aSessionBackToItsDefault(String sql) {
        assertEquals(ReadIntent.DEFAULT_SESSION, ReadIntent.of(sql));
    }
}
