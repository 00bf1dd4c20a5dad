package io.pgmux.core.fleet;

import java.util.ArrayDeque;

/**
 * The fixed share a member holds while it cannot coordinate. A member that has had a committed cap falls back
 * to no more than that cap, so that a transient failure (a heartbeat that waited past its timeout under load)
 * never raises what anyone holds: the committed caps add up to at most the budget, and so do the fallbacks
 * taken below them. The members counted for the equal part never drop below the most seen within the dead
 * bound, since a member the others have just counted dead may still be alive, holding its own fallback. Only a
 * member that never coordinated (the schema missing, no rights from the start) takes budget / members alone.
 * Used on the coordinator's heartbeat thread only.
 */
final class FleetFallback {
    private final long deadAfterNanos;
    /** (when, members seen) of the heartbeats within the dead bound, oldest first. */
    private final ArrayDeque<long[]> seen = new ArrayDeque<>();
    /** The cap last committed in this member's row, or -1 before the first. */
    private int committed = -1;

    FleetFallback(long deadAfterNanos) {
        this.deadAfterNanos = deadAfterNanos;
    }

    /** A heartbeat at {@code now} saw {@code members} and committed {@code cap} for this member. */
    void committed(long now, int members, int cap) {
        seen.addLast(new long[] {now, members});
        committed = Math.max(0, cap);
        prune(now);
    }

    /** The members a share divides among at {@code now}: the most seen within the dead bound, at least 1. */
    int members(long now) {
        prune(now);
        int most = 1;
        for (long[] s : seen) {
            most = Math.max(most, (int) s[1]);
        }
        return most;
    }

    /** The fixed share of {@code budget} this member may hold at {@code now}, coordination failing. */
    int share(long now, int budget) {
        int equalPart = budget / members(now);
        if (committed < 0) {
            return Math.max(1, equalPart);
        }
        return Math.min(committed, equalPart);
    }

    /** What a member given {@code cap} at {@code now} fences itself to: never more than that cap. */
    int fence(long now, int budget, int cap) {
        return Math.min(cap, budget / members(now));
    }

    private void prune(long now) {
        // The newest stays: it is what the member saw last, however long ago.
        while (seen.size() > 1 && now - seen.peekFirst()[0] > deadAfterNanos) {
            seen.removeFirst();
        }
    }
}
