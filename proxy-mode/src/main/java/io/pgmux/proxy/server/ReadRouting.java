package io.pgmux.proxy.server;

import java.time.Duration;
import java.util.Objects;

/**
 * pgmux's read routing of a {@code [databases]} entry ({@code read_routing = replicas}): its host list is one
 * primary and any number of streaming standbys; transactions that declare themselves read-only run on a standby,
 * everything else on the primary.
 *
 * @param readYourWrites read_your_writes: a client's reads only go to a standby that has replayed its last commit
 * @param replicaWaitTimeout replica_wait_timeout: how long such a read waits for one before the primary serves it
 * @param replicaCheckPeriod replica_check_period: how often each host is asked whether it is a standby
 * @param replicaMaxLag replica_max_lag: a standby further behind the primary leaves the read set; 0: no bound
 */
public record ReadRouting(boolean readYourWrites, Duration replicaWaitTimeout, Duration replicaCheckPeriod,
                          Duration replicaMaxLag) {

    public ReadRouting {
        Objects.requireNonNull(replicaWaitTimeout, "replicaWaitTimeout");
        Objects.requireNonNull(replicaMaxLag, "replicaMaxLag");
        if (replicaCheckPeriod.isZero()) {
            throw new IllegalArgumentException("replica_check_period must be more than 0 seconds");
        }
    }

    /** The read_routing value that turns it on; {@code off} is the other. */
    public static boolean replicas(String readRouting) {
        return switch (readRouting.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "replicas" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("read_routing must be off or replicas, not \""
                    + readRouting + "\"");
        };
    }
}
