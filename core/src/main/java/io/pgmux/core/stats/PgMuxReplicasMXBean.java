package io.pgmux.core.stats;

import java.util.Map;

/**
 * JMX view of a pool's read routing ({@code io.pgmux:type=Replicas,name=<pool>}): where its read-only transactions
 * went and how its standbys keep up. Maps are keyed by {@code host:port}, as the host list writes them.
 */
public interface PgMuxReplicasMXBean {
    /** The hosts read-only transactions may borrow from now: standbys within the lag bound. */
    String[] getReadSet();

    /** Read-only transactions each host's pool lent a server connection to. */
    Map<String, Long> getReadsRouted();

    /** Each standby's replay lag behind the primary at its last check, in milliseconds. */
    Map<String, Long> getStandbyLagMillis();

    /** Reads that ran on the primary because no standby had replayed their connection's last write. */
    long getReadsToPrimaryForFreshness();

    /** Reads that waited for a standby to replay their connection's last write. */
    long getReplayWaits();

    /** The time those reads waited, in milliseconds. */
    long getReplayWaitMillis();
}
