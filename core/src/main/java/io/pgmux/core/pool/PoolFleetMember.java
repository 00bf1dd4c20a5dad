package io.pgmux.core.pool;

import io.pgmux.core.fleet.FleetMember;
import io.pgmux.core.fleet.FleetStatus;

/**
 * A {@link Pool} as a member of its fleet. Its demand is its whole pool size while clients wait for a server,
 * else the servers in use and one more, so that a member whose load grows asks before its clients queue.
 */
public final class PoolFleetMember implements FleetMember {
    private final Pool<?> pool;

    public PoolFleetMember(Pool<?> pool) {
        this.pool = pool;
    }

    @Override
    public int demand() {
        int size = pool.config().defaultPoolSize();
        PoolView<?> view = pool.view();
        if (view.waitingClients() > 0) {
            return size;
        }
        return Math.min(size, view.serversInUse() + 1);
    }

    @Override
    public int servers() {
        return pool.serverCount();
    }

    @Override
    public void cap(int cap) {
        pool.fleetCap(cap);
    }

    @Override
    public void cap(int cap, long validForNanos, int fencedCap) {
        pool.fleetCap(cap, validForNanos, fencedCap);
    }

    @Override
    public void status(FleetStatus status) {
        pool.fleetStatus(status);
    }
}
