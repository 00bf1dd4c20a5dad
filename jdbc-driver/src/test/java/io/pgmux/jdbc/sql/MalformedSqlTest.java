package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MalformedSqlTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private PinReason reason(String sql) {
        return classifier.classify(sql).pinReason();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\n\t", ";", "-- only a comment", "/* */", "/* unterminated", "()"})
    void textWithoutStatementsIsPlain(String sql) {
        assertSame(Classification.PLAIN, classifier.classify(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'abc; SET search_path = x",
            "SELECT E'abc\\'; SET search_path = x",
            "SELECT E'abc\\",
            "SELECT \"abc; SET search_path = x",
            "SELECT $$abc; SET search_path = x",
            "SELECT $tag$abc; SET search_path = x $$",
            "SELECT 1 /* a /* b */ SET search_path = x",
            "SELECT 1 -- SET search_path = x",
            "SELECT $", "SELECT $a", "SELECT $1$", "E'", "\"", "$$", "'", "U&'"
    })
    void unterminatedTokensRunToTheEndWithoutThrowing(String sql) {
        assertNull(reason(sql));
    }

    @Test
    void triggerBeforeAnUnterminatedLiteralStillPins() {
        assertEquals(PinReason.SESSION_SET, reason("SET search_path = x; SELECT 'abc"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT set_config('a.b', 'c'",
            "SELECT set_config('a.b', 'c', tr",
            "SELECT set_config('a.b', 'c', 'true",
            "SELECT set_config('a.b', 'c', true",
            "SELECT set_config(",
            "SELECT set_config('a.b', 'c', true; SELECT 1"
    })
    void setConfigCutOffPins(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @Test
    void advisoryLockCallCutOffPins() {
        assertEquals(PinReason.ADVISORY_LOCK, reason("SELECT pg_advisory_lock("));
    }

    @Test
    void unterminatedDoBodyIsStillScanned() {
        assertEquals(PinReason.ADVISORY_LOCK, reason("DO $$ BEGIN PERFORM pg_advisory_lock(1);"));
    }

    @Test
    void nullTextIsRejected() {
        assertThrows(NullPointerException.class, () -> classifier.classify(null));
    }

    @Test
    void arbitraryTextNeverThrows() {
        String alphabet = "SETsetLOCAL lock()$'\"E-*/;,.:?_1\\\n{}pg_advisory_lockset_config DO BEGIN END CREATE TEMP";
        Random random = new Random(20240611);
        SqlClassifier uncached = new SqlClassifier(0, 0);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sql = new StringBuilder();
            int length = random.nextInt(60);
            for (int j = 0; j < length; j++) {
                sql.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String text = sql.toString();
            assertDoesNotThrow(() -> uncached.classify(text), text);
        }
    }
}
