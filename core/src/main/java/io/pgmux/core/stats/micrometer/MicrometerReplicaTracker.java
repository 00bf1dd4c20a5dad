package io.pgmux.core.stats.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.pgmux.core.pool.ReplicasView;
import io.pgmux.core.stats.PoolStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The meters of one pool's read routing, with the pool's tags (and {@code standby}, its {@code host:port}, for
 * those of one standby): read from the replica set when the registry is scraped.
 */
final class MicrometerReplicaTracker implements AutoCloseable {
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    MicrometerReplicaTracker(String poolName, PoolStats stats, ReplicasView view, MeterRegistry registry) {
        this.registry = registry;
        Tags tags = Tags.of("pool", poolName, "database", stats.getDatabase(), "user", stats.getUser(),
                "mode", stats.getPoolMode());
        for (String host : view.getReadsRouted().keySet()) {
            Tags standby = tags.and("standby", host);
            meters.add(FunctionCounter.builder("pgmux.replicas.reads", view, v -> v.getReadsRouted().get(host))
                    .description("Read-only transactions routed to this host").tags(standby).register(registry));
            meters.add(TimeGauge.builder("pgmux.replicas.lag", view, TimeUnit.MILLISECONDS,
                            v -> v.getStandbyLagMillis().getOrDefault(host, 0L))
                    .description("How far this standby's replay lags the primary, at its last check")
                    .tags(standby).strongReference(true).register(registry));
        }
        meters.add(FunctionCounter.builder("pgmux.replicas.reads.primary", view,
                        ReplicasView::getReadsToPrimaryForFreshness)
                .description("Reads run on the primary because no standby had replayed their connection's last write")
                .tags(tags).register(registry));
        meters.add(FunctionTimer.builder("pgmux.replicas.replay.wait", view, ReplicasView::getReplayWaits,
                        ReplicasView::getReplayWaitMillis, TimeUnit.MILLISECONDS)
                .description("Reads that waited for a standby to replay their connection's last write, and how long")
                .tags(tags).register(registry));
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
        meters.clear();
    }
}
