package io.pgmux.core.stats.micrometer;

import io.pgmux.core.pool.ReplicasView;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.PoolStats;
import java.util.Objects;

/**
 * Publishes every pool's figures to a Micrometer {@link MeterRegistry}, as HikariCP's
 * {@code MicrometerMetricsTrackerFactory} does: meters named {@code pgmux.*} and tagged {@code pool},
 * {@code database}, {@code user} and {@code mode}. Micrometer is an optional dependency of pgmux: this class
 * is loaded only when an application hands pgmux a registry.
 */
public final class MicrometerMetricsTrackerFactory implements MetricsTrackerFactory {
    private final MeterRegistry registry;

    public MicrometerMetricsTrackerFactory(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * The factory for a metrics registry given as an untyped object, as HikariCP's {@code metricRegistry}
     * is: a Micrometer {@code MeterRegistry}. Micrometer's classes are loaded only when it is one.
     *
     * @throws IllegalArgumentException for any other object
     */
    public static MetricsTrackerFactory forRegistry(Object registry) {
        if (isA(registry, "io.micrometer.core.instrument.MeterRegistry")) {
            return new MicrometerMetricsTrackerFactory((MeterRegistry) registry);
        }
        throw new IllegalArgumentException("metricRegistry " + registry.getClass().getName() + " is not supported:"
                + " give a Micrometer io.micrometer.core.instrument.MeterRegistry, or a metricsTrackerFactory");
    }

    private static boolean isA(Object object, String className) {
        for (Class<?> c = object.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public IMetricsTracker create(String poolName, PoolStats poolStats) {
        return new MicrometerMetricsTracker(poolName, poolStats, registry);
    }

    @Override
    public AutoCloseable createReplicaTracker(String poolName, PoolStats poolStats, ReplicasView replicas) {
        return new MicrometerReplicaTracker(poolName, poolStats, replicas, registry);
    }
}
