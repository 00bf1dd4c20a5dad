package io.pgmux.core.pool;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The servers a pool's read-only transactions may run on instead of its primary: every host of its list, each
 * with a pool of its own, of which those the last check found standbys are the read set. A read takes the next
 * of them in turn that has replayed what the reader must see; with none, the caller borrows from the primary.
 * The set itself never changes; a promotion or a standby joining changes what the checks find.
 */
public final class ReplicaSet<S> {
    private final List<Replica<S>> replicas;
    private final AtomicInteger turn = new AtomicInteger();
    /** Readers waiting for a standby's replay to reach their position wait here; a check wakes them. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition checked = lock.newCondition();
    private final LongAdder readsToPrimaryForFreshness = new LongAdder();
    private final LongAdder replayWaits = new LongAdder();
    private final LongAdder replayWaitNanos = new LongAdder();

    public ReplicaSet(List<Replica<S>> replicas) {
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("a replica set needs at least one host");
        }
        this.replicas = List.copyOf(replicas);
    }

    public List<Replica<S>> replicas() {
        return replicas;
    }

    /**
     * The next standby in turn that has replayed up to {@code minLsn} (0: any standby), or null when none has:
     * no allocation, no lock. The turn counts among the standbys that serve, not among all hosts, so a host that
     * does not serve (the primary, a lagging standby) does not hand its turns to the one after it.
     */
    public Replica<S> pick(long minLsn) {
        int n = replicas.size();
        int serving = 0;
        for (int i = 0; i < n; i++) {
            if (replicas.get(i).serves(minLsn)) {
                serving++;
            }
        }
        if (serving == 0) {
            return null;
        }
        int skip = Math.floorMod(turn.getAndIncrement(), serving);
        Replica<S> firstServing = null;
        for (int i = 0; i < n; i++) {
            Replica<S> r = replicas.get(i);
            if (r.serves(minLsn)) {
                if (skip-- == 0) {
                    return r;
                }
                if (firstServing == null) {
                    firstServing = r;
                }
            }
        }
        // a standby left the set between the two passes (a check ran)
        return firstServing;
    }

    /**
     * As {@link #pick}, but when no standby has replayed up to {@code minLsn} yet, waits up to {@code timeout}
     * for a check to find one that has; null if none did by then.
     */
    public Replica<S> await(long minLsn, long timeout, TimeUnit unit) throws InterruptedException {
        Replica<S> r = pick(minLsn);
        if (r != null || timeout <= 0) {
            return r;
        }
        long remaining = unit.toNanos(timeout);
        lock.lock();
        try {
            while ((r = pick(minLsn)) == null && remaining > 0) {
                remaining = checked.awaitNanos(remaining);
            }
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** What a check of {@code replica} found: whether it is a standby, and its replay position (0 if unknown). */
    public void checked(Replica<S> replica, boolean standby, long replayLsn) {
        replica.found(standby, replayLsn);
        lock.lock();
        try {
            checked.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * How far behind the primary a check found {@code replica}'s replay, and whether that is more than the pool
     * allows (it then leaves the read set until a check finds it within); call before {@link #checked}.
     */
    public void lagged(Replica<S> replica, long lagNanos, boolean overBound) {
        replica.lag(lagNanos, overBound);
    }

    /** A check could not reach {@code replica}: it leaves the read set until a check finds it a standby again. */
    public void unreachable(Replica<S> replica) {
        replica.lag(0, false);
        replica.found(false, 0);
    }

    /** A read ran on the primary because no standby had replayed what it must see (read-your-writes). */
    public void readSentToPrimaryForFreshness() {
        readsToPrimaryForFreshness.increment();
    }

    public long readsToPrimaryForFreshness() {
        return readsToPrimaryForFreshness.sum();
    }

    /** A read waited {@code nanos} for a standby to replay what it must see, whatever came of it. */
    public void replayWaited(long nanos) {
        replayWaits.increment();
        replayWaitNanos.add(nanos);
    }

    /** Reads that waited for a standby's replay. */
    public long replayWaits() {
        return replayWaits.sum();
    }

    /** The time reads waited for a standby's replay, in nanoseconds. */
    public long replayWaitNanos() {
        return replayWaitNanos.sum();
    }

    /** Whether some host is a standby now. */
    public boolean hasStandby() {
        return pick(0) != null;
    }

    @Override
    public String toString() {
        return "ReplicaSet" + replicas;
    }
}
