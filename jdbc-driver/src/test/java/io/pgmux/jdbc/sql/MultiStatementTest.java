package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MultiStatementTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private Classification classify(String sql) {
        return classifier.classify(sql);
    }

    @Test
    void firstPinningStatementGivesTheReason() {
        assertEquals(PinReason.LISTEN, classify("LISTEN jobs; SET search_path = x").pinReason());
    }

    @Test
    void pinAfterPlainStatementsIsFound() {
        assertEquals(PinReason.ADVISORY_LOCK,
                classify("SELECT 1; UPDATE t SET a = 1; SELECT pg_advisory_lock(1); SET search_path = x").pinReason());
    }

    @Test
    void setLocalFollowedBySessionSetPins() {
        assertEquals(PinReason.SESSION_SET,
                classify("SET LOCAL search_path = a; SET search_path = b").pinReason());
    }

    @Test
    void transactionBlockInOneTextStartsAndEnds() {
        Classification c = classify("BEGIN; INSERT INTO t VALUES (1); COMMIT");
        assertTrue(c.startsTransaction());
        assertTrue(c.endsTransaction());
        assertEquals(TransactionControl.COMMIT, c.transactionControl());
    }

    @Test
    void lastTransactionControlStatementIsReported() {
        Classification c = classify("COMMIT; BEGIN; SELECT 1");
        assertEquals(TransactionControl.BEGIN, c.transactionControl());
        assertTrue(c.startsTransaction());
        assertTrue(c.endsTransaction());
    }

    @Test
    void pinInsideTransactionBlockIsReportedWithTheControl() {
        Classification c = classify("BEGIN; SET search_path = x; COMMIT");
        assertEquals(PinReason.SESSION_SET, c.pinReason());
        assertTrue(c.startsTransaction());
        assertTrue(c.endsTransaction());
    }

    @Test
    void emptyStatementsAreSkipped() {
        assertEquals(PinReason.SESSION_SET, classify(";;; ;SET search_path = x;;").pinReason());
    }

    @Test
    void statementsOfPlainTextDoNotPinOrControl() {
        Classification c = classify("SELECT 1; SELECT 2; UPDATE t SET a = 1");
        assertNull(c.pinReason());
        assertFalse(c.isTransactionControl());
    }

    @Test
    void commandReasonPrecedesCallsInTheSameStatement() {
        assertEquals(PinReason.PREPARED_STATEMENT, classify("PREPARE q AS SELECT pg_advisory_lock(1)").pinReason());
        assertEquals(PinReason.TEMPORARY_OBJECT,
                classify("CREATE TEMP TABLE t AS SELECT pg_advisory_lock(1) AS locked").pinReason());
    }

    @Test
    void semicolonInsideParenthesesDoesNotEndTheStatement() {
        assertNull(classify("SELECT (1; SET search_path = x)").pinReason());
    }

    @Test
    void unbalancedClosingParenthesisDoesNotHideLaterStatements() {
        assertEquals(PinReason.SESSION_SET, classify("SELECT 1); SET search_path = x").pinReason());
    }

    @Test
    void onCommitDropAppliesOnlyToItsOwnStatement() {
        assertEquals(PinReason.TEMPORARY_OBJECT,
                classify("CREATE TEMP TABLE a (id int) ON COMMIT DROP; CREATE TEMP TABLE b (id int)").pinReason());
    }

    @Test
    void twoStatementsAreMultiStatement() {
        assertTrue(classify("UPDATE t SET a = 1; SELECT 1").isMultiStatement());
    }

    @Test
    void aTrailingSemicolonOrAnEmptyStatementIsNotASecondStatement() {
        assertFalse(classify("SELECT 1;").isMultiStatement());
        assertFalse(classify("SELECT 1;; ;").isMultiStatement());
        assertFalse(classify("; SELECT 1").isMultiStatement());
    }

    @Test
    void semicolonsInsideLiteralsCommentsAndBodiesDoNotSeparateStatements() {
        assertFalse(classify("SELECT 'a;b'").isMultiStatement());
        assertFalse(classify("SELECT 1 -- ; SELECT 2").isMultiStatement());
        assertFalse(classify("SELECT 1 /* ; */").isMultiStatement());
        assertFalse(classify("DO $$ BEGIN PERFORM 1; PERFORM 2; END $$").isMultiStatement());
        assertFalse(classify("CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $f$ SELECT 1; $f$").isMultiStatement());
        assertFalse(classify("CREATE PROCEDURE p() BEGIN ATOMIC SELECT 1; SELECT 2; END").isMultiStatement());
    }
}
