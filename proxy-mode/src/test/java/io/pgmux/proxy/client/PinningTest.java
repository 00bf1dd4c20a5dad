package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgmux.core.pool.PinReason;
import io.pgmux.proxy.config.PinSessionState;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The query-text trigger of pin_session_state, and its refusal's wording. */
class PinningTest {
    private static final Pinning PINNING = new Pinning(PinSessionState.ON, true, new PinCounts(), null, null);

    @ParameterizedTest
    @ValueSource(strings = {"SELECT pg_advisory_lock(1)", "select PG_TRY_ADVISORY_LOCK_SHARED(1, 2)",
            "SELECT pg_advisory_unlock_all()", "CREATE TEMP TABLE t AS SELECT 1", "SELECT 1 INTO TEMPORARY t",
            "CREATE TABLE pg_temp.t (x int)", "create temp view v as select 1",
            "SELECT pg_advisory_xact_lock(1), pg_advisory_lock(2)", "SET search_path = public, pg_temp",
            "SELECT * FROM pg_temp.t", "SELECT pg_advisory_unlock_all"})
    void textThatMayCreateOrDropSessionStateIsATrigger(String sql) {
        assertTrue(PINNING.mentionsSessionState(text(sql)), sql);
        assertTrue(readFromACopy(sql), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "SELECT pg_advisory_xact_lock(1)", "SELECT pg_try_advisory_xact_lock_shared(1)",
            "SELECT * FROM template", "UPDATE t SET temperature = 3", "SELECT attempt FROM tries", "SELECT 'advisory'",
            "SELECT tempo FROM music", "SELECT 1 -- TEMPLATE"})
    void ordinaryTextIsNot(String sql) {
        assertFalse(PINNING.mentionsSessionState(text(sql)), sql);
        assertFalse(readFromACopy(sql), sql);
    }

    /** The quick look reads eight bytes at a time: a word is found wherever it ends, and nothing past the length. */
    @Test
    void theQuickLookFindsTempAndAdvisoryAtEveryAlignmentWithinTheLength() {
        for (String word : new String[] {"temp", "TEMP", "Advisory", "advisory"}) {
            for (int before = 0; before <= 17; before++) {
                for (int after = 0; after <= 17; after++) {
                    byte[] text = ("x".repeat(before) + word + "p".repeat(after)).getBytes(StandardCharsets.US_ASCII);
                    assertTrue(Pinning.mayMention(text, text.length), new String(text, StandardCharsets.US_ASCII));
                    int cut = before + word.length() - 1;
                    assertFalse(Pinning.mayMention(text, cut), "the first " + cut + " bytes of "
                            + new String(text, StandardCharsets.US_ASCII));
                }
            }
        }
    }

    @Test
    void theQuickLookPassesOverTextFullOfItsLastLetters() {
        byte[] text = "SELECT happy, pyp, PY, yep, tem p, advisor y FROM copy".getBytes(StandardCharsets.US_ASCII);
        assertFalse(Pinning.mayMention(text, text.length));
    }

    /** The check as the relay runs it on a Query: over the message's bytes copied once ({@link MessageText}). */
    private static boolean readFromACopy(String sql) {
        ByteBuf text = text(sql);
        try {
            return PINNING.mentionsSessionState(text, 0, text.readableBytes(),
                    MessageText.copy(text, 0, text.readableBytes()));
        } finally {
            text.release();
        }
    }

    @Test
    void theRefusalNamesEachFeatureInThePoolMode() {
        assertEquals("LISTEN is not supported in transaction pooling mode (pin_session_state = error)",
                Pinning.refusal(PinReason.LISTEN.bit(), "transaction"));
        assertEquals("temporary tables, WITH HOLD cursors are not supported in statement pooling mode "
                + "(pin_session_state = error)",
                Pinning.refusal(PinReason.TEMPORARY_OBJECT.bit() | PinReason.HOLD_CURSOR.bit(), "statement"));
    }

    private static ByteBuf text(String sql) {
        return Unpooled.wrappedBuffer(sql.getBytes(StandardCharsets.UTF_8));
    }
}
