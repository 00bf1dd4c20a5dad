package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PinReasonTest {
    @Test
    void everyReasonHasItsOwnBitInAnIntSet() {
        int all = 0;
        for (PinReason reason : PinReason.values()) {
            assertEquals(0, all & reason.bit(), reason.name());
            all |= reason.bit();
        }
        assertEquals(PinReason.values().length, Integer.bitCount(all));
    }
}
