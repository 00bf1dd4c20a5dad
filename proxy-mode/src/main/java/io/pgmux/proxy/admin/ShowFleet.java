package io.pgmux.proxy.admin;

import io.pgmux.core.fleet.FleetStatus;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.server.ServerConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * SHOW FLEET, pgmux's own view (PgBouncer has no fleets): one row per pool in a fleet, with what its member saw at
 * its last heartbeat. held is the pool's server connections now; lent and borrowed are measured against the
 * member's equal part of the budget (budget / members); fallback is 1 while coordination through the server fails
 * and the member holds a fixed share.
 */
final class ShowFleet {
    private ShowFleet() {
    }

    static Table of(PoolRegistry<ServerConnection> registry) {
        Table t = new Table().text("fleet", "database", "user")
                .int4("budget", "share", "held", "lent", "borrowed", "members", "fallback");
        List<Pool<ServerConnection>> pools = new ArrayList<>(registry.pools());
        pools.sort(Comparator.comparing((Pool<ServerConnection> p) -> p.key().database())
                .thenComparing(p -> p.key().user()));
        for (Pool<ServerConnection> pool : pools) {
            FleetStatus f = pool.fleetStatus();
            if (f != null) {
                t.row(f.fleet(), pool.key().database(), pool.key().user(), f.budget(), f.share(),
                        pool.getTotalConnections(), f.lent(), f.borrowed(), f.members(), f.fallback() ? 1 : 0);
            }
        }
        return t;
    }
}
