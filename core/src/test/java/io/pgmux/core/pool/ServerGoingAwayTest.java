package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ServerGoingAwayTest {
    @Test
    void shutdownCrashStartupAndIdleSessionTimeoutMeanTheServerIsGoingAway() {
        for (String state : new String[] {"57P01", "57P02", "57P03", "57P05"}) {
            assertTrue(ServerGoingAway.means(state), state);
        }
    }

    @Test
    void droppedDatabaseCancelAndOtherErrorsDoNot() {
        for (String state : new String[] {"57P04", "57014", "08006", "28P01", "3D000", "57P0", ""}) {
            assertFalse(ServerGoingAway.means(state), state);
        }
    }

    @Test
    void noStateDoesNot() {
        assertFalse(ServerGoingAway.means(null));
    }
}
