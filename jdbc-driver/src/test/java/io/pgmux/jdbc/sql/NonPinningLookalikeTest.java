package io.pgmux.jdbc.sql;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertNull;

class NonPinningLookalikeTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private void assertDoesNotPin(String sql) {
        assertNull(classifier.classify(sql).pinReason(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SET LOCAL search_path = app",
            "set local statement_timeout = '5s'",
            "SET LOCAL ROLE app_admin",
            "SET LOCAL SESSION AUTHORIZATION app"
    })
    void setLocalDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET TRANSACTION READ ONLY",
            "SET TRANSACTION SNAPSHOT '00000003-0000001B-1'"
    })
    void setTransactionDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET CONSTRAINTS ALL DEFERRED", "SET CONSTRAINTS fk_order IMMEDIATE"})
    void setConstraintsDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT set_config('a.b', 'c', true)",
            "SELECT set_config('a.b', 'c', TRUE)",
            "SELECT set_config('a.b', 'c', 't')",
            "SELECT set_config('a.b', 'c', 'tr')",
            "SELECT set_config('a.b', 'c', 'true')",
            "SELECT set_config('a.b', 'c', 'on')",
            "SELECT set_config('a.b', 'c', 'y')",
            "SELECT set_config('a.b', 'c', 'yes')",
            "SELECT set_config('a.b', 'c', '1')",
            "SELECT set_config('a.b', 'c', ' TRUE ')",
            "SELECT set_config('a.b', 'c', true::boolean)",
            "SELECT set_config('a.b', 'c', 'on'::pg_catalog.bool)",
            "SELECT set_config('a.b', upper('c'), true)",
            "SELECT set_config('a.b', (SELECT max(v) FROM t WHERE k IN (1, 2)), true)",
            "SELECT set_config(?, ?, true)"
    })
    void setConfigWithTrueThirdArgumentDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT pg_advisory_xact_lock(1)",
            "SELECT pg_advisory_xact_lock_shared(1)",
            "SELECT pg_try_advisory_xact_lock(1)",
            "SELECT pg_try_advisory_xact_lock_shared(1, 2)",
            "SELECT pg_advisory_unlock(1)",
            "SELECT pg_advisory_unlock_shared(1)",
            "SELECT pg_advisory_unlock_all()"
    })
    void transactionAdvisoryLocksAndUnlocksDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT pg_advisory_lock FROM t",
            "SELECT my_pg_advisory_lock(1)",
            "SELECT pg_advisory_lock_x(1)",
            "SELECT \"PG_ADVISORY_LOCK\"(1)",
            "SELECT set_config_history(1, 2, false)"
    })
    void namesThatAreNotTheSessionFunctionsDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "CREATE TEMP TABLE t (id int) ON COMMIT DROP",
            "CREATE TEMPORARY TABLE t ON COMMIT DROP AS SELECT 1",
            "create global temp table t (id int) on commit drop",
            "CREATE TABLE pg_temp.t (id int) ON COMMIT DROP"
    })
    void temporaryTableDroppedOnCommitDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "CREATE TABLE t (id int)",
            "CREATE UNLOGGED TABLE t (id int)",
            "CREATE VIEW v AS SELECT 1",
            "CREATE TABLE temp (id int)",
            "CREATE TABLE temp_orders (id int)",
            "CREATE SEQUENCE s"
    })
    void permanentObjectsDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "INSERT INTO temp VALUES (1)",
            "INSERT INTO temp (a) SELECT 1",
            "MERGE INTO temp t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE",
            "SELECT * INTO temp FROM src",
            "SELECT * INTO temp.t FROM src",
            "SELECT * INTO orders_copy FROM orders"
    })
    void intoPermanentTablesDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DECLARE c CURSOR FOR SELECT 1",
            "DECLARE c CURSOR WITHOUT HOLD FOR SELECT 1",
            "DECLARE hold CURSOR FOR SELECT 1",
            "DECLARE c CURSOR FOR WITH hold AS (SELECT 1) SELECT * FROM hold"
    })
    void cursorWithoutHoldDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"UNLISTEN jobs", "UNLISTEN *"})
    void unlistenDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NOTIFY jobs", "NOTIFY jobs, 'SET search_path = x'", "SELECT pg_notify('jobs', 'LISTEN')"})
    void notifyDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"EXECUTE q(1)", "DEALLOCATE q", "DEALLOCATE PREPARE q", "DEALLOCATE ALL"})
    void executeAndDeallocateDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"DISCARD PLANS", "DISCARD SEQUENCES", "DISCARD TEMP", "DISCARD TEMPORARY"})
    void discardOtherThanAllDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "UPDATE t SET a = 1",
            "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
            "ALTER ROLE app SET search_path = app",
            "ALTER DATABASE app RESET ALL",
            "ALTER TABLE t ALTER COLUMN c SET DEFAULT 0",
            "ALTER TABLE t RESET (fillfactor)",
            "CREATE FUNCTION f() RETURNS int SET search_path = app AS 'SELECT 1' LANGUAGE sql",
            "ALTER SYSTEM SET work_mem = '64MB'"
    })
    void setAndResetInsideOtherStatementsDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT settings FROM t",
            "SELECT name, setting, reset_val, \"offset\" FROM pg_settings",
            "SELECT listen_addresses FROM config",
            "SELECT reset FROM t",
            "SELECT * FROM settings WHERE \"load\" > 1",
            "SELECT prepared, declare_count FROM t"
    })
    void identifiersContainingTriggerWordsDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "CREATE FUNCTION f() RETURNS void AS $$ BEGIN PERFORM pg_advisory_lock(1); SET search_path = x; END $$ LANGUAGE plpgsql",
            "CREATE OR REPLACE FUNCTION f() RETURNS text AS 'SELECT set_config(''a'', ''b'', false)' LANGUAGE sql",
            "CREATE FUNCTION f() RETURNS boolean LANGUAGE sql RETURN pg_try_advisory_lock(1)",
            "CREATE FUNCTION f() RETURNS boolean LANGUAGE sql BEGIN ATOMIC SELECT pg_advisory_lock(1); SELECT true; END",
            "CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC SELECT set_config('a', 'b', false); END",
            "CREATE VIEW v AS SELECT pg_try_advisory_lock(1)",
            "CREATE RULE r AS ON INSERT TO t DO ALSO SELECT pg_advisory_lock(1)"
    })
    void routineAndViewDefinitionsDoNotRunTheirBodies(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "GRANT EXECUTE ON FUNCTION set_config(text, text, boolean) TO app",
            "REVOKE EXECUTE ON FUNCTION pg_advisory_lock(bigint) FROM PUBLIC",
            "COMMENT ON FUNCTION pg_try_advisory_lock(bigint) IS 'lock'",
            "DROP FUNCTION IF EXISTS set_config(text, text, boolean)"
    })
    void statementsNamingRoutinesDoNotPin(String sql) {
        assertDoesNotPin(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DO $$ BEGIN PERFORM set_config('a.b', 'c', true); PERFORM pg_advisory_xact_lock(1); END $$",
            "DO $$ BEGIN SET LOCAL search_path = app; END $$",
            "DO $$ BEGIN EXECUTE 'SELECT 1'; RAISE NOTICE 'SET x = 1'; END $$",
            "DO $$ DECLARE r record; BEGIN FOR r IN SELECT * FROM t LOOP UPDATE t SET a = 1; END LOOP; END $$"
    })
    void doBodyWithTransactionScopedWorkDoesNotPin(String sql) {
        assertDoesNotPin(sql);
    }
}
