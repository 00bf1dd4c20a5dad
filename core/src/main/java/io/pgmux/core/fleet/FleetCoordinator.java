package io.pgmux.core.fleet;

/**
 * Shares one budget of server connections among the pools of a fleet, across processes: one coordinator per
 * member pool, which tells its {@link FleetMember} its cap and hears its demand. The PostgreSQL implementation
 * keeps membership and shares in the server the pools reach anyway; another store (a Kubernetes Lease, etcd,
 * Consul, ZooKeeper) plugs in here.
 *
 * <p>What every implementation owes: the caps it hands out never add up to more than the budget. A member's
 * cap is raised only once the others' lowered caps are recorded, and a lowered cap is recorded only once the
 * member holds no more than it. When the coordination fails, the member falls back to a fixed share of the
 * budget (budget / members last seen, at least 1) and logs a WARN: never to an unbounded pool.
 */
public interface FleetCoordinator extends AutoCloseable {
    /**
     * Starts coordinating {@code member}: its cap is 0 until its first share, which this call waits for (or
     * for the fallback share when coordination fails). Called once.
     */
    void join(FleetMember member);

    /** Leaves the fleet and gives the member's share back to the others at once; the member's cap stays. */
    @Override
    void close();
}
