package io.pgmux.core.pool;

import java.util.concurrent.atomic.LongAdder;

/**
 * One server of a pool's host list as its read routing sees it: the pool of its own that reads borrow from,
 * and what the last check of the server found (whether it is a standby, how far it has replayed the primary's
 * WAL). Written by the one thread that checks it, through {@link ReplicaSet#checked}; read by any borrower.
 */
public final class Replica<S> {
    private final String host;
    private final Pool<S> pool;
    private volatile boolean standby;
    private volatile long replayLsn;
    /** How far behind the primary the last check found its replay; 0 when caught up or unknown. */
    private volatile long lagNanos;
    /** The lag exceeds the pool's bound: out of the read set until a check finds it caught up. */
    private volatile boolean lagging;
    /** Read-only transactions that borrowed from its pool. */
    private final LongAdder reads = new LongAdder();

    public Replica(String host, Pool<S> pool) {
        this.host = host;
        this.pool = pool;
    }

    /** {@code host:port} as the host list writes it. */
    public String host() {
        return host;
    }

    public Pool<S> pool() {
        return pool;
    }

    /** Whether the last check found a standby ({@code pg_is_in_recovery()}); false before the first check. */
    public boolean isStandby() {
        return standby;
    }

    /** {@code pg_last_wal_replay_lsn()} at the last check, as {@link Lsn} orders it; 0 when unknown. */
    public long replayLsn() {
        return replayLsn;
    }

    /**
     * How far behind the primary its replay was at the last check, in nanoseconds: the time since the primary had
     * written no more than it has replayed. 0 when caught up, before the first check and for a primary.
     */
    public long lagNanos() {
        return lagNanos;
    }

    /** A read-only transaction borrowed from its pool. */
    public void readRouted() {
        reads.increment();
    }

    /** Read-only transactions that borrowed from its pool since it started. */
    public long readsRouted() {
        return reads.sum();
    }

    /** Whether its lag exceeds the pool's bound, which keeps it out of the read set. */
    public boolean isLagging() {
        return lagging;
    }

    /** Whether a read that must see everything up to {@code minLsn} (0: nothing in particular) may run here. */
    boolean serves(long minLsn) {
        return standby && !lagging && Lsn.reached(replayLsn, minLsn);
    }

    void lag(long lagNanos, boolean lagging) {
        this.lagNanos = lagNanos;
        this.lagging = lagging;
    }

    void found(boolean standby, long replayLsn) {
        this.replayLsn = replayLsn;
        this.standby = standby;
    }

    @Override
    public String toString() {
        return host + (standby ? " (standby, replayed " + Lsn.format(replayLsn) + (lagging ? ", lagging" : "") + ")"
                : " (not a standby)");
    }
}
