package io.pgmux.jdbc.sql;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Text that pins nothing yet names session state where the analyzer cannot follow it (a literal a function
 * runs as SQL, a function's own name) asks for the check after its transaction; other text does not.
 */
class SessionStateHintTest {

    private final SqlClassifier classifier = new SqlClassifier();

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT run_sql('CREATE TEMP TABLE t (a int)')",
            "SELECT run_sql('CREATE TEMPORARY TABLE t (a int)')",
            "SELECT run_sql('CREATE TABLE pg_temp.t (a int)')",
            "SELECT take_advisory_lock(1)",
            "SELECT run_sql('SELECT pg_advisory_lock(1)')",
            "SELECT run_sql('LISTEN x')",
            "SELECT run_sql('DECLARE c CURSOR WITH HOLD FOR SELECT 1')",
            "SELECT run_sql('PREPARE p AS SELECT 1')"
    })
    void textNamingHiddenStateIsCheckedAfterItsTransaction(String sql) {
        Classification c = classifier.classify(sql);
        assertFalse(c.pins(), sql);
        assertTrue(c.checksAfter(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'temperature', 'template', 'holder', 'listener', 'prepared'",
            "SELECT on_hold, listen_count, prepare_by FROM orders",
            "SELECT pg_advisory_xact_lock(1)",
            "SELECT 1",
            "CREATE TEMP TABLE t (a int)"
    })
    void otherTextIsNotChecked(String sql) {
        assertFalse(classifier.classify(sql).checksAfter(), sql);
    }
}
