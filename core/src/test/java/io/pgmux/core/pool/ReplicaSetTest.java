package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which host a read takes: a standby in turn, one that has replayed what the reader must see, or none. */
class ReplicaSetTest {
    private final Replica<Object> primary = new Replica<>("h1:5432", null);
    private final Replica<Object> first = new Replica<>("h2:5432", null);
    private final Replica<Object> second = new Replica<>("h3:5432", null);
    private final ReplicaSet<Object> set = new ReplicaSet<>(List.of(primary, first, second));

    @Test
    void readsTakeTheStandbysInTurnAndNeverThePrimary() {
        set.checked(primary, false, 0);
        set.checked(first, true, 100);
        set.checked(second, true, 100);

        Set<Replica<Object>> picked = new HashSet<>();
        for (int i = 0; i < 6; i++) {
            picked.add(set.pick(0));
        }
        assertEquals(Set.of(first, second), picked);
    }

    @Test
    void readsAreSpreadEvenlyOverTheStandbysWhenThePrimaryIsListedFirst() {
        set.checked(primary, false, 0);
        set.checked(first, true, 100);
        set.checked(second, true, 100);

        int toFirst = 0;
        int toSecond = 0;
        for (int i = 0; i < 300; i++) {
            Replica<Object> picked = set.pick(0);
            if (picked == first) {
                toFirst++;
            } else if (picked == second) {
                toSecond++;
            }
        }
        assertEquals(150, toFirst);
        assertEquals(150, toSecond);
    }

    @Test
    void aReadThatMustSeeAPositionTakesOnlyAStandbyThatReplayedIt() {
        set.checked(first, true, 100);
        set.checked(second, true, 200);

        for (int i = 0; i < 4; i++) {
            assertSame(second, set.pick(150));
        }
        assertNull(set.pick(201));
    }

    @Test
    void withNoStandbyThereIsNothingToPick() {
        set.checked(primary, false, 0);
        set.checked(first, true, 100);
        set.unreachable(first);

        assertNull(set.pick(0));
    }

    @Test
    void aWaitingReadIsServedByTheCheckThatFindsItsPositionReplayed() throws Exception {
        set.checked(first, true, 100);
        CompletableFuture<Replica<Object>> read = CompletableFuture.supplyAsync(() -> {
            try {
                return set.await(150, 30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        set.checked(first, true, 160);

        assertSame(first, read.get(30, TimeUnit.SECONDS));
    }

    @Test
    void aWaitingReadGetsNothingOnceItsBoundPassed() throws InterruptedException {
        set.checked(first, true, 100);

        assertNull(set.await(150, 50, TimeUnit.MILLISECONDS));
    }
}
