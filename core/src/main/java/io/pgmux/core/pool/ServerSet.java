package io.pgmux.core.pool;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server connections of one pool, in every state (PgBouncer's server lists, HikariCP's ConcurrentBag):
 * an array replaced under a lock when a server joins or leaves, so that claiming an idle server is a
 * lock-free scan and a CAS on the server's state.
 */
final class ServerSet<S> {
    @SuppressWarnings("rawtypes")
    private static final PooledServer[] NONE = new PooledServer[0];

    private final ReentrantLock membership = new ReentrantLock();
    @SuppressWarnings("unchecked")
    private volatile PooledServer<S>[] servers = NONE;
    /** Assignments of the servers that left; guarded by membership. */
    private long retiredAssignments;

    /** The members at this moment; the caller must not modify the array. */
    PooledServer<S>[] members() {
        return servers;
    }

    void add(PooledServer<S> s) {
        membership.lock();
        try {
            PooledServer<S>[] old = servers;
            PooledServer<S>[] copy = Arrays.copyOf(old, old.length + 1);
            copy[old.length] = s;
            servers = copy;
        } finally {
            membership.unlock();
        }
    }

    /** Takes {@code s} out of the set; false if it was not a member (removed already). */
    boolean remove(PooledServer<S> s) {
        membership.lock();
        try {
            PooledServer<S>[] old = servers;
            for (int i = 0; i < old.length; i++) {
                if (old[i] == s) {
                    PooledServer<S>[] copy = Arrays.copyOf(old, old.length - 1);
                    System.arraycopy(old, i + 1, copy, i, old.length - i - 1);
                    servers = copy;
                    retiredAssignments += s.assignments();
                    return true;
                }
            }
            return false;
        } finally {
            membership.unlock();
        }
    }

    /**
     * Claims an idle server (IDLE to ACTIVE), one of the given affinity first when there is one; null when
     * none is idle. Each thread starts its scan at its own place in the array, so threads on different
     * cores do not all fight over the first few servers' cache lines (HikariCP gets the same effect from
     * thread-local lists).
     *
     * @param affinity null for no preference
     */
    PooledServer<S> claimIdle(Object affinity) {
        PooledServer<S>[] all = servers;
        int n = all.length;
        if (n == 0) {
            return null;
        }
        int start = (int) ((Thread.currentThread().getId() * 0x9E3779B97F4A7C15L) >>> 33) % n;
        if (affinity != null) {
            PooledServer<S> s = claimIdle(all, start, affinity);
            if (s != null) {
                return s;
            }
        }
        return claimIdle(all, start, null);
    }

    /** @param affinity only servers of this affinity, or any when null */
    private static <S> PooledServer<S> claimIdle(PooledServer<S>[] all, int start, Object affinity) {
        int n = all.length;
        for (int k = 0; k < n; k++) {
            int i = start + k;
            PooledServer<S> s = all[i < n ? i : i - n];
            if (s.state() == PooledServer.IDLE && (affinity == null || s.affinity == affinity)
                    && s.to(PooledServer.IDLE, PooledServer.ACTIVE)) {
                return s;
            }
        }
        return null;
    }

    /**
     * The members by state, in one pass. An idle server neither used nor checked for longer than
     * {@code checkDelayNanos} counts as used (it is tested before its next loan), as in SHOW POOLS.
     */
    ServerCounts count(long nowNanos, long checkDelayNanos) {
        int active = 0;
        int idle = 0;
        int used = 0;
        int tested = 0;
        int login = 0;
        for (PooledServer<S> s : servers) {
            switch (s.state()) {
                case PooledServer.ACTIVE:
                    active++;
                    break;
                case PooledServer.IDLE:
                    if (s.needsCheck(nowNanos, checkDelayNanos)) {
                        used++;
                    } else {
                        idle++;
                    }
                    break;
                case PooledServer.TESTED:
                    tested++;
                    break;
                case PooledServer.LOGIN:
                    login++;
                    break;
                default:
                    break;
            }
        }
        return new ServerCounts(active, idle, used, tested, login);
    }

    /**
     * Loans of every server this set ever held, read with membership held so that a server leaving is
     * counted exactly once.
     */
    long assignments() {
        membership.lock();
        try {
            long n = retiredAssignments;
            for (PooledServer<S> s : servers) {
                n += s.assignments();
            }
            return n;
        } finally {
            membership.unlock();
        }
    }
}
