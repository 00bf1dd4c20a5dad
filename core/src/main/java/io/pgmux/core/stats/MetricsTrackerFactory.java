package io.pgmux.core.stats;

/** Creates one tracker per pool; HikariCP's {@code MetricsTrackerFactory} shape. */
@FunctionalInterface
public interface MetricsTrackerFactory {
    IMetricsTracker create(String poolName, PoolStats poolStats);
}
