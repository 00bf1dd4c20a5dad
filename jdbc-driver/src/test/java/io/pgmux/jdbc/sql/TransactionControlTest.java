package io.pgmux.jdbc.sql;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransactionControlTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private Classification classify(String sql) {
        return classifier.classify(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "BEGIN", "begin;", "BEGIN WORK", "BEGIN TRANSACTION", "BEGIN ISOLATION LEVEL SERIALIZABLE",
            "BEGIN READ ONLY", "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE, NOT DEFERRABLE",
            "START TRANSACTION", "start transaction isolation level read committed"
    })
    void beginStartsATransaction(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.BEGIN, c.transactionControl());
        assertTrue(c.startsTransaction());
        assertFalse(c.endsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"COMMIT", "COMMIT WORK", "COMMIT TRANSACTION", "END", "END TRANSACTION", "commit;",
            "COMMIT AND NO CHAIN"})
    void commitEndsATransaction(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.COMMIT, c.transactionControl());
        assertTrue(c.endsTransaction());
        assertFalse(c.startsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ROLLBACK", "ROLLBACK WORK", "ROLLBACK TRANSACTION", "ABORT", "ABORT TRANSACTION",
            "ROLLBACK AND NO CHAIN"})
    void rollbackEndsATransaction(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.ROLLBACK, c.transactionControl());
        assertTrue(c.endsTransaction());
        assertFalse(c.startsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"COMMIT AND CHAIN", "COMMIT WORK AND CHAIN", "END AND CHAIN"})
    void commitAndChainEndsAndStartsATransaction(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.COMMIT_AND_CHAIN, c.transactionControl());
        assertTrue(c.endsTransaction());
        assertTrue(c.startsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ROLLBACK AND CHAIN", "ABORT TRANSACTION AND CHAIN"})
    void rollbackAndChainEndsAndStartsATransaction(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.ROLLBACK_AND_CHAIN, c.transactionControl());
        assertTrue(c.endsTransaction());
        assertTrue(c.startsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ROLLBACK TO SAVEPOINT s1", "ROLLBACK TO s1", "ROLLBACK WORK TO SAVEPOINT s1",
            "rollback transaction to s1"})
    void rollbackToSavepointDoesNotEndTheTransaction(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.ROLLBACK_TO_SAVEPOINT, c.transactionControl());
        assertFalse(c.endsTransaction());
        assertFalse(c.startsTransaction());
        assertTrue(c.isTransactionControl());
    }

    @Test
    void savepointIsTransactionControlThatStartsNothing() {
        Classification c = classify("SAVEPOINT s1");
        assertEquals(TransactionControl.SAVEPOINT, c.transactionControl());
        assertFalse(c.startsTransaction());
        assertFalse(c.endsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"RELEASE SAVEPOINT s1", "RELEASE s1"})
    void releaseIsTransactionControlThatEndsNothing(String sql) {
        Classification c = classify(sql);
        assertEquals(TransactionControl.RELEASE_SAVEPOINT, c.transactionControl());
        assertFalse(c.startsTransaction());
        assertFalse(c.endsTransaction());
    }

    @Test
    void prepareTransactionEndsTheSessionsTransaction() {
        Classification c = classify("PREPARE TRANSACTION 'order-42'");
        assertEquals(TransactionControl.PREPARE_TRANSACTION, c.transactionControl());
        assertTrue(c.endsTransaction());
        assertNull(c.pinReason());
    }

    @ParameterizedTest
    @ValueSource(strings = {"COMMIT PREPARED 'order-42'", "ROLLBACK PREPARED 'order-42'"})
    void finishingAPreparedTransactionIsNotTransactionControl(String sql) {
        Classification c = classify(sql);
        assertFalse(c.isTransactionControl());
        assertFalse(c.endsTransaction());
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "SELECT \"begin\", \"end\" FROM t", "START REPLICATION SLOT s",
            "SELECT CASE WHEN a THEN 1 END FROM t", "UPDATE t SET state = 'COMMIT'"})
    void ordinaryStatementsAreNotTransactionControl(String sql) {
        Classification c = classify(sql);
        assertFalse(c.isTransactionControl());
        assertFalse(c.startsTransaction());
        assertFalse(c.endsTransaction());
    }

    @Test
    void transactionControlDoesNotPin() {
        assertNull(classify("BEGIN; SAVEPOINT a; RELEASE a; ROLLBACK TO a; COMMIT").pinReason());
    }

    @Test
    void transactionControlInsideDoBodyIsNotReported() {
        assertFalse(classify("DO $$ BEGIN INSERT INTO t VALUES (1); COMMIT; END $$").isTransactionControl());
    }

    @Test
    void beginAtomicRoutineBodyIsNotTransactionControl() {
        Classification c = classify(
                "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END");
        assertFalse(c.isTransactionControl());
    }

    @Test
    void statementAfterBeginAtomicRoutineIsClassified() {
        Classification c = classify("CREATE OR REPLACE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC "
                + "SELECT CASE WHEN true THEN 1 ELSE 2 END; INSERT INTO t VALUES (1); END; COMMIT");
        assertEquals(TransactionControl.COMMIT, c.transactionControl());
    }
}
