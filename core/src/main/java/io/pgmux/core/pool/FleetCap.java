package io.pgmux.core.pool;

/**
 * A pool's share of its fleet's budget as its coordinator last gave it: {@code cap} for {@code validForNanos}
 * from {@code sinceNanos} (the pool's clock), then {@code fencedCap} until the next share. A member stalled past
 * the bound after which the others may count it dead (a long GC pause, SIGSTOP) thereby opens no server above
 * its fallback share when it runs again, even before its coordinator beats once more.
 */
record FleetCap(int cap, long sinceNanos, long validForNanos, int fencedCap) {
    /** Outside a fleet. */
    static final FleetCap NONE = new FleetCap(Integer.MAX_VALUE, 0, Long.MAX_VALUE, Integer.MAX_VALUE);

    /** The cap in force at {@code now}. */
    int at(long now) {
        return now - sinceNanos >= validForNanos ? Math.min(cap, fencedCap) : cap;
    }
}
