package io.pgmux.core.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fixed share a fleet member holds while it cannot coordinate, and what it fences itself to. */
class FleetFallbackTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long DEAD_AFTER = 3 * SECOND;

    private final FleetFallback fallback = new FleetFallback(DEAD_AFTER);

    @Test
    void aMemberThatNeverCoordinatedTakesTheBudgetOverTheMembersItSaw() {
        assertEquals(40, fallback.share(0, 40));
    }

    @Test
    void aMemberGrantedLessThanAnEqualPartFallsBackToWhatItWasGranted() {
        fallback.committed(0, 4, 1);
        assertEquals(1, fallback.share(SECOND, 40));
    }

    @Test
    void aMemberGrantedMoreThanAnEqualPartFallsBackToTheEqualPart() {
        fallback.committed(0, 4, 37);
        assertEquals(10, fallback.share(SECOND, 40));
    }

    @Test
    void aMemberGrantedNothingFallsBackToNothing() {
        fallback.committed(0, 4, 0);
        assertEquals(0, fallback.share(SECOND, 40));
    }

    @Test
    void theMembersCountedNeverDropBelowTheMostSeenWithinTheDeadBound() {
        fallback.committed(0, 4, 10);
        fallback.committed(SECOND, 3, 13);
        assertEquals(10, fallback.share(2 * SECOND, 40), "the member counted dead may still hold its fallback");
        assertEquals(13, fallback.share(SECOND + DEAD_AFTER, 40), "past the bound, the 3 seen last");
    }

    @Test
    void theMembersSeenLastCountHoweverLongAgo() {
        fallback.committed(0, 4, 10);
        assertEquals(10, fallback.share(60 * SECOND, 40));
    }

    @Test
    void aFencedMemberHoldsNoMoreThanTheCapItWasGiven() {
        fallback.committed(0, 4, 2);
        assertEquals(2, fallback.fence(SECOND, 40, 2));
        assertEquals(10, fallback.fence(SECOND, 40, 25));
    }

    @Test
    void committedCapsAndFallbacksTakenBelowThemNeverAddUpToMoreThanTheBudget() {
        Random random = new Random(25);
        for (int round = 0; round < 10_000; round++) {
            int budget = 1 + random.nextInt(100);
            int[] demands = new int[1 + random.nextInt(8)];
            for (int i = 0; i < demands.length; i++) {
                demands[i] = random.nextInt(60);
            }
            int[] caps = FleetShares.allocate(budget, demands);
            int sum = 0;
            for (int cap : caps) {
                // Any of the members may fall back; the others keep their committed caps.
                if (random.nextBoolean()) {
                    FleetFallback f = new FleetFallback(DEAD_AFTER);
                    f.committed(0, caps.length, cap);
                    sum += f.share(random.nextInt(10) * SECOND, budget);
                } else {
                    sum += cap;
                }
            }
            assertTrue(sum <= budget, "budget " + budget + ", sum " + sum);
        }
    }
}
