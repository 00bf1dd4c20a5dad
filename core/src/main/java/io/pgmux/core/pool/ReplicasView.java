package io.pgmux.core.pool;

import io.pgmux.core.stats.PgMuxReplicasMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A replica set as its MXBean shows it; every figure read when asked. */
public final class ReplicasView implements PgMuxReplicasMXBean {
    private final ReplicaSet<?> set;

    public ReplicasView(ReplicaSet<?> set) {
        this.set = set;
    }

    @Override
    public String[] getReadSet() {
        return set.replicas().stream().filter(r -> r.serves(0)).map(Replica::host).toArray(String[]::new);
    }

    @Override
    public Map<String, Long> getReadsRouted() {
        Map<String, Long> reads = new LinkedHashMap<>();
        set.replicas().forEach(r -> reads.put(r.host(), r.readsRouted()));
        return reads;
    }

    @Override
    public Map<String, Long> getStandbyLagMillis() {
        Map<String, Long> lag = new LinkedHashMap<>();
        set.replicas().stream().filter(Replica::isStandby)
                .forEach(r -> lag.put(r.host(), TimeUnit.NANOSECONDS.toMillis(r.lagNanos())));
        return lag;
    }

    @Override
    public long getReadsToPrimaryForFreshness() {
        return set.readsToPrimaryForFreshness();
    }

    @Override
    public long getReplayWaits() {
        return set.replayWaits();
    }

    @Override
    public long getReplayWaitMillis() {
        return TimeUnit.NANOSECONDS.toMillis(set.replayWaitNanos());
    }
}
