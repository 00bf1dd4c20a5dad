package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Generated texts: each known statement, its keywords in random case, its tokens separated by random
 * whitespace and comments (which themselves hold trigger words), surrounded by harmless statements
 * and sometimes by a transaction block. The classification must depend on the statement alone.
 */
class ClassificationStabilityPropertyTest {

    private static final long SEED = 0x5eed_c1a55L;
    private static final int ITERATIONS = 4000;

    private record Sample(PinReason expected, String... tokens) {
    }

    private static final List<Sample> SAMPLES = List.of(
            new Sample(PinReason.SESSION_SET, "SET", "search_path", "=", "app", ",", "public"),
            new Sample(PinReason.SESSION_SET, "SET", "SESSION", "AUTHORIZATION", "DEFAULT"),
            new Sample(PinReason.SESSION_SET, "SET", "ROLE", "reporting"),
            new Sample(PinReason.SESSION_SET, "RESET", "ALL"),
            new Sample(PinReason.SESSION_SET, "DISCARD", "ALL"),
            new Sample(PinReason.SESSION_SET, "SELECT", "set_config", "(", "'a.b'", ",", "'c'", ",", "false", ")"),
            new Sample(PinReason.SESSION_SET, "SELECT", "pg_catalog", ".", "set_config", "(", "'a.b'", ",", "?", ",",
                    "'off'", "::", "bool", ")"),
            new Sample(PinReason.LISTEN, "LISTEN", "jobs"),
            new Sample(PinReason.PREPARED_STATEMENT, "PREPARE", "q", "(", "int", ")", "AS", "SELECT", "$1"),
            new Sample(PinReason.TEMPORARY_OBJECT, "CREATE", "TEMP", "TABLE", "t", "(", "id", "int", ")"),
            new Sample(PinReason.TEMPORARY_OBJECT, "CREATE", "GLOBAL", "TEMPORARY", "TABLE", "t", "(", "id", "int", ")",
                    "ON", "COMMIT", "PRESERVE", "ROWS"),
            new Sample(PinReason.TEMPORARY_OBJECT, "SELECT", "*", "INTO", "TEMP", "t", "FROM", "src"),
            new Sample(PinReason.ADVISORY_LOCK, "SELECT", "pg_advisory_lock", "(", "42", ")"),
            new Sample(PinReason.ADVISORY_LOCK, "WITH", "k", "AS", "(", "SELECT", "1", "AS", "id", ")", "SELECT",
                    "pg_try_advisory_lock_shared", "(", "id", ",", "2", ")", "FROM", "k"),
            new Sample(PinReason.ADVISORY_LOCK, "SELECT", "\"pg_try_advisory_lock\"", "(", "?", ")"),
            new Sample(PinReason.HOLD_CURSOR, "DECLARE", "c", "NO", "SCROLL", "CURSOR", "WITH", "HOLD", "FOR",
                    "SELECT", "1"),
            new Sample(PinReason.LOAD, "LOAD", "'auto_explain'"),
            new Sample(PinReason.ADVISORY_LOCK, "DO", "$$ BEGIN PERFORM pg_advisory_lock(1); END $$"),
            new Sample(null, "SET", "LOCAL", "search_path", "=", "app"),
            new Sample(null, "SET", "TRANSACTION", "ISOLATION", "LEVEL", "SERIALIZABLE"),
            new Sample(null, "SELECT", "set_config", "(", "'a.b'", ",", "'c'", ",", "true", ")"),
            new Sample(null, "SELECT", "pg_advisory_xact_lock", "(", "42", ")"),
            new Sample(null, "CREATE", "TEMP", "TABLE", "t", "(", "id", "int", ")", "ON", "COMMIT", "DROP"),
            new Sample(null, "DECLARE", "c", "CURSOR", "FOR", "SELECT", "1"),
            new Sample(null, "UNLISTEN", "*"),
            new Sample(null, "DISCARD", "PLANS"),
            new Sample(null, "SELECT", "settings", ",", "reset_val", "FROM", "pg_settings"),
            new Sample(null, "INSERT", "INTO", "temp", "VALUES", "(", "1", ")"),
            new Sample(null, "SELECT", "'SET search_path = x'", ",", "\"LISTEN\"", "FROM", "t"));

    private static final String[] SEPARATORS = {
            " ", "  ", "\n", "\t", "\r\n", " /* SET search_path = x; LISTEN y */ ",
            "/* nested /* pg_advisory_lock(1) */ still comment; RESET ALL */", " -- LOAD 'x'; CREATE TEMP TABLE t\n",
            "\n-- DECLARE c CURSOR WITH HOLD FOR\n  "
    };

    private static final String[] HARMLESS = {
            "SELECT 1", "SELECT 'RESET ALL'", "SELECT \"LISTEN\" FROM t", "UPDATE t SET a = 1",
            "SELECT $x$ SET y; $x$", "SELECT pg_advisory_unlock(1)", "SET LOCAL work_mem = '64MB'"
    };

    @Test
    void classificationDependsOnlyOnTheStatementNotOnCaseSpacingCommentsOrNeighbours() {
        Random random = new Random(SEED);
        SqlClassifier cached = new SqlClassifier();
        SqlClassifier uncached = new SqlClassifier(0, 0);
        for (int i = 0; i < ITERATIONS; i++) {
            Sample sample = SAMPLES.get(random.nextInt(SAMPLES.size()));
            boolean transactionBlock = random.nextInt(4) == 0;
            String sql = text(sample, transactionBlock, random);

            Classification c = cached.classify(sql);
            assertEquals(sample.expected(), c.pinReason(), sql);
            assertEquals(transactionBlock, c.startsTransaction(), sql);
            assertEquals(transactionBlock, c.endsTransaction(), sql);
            assertEquals(c, uncached.classify(sql), sql);
            assertSame(c, cached.classify(sql), sql);
        }
    }

    private static String text(Sample sample, boolean transactionBlock, Random random) {
        StringBuilder sql = new StringBuilder();
        separator(sql, random);
        if (transactionBlock) {
            keyword(sql, random.nextBoolean() ? "BEGIN" : "START TRANSACTION", random);
            sql.append(';');
        }
        for (int n = random.nextInt(3); n > 0; n--) {
            sql.append(HARMLESS[random.nextInt(HARMLESS.length)]).append(';');
            separator(sql, random);
        }
        for (String token : sample.tokens()) {
            separator(sql, random);
            keyword(sql, token, random);
        }
        separator(sql, random);
        for (int n = random.nextInt(3); n > 0; n--) {
            sql.append(';');
            separator(sql, random);
            sql.append(HARMLESS[random.nextInt(HARMLESS.length)]);
        }
        if (transactionBlock) {
            sql.append(';');
            separator(sql, random);
            keyword(sql, random.nextBoolean() ? "COMMIT" : "END", random);
        }
        if (random.nextBoolean()) {
            sql.append(';');
        }
        separator(sql, random);
        return sql.toString();
    }

    private static void separator(StringBuilder sql, Random random) {
        sql.append(SEPARATORS[random.nextInt(SEPARATORS.length)]);
    }

    /** Unquoted words in random case; literals, quoted names and bodies exactly as written. */
    private static void keyword(StringBuilder sql, String token, Random random) {
        char first = token.charAt(0);
        if (first == '\'' || first == '"' || first == '$') {
            sql.append(token);
            return;
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            sql.append(random.nextBoolean() ? Character.toUpperCase(c) : Character.toLowerCase(c));
        }
    }
}
