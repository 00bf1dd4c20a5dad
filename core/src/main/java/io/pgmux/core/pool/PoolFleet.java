package io.pgmux.core.pool;

import io.pgmux.core.fleet.FleetStatus;
import java.util.Objects;

/**
 * One pool's side of its fleet (see {@link io.pgmux.core.fleet.FleetCoordinator}): the share of the fleet's budget
 * it is held to, and what the coordinator saw at its last heartbeat.
 */
final class PoolFleet<S> {
    private final Pool<S> pool;
    /** No login starts above it. Read when a server opens or comes back, never when one is lent. */
    private volatile FleetCap cap = FleetCap.NONE;
    /** Null outside a fleet. */
    private volatile FleetStatus status;

    PoolFleet(Pool<S> pool) {
        this.pool = pool;
    }

    /** The cap in force at {@code now}; Integer.MAX_VALUE outside a fleet. */
    int capAt(long now) {
        return cap.at(now);
    }

    /** See {@link Pool#fleetCap(int, long, int)}. */
    void cap(int newCap, long validForNanos, int fencedCap) {
        long now = pool.clock.nanoTime();
        int was = cap.at(now);
        cap = new FleetCap(newCap, now, validForNanos, fencedCap);
        if (newCap < was) {
            boolean closed = true;
            while (closed && pool.serverCount.get() > newCap) {
                closed = pool.disconnect.oneIdle("above the fleet's share");
            }
        } else if (newCap > was) {
            pool.maybeOpen();
        }
    }

    FleetStatus status() {
        return status;
    }

    /**
     * The first status of a fleet makes the pool's fleet meters; null (the pool left its fleet) or another fleet's
     * removes them.
     */
    void status(FleetStatus newStatus) {
        FleetStatus was = status;
        status = newStatus;
        String wasFleet = was == null ? null : was.fleet();
        String fleet = newStatus == null ? null : newStatus.fleet();
        if (!pool.tracking || Objects.equals(wasFleet, fleet)) {
            return;
        }
        if (wasFleet != null) {
            pool.tracker.recordFleetLeft(wasFleet);
        }
        if (fleet != null) {
            pool.tracker.recordFleetJoined(fleet);
        }
    }
}
