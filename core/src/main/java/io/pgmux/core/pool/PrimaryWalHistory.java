package io.pgmux.core.pool;

/**
 * The primary's WAL position at its recent checks, to tell a standby's replay lag in time: a standby that has
 * replayed what the primary had written at a check is at most as old as that check. Lag so measured is 0 for
 * a standby that has replayed everything while the primary writes nothing (unlike {@code now() -
 * pg_last_xact_replay_timestamp()}, which grows on an idle primary), and costs no query beyond the checks.
 * Between two checks of the primary the time is interpolated by WAL position. Not thread-safe: used by one
 * thread at a time, that of the checks (both faces measure replicaMaxLag / replica_max_lag with it).
 */
public final class PrimaryWalHistory {
    /** At a check a second, two minutes: a standby behind all of it lags at least that much. */
    private static final int SIZE = 128;

    private final long[] nanos = new long[SIZE];
    private final long[] lsns = new long[SIZE];
    private int count;
    private int next;

    /** The primary had written up to {@code lsn} at {@code atNanos} (System.nanoTime()). */
    public void add(long atNanos, long lsn) {
        nanos[next] = atNanos;
        lsns[next] = lsn;
        next = (next + 1) % SIZE;
        count = Math.min(count + 1, SIZE);
    }

    /** How far behind, at {@code nowNanos}, a standby is that has replayed up to {@code replayLsn}; 0 if unknown. */
    public long lagNanos(long replayLsn, long nowNanos) {
        if (count == 0) {
            return 0;
        }
        int newest = Math.floorMod(next - 1, SIZE);
        if (Lsn.reached(replayLsn, lsns[newest])) {
            return 0;
        }
        int later = newest;
        for (int i = 1; i < count; i++) {
            int k = Math.floorMod(newest - i, SIZE);
            if (Lsn.reached(replayLsn, lsns[k])) {
                double share = (double) (replayLsn - lsns[k]) / (double) (lsns[later] - lsns[k]);
                long asOf = nanos[k] + (long) (share * (nanos[later] - nanos[k]));
                return Math.max(0, nowNanos - asOf);
            }
            later = k;
        }
        return Math.max(0, nowNanos - nanos[later]);
    }
}
