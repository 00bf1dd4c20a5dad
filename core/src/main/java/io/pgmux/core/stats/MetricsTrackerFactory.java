package io.pgmux.core.stats;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgmux.core.stats.micrometer.MicrometerMetricsTrackerFactory;

/** Creates one tracker per pool; HikariCP's {@code MetricsTrackerFactory} shape. */
@FunctionalInterface
public interface MetricsTrackerFactory {
    IMetricsTracker create(String poolName, PoolStats poolStats);

    /**
     * The factory for a metrics registry given as an untyped object, as HikariCP's {@code metricRegistry}
     * is: a Micrometer {@code MeterRegistry}. Micrometer's classes are loaded only when it is one.
     *
     * @throws IllegalArgumentException for any other object
     */
    static MetricsTrackerFactory forRegistry(Object registry) {
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
}
