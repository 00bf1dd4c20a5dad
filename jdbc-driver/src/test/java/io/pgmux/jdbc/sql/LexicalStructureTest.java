package io.pgmux.jdbc.sql;

import io.pgmux.core.pool.PinReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Trigger words count only as tokens of SQL: never inside literals, quoted identifiers or comments. */
class LexicalStructureTest {

    private final SqlClassifier classifier = new SqlClassifier();

    private PinReason reason(String sql) {
        return classifier.classify(sql).pinReason();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'SET search_path = x'",
            "SELECT 'x'; SELECT 'pg_advisory_lock(1)'",
            "SELECT 'it''s; SET search_path = x; --'",
            "SELECT N'LISTEN x', B'1010', X'1F', U&'d\\0061t; RESET ALL'"
    })
    void stringLiteralsHideTriggers(String sql) {
        assertNull(reason(sql));
    }

    @Test
    void escapeStringBackslashQuoteDoesNotEndTheLiteral() {
        assertNull(reason("SELECT E'it\\'s; SET search_path = x'"));
    }

    @Test
    void standardStringBackslashIsAnOrdinaryCharacter() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT 'C:\\'; SET search_path = x"));
    }

    @Test
    void escapeStringDoubledQuoteDoesNotEndTheLiteral() {
        assertNull(reason("SELECT e'it''s; LISTEN x'"));
    }

    @Test
    void lineCommentHidesTriggersUntilEndOfLine() {
        assertNull(reason("SELECT 1 -- ; SET search_path = x"));
    }

    @Test
    void lineCommentEndsAtNewline() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT 1 -- note\n; SET search_path = x"));
    }

    @Test
    void lineCommentEndsAtCarriageReturn() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT 1 -- note\r; SET search_path = x"));
    }

    @Test
    void blockCommentHidesTriggers() {
        assertNull(reason("SELECT 1 /* ; SET search_path = x; SELECT pg_advisory_lock(1) */"));
    }

    @Test
    void blockCommentsNest() {
        assertNull(reason("SELECT 1 /* outer /* inner */ ; SET search_path = x */"));
    }

    @Test
    void commentBetweenTokensSeparatesThem() {
        assertEquals(PinReason.SESSION_SET, reason("SET/**/search_path = x"));
    }

    @Test
    void commentStartInsideOperatorCharactersStillStartsAComment() {
        assertNull(reason("SELECT 2*--; SET search_path = x\n3"));
    }

    @Test
    void dollarQuotedStringHidesTriggers() {
        assertNull(reason("SELECT $$; SET search_path = x; SELECT pg_advisory_lock(1)$$"));
    }

    @Test
    void taggedDollarQuoteEndsOnlyAtItsOwnTag() {
        assertNull(reason("SELECT $body$ $$ ; SET search_path = x $$ $body$"));
    }

    @Test
    void dollarQuoteTagsAreCaseSensitive() {
        assertNull(reason("SELECT $a$ ; SET search_path = x $A$ ; $a$"));
    }

    @Test
    void textAfterDollarQuoteIsScanned() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT $q$ x $q$; SET search_path = x"));
    }

    @Test
    void positionalParameterIsNotADollarQuote() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT * FROM t WHERE a = $1; SET search_path = x; SELECT $2"));
    }

    @Test
    void dollarInsideIdentifierIsNotADollarQuote() {
        assertEquals(PinReason.SESSION_SET, reason("SELECT a$b$ FROM t; SET search_path = x"));
    }

    @Test
    void quotedIdentifierHidesTriggers() {
        assertNull(reason("SELECT \"SET x; LISTEN y\" FROM t"));
    }

    @Test
    void quotedIdentifierDoubledQuoteDoesNotEndIt() {
        assertNull(reason("SELECT \"a\"\"b; SET search_path = x\" FROM t"));
    }

    @Test
    void quotedKeywordIsAnIdentifierNotAKeyword() {
        assertEquals(PinReason.SESSION_SET, reason("SET \"local\" = 1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sEt SeArCh_PaTh = x", "SET SEARCH_PATH = x", "Set Session Search_Path = x"})
    void keywordsAreCaseInsensitive(String sql) {
        assertEquals(PinReason.SESSION_SET, reason(sql));
    }

    @Test
    void setLocalIsRecognisedInAnyCase() {
        assertNull(reason("sEt LoCaL search_path = x"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT ?, ?", "{call my_proc(?, ?)}", "SELECT {fn ucase('set')}", "SELECT {fn now()}",
            "SELECT a ?? b FROM t", "SELECT '{\"a\": 1}'::jsonb ? 'a'"})
    void jdbcPlaceholdersAndEscapesAreLeftAlone(String sql) {
        assertNull(reason(sql));
    }

    @Test
    void leadingWhitespaceAndParenthesesAreSkipped() {
        assertEquals(PinReason.ADVISORY_LOCK, reason("  \n\t( ( SELECT pg_advisory_lock(1) ) )"));
    }

    @Test
    void leadingCommentIsSkipped() {
        assertEquals(PinReason.SESSION_SET, reason("/* app: checkout */ -- traced\nSET search_path = x"));
    }

    @Test
    void commonTableExpressionDoesNotHideCalls() {
        assertEquals(PinReason.ADVISORY_LOCK, reason("WITH x AS (SELECT 1 AS id) SELECT pg_advisory_lock(id) FROM x"));
    }

    @Test
    void nonAsciiIdentifiersAreNamesNotKeywords() {
        assertNull(reason("SELECT sét FROM t; SELECT * FROM \u0441et"));
    }
}
