package io.pgmux.proxy.client;

import io.pgmux.core.stats.TrafficStats;

/**
 * One client's figures for SHOW STATS (PgBouncer's per-client stat counters): query and transaction times and
 * the bytes each way, kept on the client's loop and added to its pool's figures once the server is quiet.
 */
final class ClientTraffic {
    private final TrafficStats pool;
    private long queryStartNanos;
    private long xactStartNanos;
    private long bytesReceived;
    private long bytesSent;

    ClientTraffic(TrafficStats pool) {
        this.pool = pool;
    }

    /** The server was quiet and gets a request: a query starts, and a transaction unless one is open. */
    void queryStarted(long now) {
        queryStartNanos = now;
        if (xactStartNanos == 0) {
            xactStartNanos = now;
        }
    }

    void received(int bytes) {
        bytesReceived += bytes;
    }

    void sent(int bytes) {
        bytesSent += bytes;
    }

    /**
     * A ReadyForQuery ended a query. Once the server owes nothing more ({@code quiet}) the exchange's bytes
     * count, and its transaction when the server is {@code idle}; while more ReadyForQuery are due the next
     * query starts now.
     */
    void readyForQuery(long now, boolean idle, boolean quiet, boolean morePending) {
        pool.recordQuery(now - queryStartNanos);
        if (!quiet) {
            if (morePending) {
                queryStartNanos = now;
            }
            return;
        }
        if (idle) {
            pool.recordTransaction(now - xactStartNanos);
            xactStartNanos = 0;
        }
        pool.recordBytes(bytesReceived, bytesSent);
        bytesReceived = 0;
        bytesSent = 0;
    }
}
