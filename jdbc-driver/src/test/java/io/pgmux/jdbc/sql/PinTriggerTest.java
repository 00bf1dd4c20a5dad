package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PinTriggerTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private PinReason reason(String sql) {
        return classifier.classify(sql).pinReason();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SET search_path = app",
            "set search_path to app, public",
            "SET SESSION search_path = app",
            "SET TIME ZONE 'UTC'",
            "SET ROLE app_admin",
            "SET SESSION AUTHORIZATION app",
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET application_name = 'batch'",
            "SET NAMES 'UTF8'",
            "SET SCHEMA 'app'",
            "SET statement_timeout = 0",
            "SET transaction_isolation = 'serializable'"
    })
    void sessionSetPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"RESET search_path", "RESET ALL", "RESET ROLE", "RESET SESSION AUTHORIZATION"})
    void resetPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @Test
    void discardAllPinsBecauseItOverwritesAppliedSettings() {
        assertEquals(PinReason.SESSION_SET, reason("DISCARD ALL"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT set_config('search_path', 'app', false)",
            "SELECT set_config('search_path', 'app', FALSE)",
            "SELECT set_config('a.b', 'c', 'f')",
            "SELECT set_config('a.b', 'c', 'false')",
            "SELECT set_config('a.b', 'c', ' Off ')",
            "SELECT set_config('a.b', 'c', 'of')",
            "SELECT set_config('a.b', 'c', 'no')",
            "SELECT set_config('a.b', 'c', 'n')",
            "SELECT set_config('a.b', 'c', '0')",
            "SELECT set_config('a.b', 'c', $$false$$)",
            "SELECT set_config('a.b', 'c', false::boolean)",
            "SELECT set_config('a.b', 'c', 'f'::pg_catalog.bool)",
            "SELECT set_config('a.b', 'c', NULL)",
            "SELECT pg_catalog.set_config('search_path', '', false)",
            "SELECT \"set_config\"('a.b', 'c', false)",
            "SELECT SET_CONFIG('a.b', 'c', false)",
            "SELECT set_config('a.b', upper('c'), false)",
            "SELECT set_config('a.b', (SELECT max(v) FROM t WHERE k IN (1, 2)), false)"
    })
    void setConfigWithFalseThirdArgumentPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT set_config('a.b', 'c', ?)",
            "SELECT set_config('a.b', 'c', $1)",
            "SELECT set_config('a.b', 'c', (true))",
            "SELECT set_config('a.b', 'c', NOT false)",
            "SELECT set_config('a.b', 'c', coalesce(?, true))",
            "SELECT set_config('a.b', 'c', CAST('t' AS boolean))",
            "SELECT set_config('a.b', 'c', is_local) FROM settings",
            "SELECT set_config('a.b', 'c', true OR ?)",
            "SELECT set_config('a.b', 'c', 'maybe')"
    })
    void setConfigWithNonLiteralThirdArgumentPinsConservatively(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @Test
    void setConfigWithoutThirdArgumentPinsConservatively() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT set_config('a.b', 'c')"));
    }

    @Test
    void setConfigNestedInAnotherSetConfigPinsConservatively() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT set_config('a.b', set_config('c.d', 'e', true), true)"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "WITH s AS (SELECT set_config('a.b', 'c', false)) SELECT * FROM s",
            "SELECT * FROM t WHERE EXISTS (SELECT set_config('a.b', 'c', false))",
            "UPDATE t SET v = set_config('a.b', 'c', false)",
            "{? = call set_config(?, ?, false)}"
    })
    void setConfigAnywhereInAStatementPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"LISTEN jobs", "listen \"Mixed Case\""})
    void listenPins(String sql) {
        assertEquals(PinReason.LISTEN, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "PREPARE q AS SELECT 1",
            "PREPARE q (int, text) AS SELECT $1, $2",
            "prepare transaction AS SELECT 1"
    })
    void sqlPreparePins(String sql) {
        assertEquals(PinReason.PREPARED_STATEMENT, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "CREATE TEMP TABLE t (id int)",
            "CREATE TEMPORARY TABLE t AS SELECT 1",
            "CREATE GLOBAL TEMPORARY TABLE t (id int)",
            "CREATE LOCAL TEMP TABLE t (id int)",
            "CREATE TEMP TABLE IF NOT EXISTS t (id int)",
            "CREATE TEMP TABLE t (id int) ON COMMIT DELETE ROWS",
            "CREATE TEMP TABLE t (id int) ON COMMIT PRESERVE ROWS",
            "CREATE TEMP VIEW v AS SELECT 1",
            "CREATE OR REPLACE TEMP VIEW v AS SELECT 1",
            "CREATE TEMP RECURSIVE VIEW v (n) AS SELECT 1",
            "CREATE TEMP SEQUENCE s",
            "CREATE TABLE pg_temp.t (id int)",
            "CREATE FUNCTION pg_temp.f() RETURNS int AS 'SELECT 1' LANGUAGE sql"
    })
    void temporaryObjectsPin(String sql) {
        assertEquals(PinReason.TEMPORARY_OBJECT, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * INTO TEMP t FROM src",
            "SELECT 1 AS a INTO TEMPORARY TABLE t",
            "SELECT 1 AS a INTO LOCAL TEMP t",
            "SELECT * INTO pg_temp.t FROM src",
            "WITH s AS (SELECT 1 AS a) SELECT a INTO TEMP t FROM s"
    })
    void selectIntoTemporaryTablePins(String sql) {
        assertEquals(PinReason.TEMPORARY_OBJECT, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT pg_advisory_lock(42)",
            "SELECT pg_advisory_lock(1, 2)",
            "SELECT pg_advisory_lock_shared(42)",
            "SELECT pg_try_advisory_lock(42)",
            "SELECT pg_try_advisory_lock_shared(42)",
            "SELECT pg_catalog.pg_advisory_lock(42)",
            "SELECT \"pg_advisory_lock\"(42)",
            "select PG_TRY_ADVISORY_LOCK(42)",
            "SELECT pg_advisory_lock /* the job's key */ (42)",
            "SELECT pg_advisory_lock\n  (42)",
            "WITH k AS (SELECT 42 AS id) SELECT pg_advisory_lock(id) FROM k",
            "{? = call pg_try_advisory_lock(?)}",
            "SELECT CASE WHEN pg_try_advisory_lock(hashtext(?)) THEN 1 ELSE 0 END"
    })
    void sessionAdvisoryLocksPin(String sql) {
        assertEquals(PinReason.ADVISORY_LOCK, reason(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DECLARE c CURSOR WITH HOLD FOR SELECT 1",
            "DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT 1",
            "declare c binary insensitive scroll cursor with hold for select 1"
    })
    void cursorWithHoldPins(String sql) {
        assertEquals(PinReason.HOLD_CURSOR, reason(sql));
    }

    @Test
    void loadPins() {
        assertEquals(PinReason.LOAD, reason("LOAD 'auto_explain'"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DO $$BEGIN PERFORM pg_advisory_lock(1); END$$",
            "DO $body$ DECLARE ok boolean; BEGIN ok := pg_try_advisory_lock(7); END $body$",
            "DO LANGUAGE plpgsql $$ BEGIN PERFORM pg_advisory_lock(1); END $$",
            "DO LANGUAGE 'plpgsql' $$ BEGIN PERFORM pg_advisory_lock(1); END $$",
            "DO $$ BEGIN PERFORM pg_advisory_lock(1); END $$ LANGUAGE plpgsql",
            "DO 'BEGIN PERFORM pg_advisory_lock(1); END'"
    })
    void doBodyTakingSessionAdvisoryLockPins(String sql) {
        assertEquals(PinReason.ADVISORY_LOCK, reason(sql));
    }

    @Test
    void doBodyWithSetConfigFalsePinsAsSessionSet() {
        assertEquals(PinReason.SESSION_SET,
                reason("DO $$ BEGIN PERFORM set_config('search_path', 'app', false); END $$"));
    }

    @Test
    void doBodyWithSetStatementPins() {
        assertEquals(PinReason.SESSION_SET, reason("DO $$ BEGIN SET search_path = app; END $$"));
    }

    @Test
    void doBodyStatementAfterThenPins() {
        assertEquals(PinReason.SESSION_SET,
                reason("DO $$ BEGIN IF now() > '2020-01-01' THEN RESET search_path; END IF; END $$"));
    }

    @Test
    void doBodyCreatingTemporaryTablePins() {
        assertEquals(PinReason.TEMPORARY_OBJECT, reason("DO $$ BEGIN CREATE TEMP TABLE t (id int); END $$"));
    }

    @Test
    void doBodyInSingleQuotesIsScanned() {
        assertEquals(PinReason.SESSION_SET, reason("DO 'BEGIN PERFORM set_config(''a.b'', ''c'', false); END'"));
    }
}
