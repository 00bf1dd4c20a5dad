package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The periodic collection stays on while collections find something to give back, and an idle process stops
 * collecting once one found nothing allocated since the one before; the C heap is trimmed then, once each time the
 * process turns idle.
 */
class PeriodicCollectionTest {
    private static final long MB = 1 << 20;

    @Test
    void underLoadItStaysOn() {
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> { });
        assertTrue(periodic.observe(10, 20 * MB, 0));
        assertTrue(periodic.observe(10, 60 * MB, 0));
        assertTrue(periodic.observe(11, 15 * MB, 0));
        assertTrue(periodic.observe(11, 50 * MB, 0));
        assertTrue(periodic.observe(12, 16 * MB, 0));
    }

    @Test
    void aCollectionAfterLittleAllocationTurnsItOff() {
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> { });
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 60 * MB, 0);
        periodic.observe(11, 15 * MB, 0);
        assertTrue(periodic.observe(11, 15 * MB + 1000, 0),
                "the collection that gives the load's heap back is yet to run");
        assertFalse(periodic.observe(12, 14 * MB, 0), "an idle process collects once, then no more");
        assertFalse(periodic.observe(12, 14 * MB + 1000, 0));
    }

    @Test
    void allocationAfterwardsTurnsItOnAgain() {
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> { });
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 14 * MB, 0);
        assertFalse(periodic.observe(11, 14 * MB, 0));
        assertTrue(periodic.observe(11, 15 * MB + 1, 0));
    }

    /** A burst of logins collects between every two samples: what it allocated is not seen, but it was busy. */
    @Test
    void collectionsAtEverySampleTurnItOnAgain() {
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> { });
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 14 * MB, 0);
        assertFalse(periodic.observe(11, 14 * MB, 0));
        assertTrue(periodic.observe(12, 14 * MB + 500_000, 0), "a collection at the next sample again");
        assertTrue(periodic.observe(13, 14 * MB + 500_000, 0));
    }

    @Test
    void severalCollectionsBetweenTwoSamplesTurnItOnAgain() {
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> { });
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 14 * MB, 0);
        assertFalse(periodic.observe(11, 14 * MB, 0));
        periodic.observe(11, 14 * MB, 0);
        assertTrue(periodic.observe(15, 14 * MB, 0));
    }

    @Test
    void underLoadTheNativeHeapIsNotTrimmed() {
        int[] trims = {0};
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> trims[0]++);
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 60 * MB, 0);
        periodic.observe(11, 15 * MB, 0);
        periodic.observe(12, 50 * MB, 0);
        periodic.observe(13, 16 * MB, 0);
        periodic.observe(13, 50 * MB, 0);
        periodic.observe(14, 16 * MB, 0);
        assertEquals(0, trims[0]);
    }

    @Test
    void turningIdleTrimsTheNativeHeapOnce() {
        int[] trims = {0};
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> trims[0]++);
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 14 * MB, 0);
        periodic.observe(11, 14 * MB, 0);
        assertEquals(1, trims[0], "trimmed when the periodic collection is turned off");
        periodic.observe(11, 14 * MB + 1000, 0);
        periodic.observe(12, 14 * MB, 0);
        periodic.observe(12, 14 * MB, 0);
        periodic.observe(13, 14 * MB, 0);
        assertEquals(1, trims[0], "collections while it stays idle trim no more");
    }

    @Test
    void turningIdleAgainAfterLoadTrimsAgain() {
        int[] trims = {0};
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> trims[0]++);
        periodic.observe(10, 20 * MB, 0);
        periodic.observe(10, 14 * MB, 0);
        periodic.observe(11, 14 * MB, 0);
        periodic.observe(11, 40 * MB, 0);
        periodic.observe(12, 15 * MB, 0);
        assertEquals(1, trims[0], "the collection after the load gave heap back, so it is not idle yet");
        periodic.observe(12, 15 * MB, PeriodicCollection.TRIM_SPACING_NANOS);
        periodic.observe(13, 15 * MB, PeriodicCollection.TRIM_SPACING_NANOS);
        assertEquals(2, trims[0]);
    }

    @Test
    void turningIdleAgainSoonTrimsNoMoreThanOnceInTheSpacing() {
        int[] trims = {0};
        PeriodicCollection periodic = new PeriodicCollection("60000", () -> trims[0]++);
        long now = 0;
        long collections = 10;
        periodic.observe(collections, 20 * MB, now);
        periodic.observe(collections, 14 * MB, now);
        periodic.observe(++collections, 14 * MB, now);
        for (int i = 0; i < 10; i++) {
            now += PeriodicCollection.TRIM_SPACING_NANOS / 20;
            assertTrue(periodic.observe(collections, 16 * MB, now), "turned on again by the allocation");
            periodic.observe(++collections, 14 * MB, now);
            periodic.observe(collections, 14 * MB, now);
            assertFalse(periodic.observe(++collections, 14 * MB, now), "and off by a collection after little more");
        }
        assertEquals(1, trims[0]);
    }
}
