package io.pgmux.core.pool;

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

    /** Whether a read that must see everything up to {@code minLsn} (0: nothing in particular) may run here. */
    boolean serves(long minLsn) {
        return standby && Lsn.reached(replayLsn, minLsn);
    }

    void found(boolean standby, long replayLsn) {
        this.replayLsn = replayLsn;
        this.standby = standby;
    }

    @Override
    public String toString() {
        return host + (standby ? " (standby, replayed " + Lsn.format(replayLsn) + ")" : " (not a standby)");
    }
}
