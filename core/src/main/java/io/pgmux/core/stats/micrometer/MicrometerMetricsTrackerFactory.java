package io.pgmux.core.stats.micrometer;

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

    @Override
    public IMetricsTracker create(String poolName, PoolStats poolStats) {
        return new MicrometerMetricsTracker(poolName, poolStats, registry);
    }
}
