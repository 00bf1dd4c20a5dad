package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The periodic collection stays on while collections find something to give back, and an idle process stops
 * collecting once one found nothing allocated since the one before.
 */
class PeriodicCollectionTest {
    private static final long MB = 1 << 20;

    @Test
    void underLoadItStaysOn() {
        PeriodicCollection periodic = new PeriodicCollection("60000");
        assertTrue(periodic.observe(10, 20 * MB));
        assertTrue(periodic.observe(10, 60 * MB));
        assertTrue(periodic.observe(11, 15 * MB));
        assertTrue(periodic.observe(11, 50 * MB));
        assertTrue(periodic.observe(12, 16 * MB));
    }

    @Test
    void aCollectionAfterLittleAllocationTurnsItOff() {
        PeriodicCollection periodic = new PeriodicCollection("60000");
        periodic.observe(10, 20 * MB);
        periodic.observe(10, 60 * MB);
        periodic.observe(11, 15 * MB);
        assertTrue(periodic.observe(11, 15 * MB + 1000), "the collection that gives the load's heap back is yet to run");
        assertFalse(periodic.observe(12, 14 * MB), "an idle process collects once, then no more");
        assertFalse(periodic.observe(12, 14 * MB + 1000));
    }

    @Test
    void allocationAfterwardsTurnsItOnAgain() {
        PeriodicCollection periodic = new PeriodicCollection("60000");
        periodic.observe(10, 20 * MB);
        periodic.observe(11, 14 * MB);
        assertFalse(periodic.observe(12, 14 * MB));
        assertTrue(periodic.observe(12, 15 * MB + 1));
    }
}
