package io.pgmux.core.fleet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How a fleet's budget divides among its members by their demand. */
class FleetSharesTest {

    @Test
    void anIdleMembersUnusedShareIsLentToTheBusyOne() {
        assertArrayEquals(new int[] {37, 1, 1, 1}, FleetShares.allocate(40, new int[] {40, 1, 1, 1}));
    }

    @Test
    void busyMembersShareTheBudgetEqually() {
        assertArrayEquals(new int[] {10, 10, 10, 10}, FleetShares.allocate(40, new int[] {40, 40, 40, 40}));
    }

    @Test
    void aPartOneMemberDoesNotNeedGoesToTheOthers() {
        assertArrayEquals(new int[] {5, 18, 17}, FleetShares.allocate(40, new int[] {5, 40, 40}));
    }

    @Test
    void aBudgetBelowTheMembersGivesOneEachUntilItIsSpent() {
        assertArrayEquals(new int[] {1, 1, 0}, FleetShares.allocate(2, new int[] {10, 10, 10}));
    }

    @Test
    void sharesNeverAddUpToMoreThanTheBudgetNorExceedADemandAboveOne() {
        Random random = new Random(25);
        for (int round = 0; round < 10_000; round++) {
            int budget = random.nextInt(200);
            int[] demands = new int[1 + random.nextInt(12)];
            for (int i = 0; i < demands.length; i++) {
                demands[i] = random.nextInt(60);
            }
            int[] shares = FleetShares.allocate(budget, demands);
            assertTrue(Arrays.stream(shares).sum() <= budget, () -> budget + " " + Arrays.toString(demands));
            for (int i = 0; i < shares.length; i++) {
                assertTrue(shares[i] <= Math.max(1, demands[i]), () -> budget + " " + Arrays.toString(demands));
            }
        }
    }
}
