package io.pgmux.core.pool;

import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.PgMuxReplicasMXBean;
import io.pgmux.core.stats.PoolMBeans;
import io.pgmux.core.stats.PoolStats;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read-routing pool's figures where its other figures are: the {@code io.pgmux:type=Replicas,name=<pool>} MXBean
 * when the pool registers MBeans, and the metrics tracker factory's replica meters when it has one. Both faces
 * publish their read routing with it.
 */
public final class ReplicaMetrics implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaMetrics.class);
    private static final String MBEAN_TYPE = "Replicas";

    private final String poolName;
    private final boolean mbean;
    private final AutoCloseable meters;

    private ReplicaMetrics(String poolName, boolean mbean, AutoCloseable meters) {
        this.poolName = poolName;
        this.mbean = mbean;
        this.meters = meters;
    }

    /** Publishes {@code set}'s figures under {@code pool}'s name; {@code trackers} may be null. */
    public static ReplicaMetrics publish(Pool<?> pool, ReplicaSet<?> set, boolean registerMbeans,
                                         MetricsTrackerFactory trackers) {
        ReplicasView view = new ReplicasView(set);
        boolean mbean = registerMbeans && PoolMBeans.register(MBEAN_TYPE, pool.name(),
                new StandardMBean(view, PgMuxReplicasMXBean.class, true));
        AutoCloseable meters = trackers == null ? null
                : trackers.createReplicaTracker(pool.name(), new PoolStats(1000,
                        pool.key().database(), pool.key().user(), pool.config().poolMode().configName()) {
                    @Override
                    protected void update() {
                        // only the tags are read
                    }
                }, view);
        return new ReplicaMetrics(pool.name(), mbean, meters);
    }

    @Override
    public void close() {
        if (mbean) {
            PoolMBeans.unregister(MBEAN_TYPE, poolName);
        }
        if (meters != null) {
            try {
                meters.close();
            } catch (Exception e) {
                log.debug("pool {}: closing its replica meters failed", poolName, e);
            }
        }
    }
}
