package io.pgmux.proxy.client;

import java.util.concurrent.TimeUnit;

/**
 * A read waited query_wait_timeout for a standby to replay its client's last commit, replica_wait_timeout being
 * longer: the shorter bound governs, and the client gets PgBouncer's query_wait_timeout error.
 */
final class ReplayWaitTimeoutException extends Exception {
    private static final long serialVersionUID = 1L;

    ReplayWaitTimeoutException(long queryWaitTimeoutNanos) {
        super("query_wait_timeout (" + TimeUnit.NANOSECONDS.toMillis(queryWaitTimeoutNanos) + " ms) passed while"
                + " the read waited for a standby to replay the client's last commit", null, false, false);
    }
}
