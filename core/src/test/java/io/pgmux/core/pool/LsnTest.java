package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** WAL positions as PostgreSQL writes them, read into longs that order as the positions do. */
class LsnTest {

    @Test
    void aPositionReadsAsItsTwoHalves() {
        assertEquals(0x16_B374D848L, Lsn.parse("16/B374D848"));
        assertEquals("16/B374D848", Lsn.format(Lsn.parse("16/B374D848")));
    }

    @Test
    void positionsOrderUnsignedAcrossTheSignBit() {
        long high = Lsn.parse("FFFFFFFF/0");
        assertTrue(Lsn.reached(high, Lsn.parse("0/1")));
        assertFalse(Lsn.reached(Lsn.parse("0/1"), high));
        assertEquals(high, Lsn.later(Lsn.parse("0/1"), high));
    }

    @Test
    void noPositionIsZeroWhichEveryPositionHasReached() {
        assertEquals(0, Lsn.parse(null));
        assertTrue(Lsn.reached(Lsn.parse("0/0"), 0));
    }

    @Test
    void textThatIsNoPositionIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Lsn.parse("16"));
        assertThrows(IllegalArgumentException.class, () -> Lsn.parse("1FFFFFFFF/0"));
        assertThrows(IllegalArgumentException.class, () -> Lsn.parse("0/XYZ"));
    }
}
