package io.pgmux.jdbc.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgmux.core.pool.PinReason;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pin triggers written so that they do not look like themselves: names spelt with Unicode escapes
 * ({@code U&"..."}, with or without {@code UESCAPE}), statements run under {@code EXPLAIN ANALYZE}, and
 * {@code DO} bodies whose text is escaped or built at run time. The server reads each of them as the
 * plain trigger, so the classifier must too.
 */
class EncodedAndWrappedFormsTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private PinReason reason(String sql) {
        return classifier.classify(sql).pinReason();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT U&\"\\0073et_config\"('app.tenant','x',false)",
            "SELECT u&\"\\0073et_config\"('app.tenant','x',false)",
            "SELECT U&\"\\+000073et_config\"('app.tenant','x',false)",
            "SELECT pg_catalog.U&\"set\\005Fconfig\"('app.tenant','x',false)",
            "SELECT U&\"!0073et_config\" UESCAPE '!' ('app.tenant','x',false)",
            "SELECT U&\"!0073et_config\" /* c */ uescape\n'!'('app.tenant','x',false)",
            "SELECT U&\"\\\\set_config\"('a','b',false); SELECT U&\"\\0073et_config\"('a','b',false)"
    })
    void setConfigSpeltWithUnicodeEscapesPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT U&\"pg_advisory_\\006Cock\"(42)",
            "SELECT U&\"pg_try_advisory_lock_\\0073hared\"(42)",
            "SELECT U&\"pg_advisory_#006Cock\" UESCAPE '#'(42)"
    })
    void advisoryLockSpeltWithUnicodeEscapesPins(String sql) {
        assertEquals(PinReason.ADVISORY_LOCK, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "CREATE TABLE U&\"pg_\\0074emp\".tt(a int)",
            "CREATE TABLE U&\"pg_=0074emp\" UESCAPE '=' .tt(a int)",
            "SELECT 1 INTO U&\"pg_\\0074emp\".tt"
    })
    void temporarySchemaSpeltWithUnicodeEscapesPins(String sql) {
        assertEquals(PinReason.TEMPORARY_OBJECT, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT U&\"\\0053ET_CONFIG\"('a','b',false)",
            "SELECT U&\"set\\005Fconfig_x\"('a','b',false)",
            "SELECT U&'\\0073et_config(''a'',''b'',false)'"
    })
    void unicodeEscapesSpellingAnotherNameDoNotPin(String sql) {
        assertNull(reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1",
            "EXPLAIN ANALYSE VERBOSE CREATE TEMPORARY TABLE t AS SELECT 1",
            "explain (analyze) create temp table t as select 1",
            "EXPLAIN (ANALYZE true, VERBOSE, FORMAT JSON) CREATE TEMP TABLE t AS SELECT 1",
            "EXPLAIN (ANALYZE) CREATE TABLE U&\"pg_\\0074emp\".t AS SELECT 1",
            "EXPLAIN (ANALYZE) CREATE TABLE U&\"pg_!0074emp\" UESCAPE '!'.t AS SELECT 1",
            "EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1; SELECT 2"
    })
    void explainAnalyzeOfCreateTemporaryTablePins(String sql) {
        assertEquals(PinReason.TEMPORARY_OBJECT, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "EXPLAIN ANALYZE SELECT 1",
            "EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET a = 1",
            "EXPLAIN ANALYZE CREATE TEMP TABLE t ON COMMIT DROP AS SELECT 1"
    })
    void explainOfWhatLeavesNoStateDoesNotPin(String sql) {
        assertNull(reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DO E'BEGIN PERFORM \\x73et_config(\\'a.b\\', \\'c\\', false); END'",
            "DO U&'BEGIN PERFORM \\0073et_config(''a.b'', ''c'', false); END'",
            "DO U&'BEGIN PERFORM !0073et_config(''a.b'', ''c'', false); END' UESCAPE '!'",
            "DO 'BEGIN PERFORM set_config(''a.b'', ''c'', false); END'"
    })
    void escapedDoBodySettingASessionSettingPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DO $$ BEGIN EXECUTE 'SE' || 'T app.tenant = ''x'''; END $$",
            "DO $$ DECLARE s text := 'LISTEN x'; BEGIN EXECUTE s; END $$",
            "DO $$ BEGIN IF true THEN EXECUTE format('SELECT %s(1)', 'pg_advisory_lock'); END IF; END $$"
    })
    void doBodyRunningDynamicSqlPins(String sql) {
        assertEquals(PinReason.DYNAMIC_SQL, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DO $$ BEGIN EXECUTE 'SET app.tenant = ''x'''; END $$",
            "DO $$ DECLARE n int; BEGIN EXECUTE 'SELECT set_config(''a.b'', $1, false)' INTO n USING 'x'; END $$"
    })
    void doBodyRunningALiteralCommandStringIsReadAsSql(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }
}
