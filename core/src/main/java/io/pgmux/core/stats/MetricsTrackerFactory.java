package io.pgmux.core.stats;

import io.pgmux.core.pool.ReplicasView;

/** Creates one tracker per pool; HikariCP's {@code MetricsTrackerFactory} shape. */
@FunctionalInterface
public interface MetricsTrackerFactory {
    IMetricsTracker create(String poolName, PoolStats poolStats);

    /**
     * Publishes a pool's read routing (reads per standby, standby lag, reads sent to the primary for freshness,
     * waits for replay) until the returned handle is closed; {@code poolStats} gives the pool's tags. By default
     * nothing.
     */
    default AutoCloseable createReplicaTracker(String poolName, PoolStats poolStats, ReplicasView replicas) {
        return () -> { };
    }
}
