package io.pgmux.jmh.micro;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;

/** The wait the allocation count measures is a real one: every release serves the client waiting for it. */
class WaitAllocationTest {

    @Test
    void everyReleaseHandsTheConnectionToTheWaitingClientBothWays() {
        // the harness itself fails when a release leaves the client waiting or the wait fails
        assertDoesNotThrow(() -> WaitAllocation.main(new String[] {"1000"}));
    }
}
