package io.pgmux.proxy.client;

import io.netty.channel.EventLoop;
import io.pgmux.core.stats.TrafficShard;
import io.pgmux.core.stats.TrafficStats;

/**
 * One client's figures for SHOW STATS (PgBouncer's per-client stat counters): queries and transactions, counted
 * in its pool's figures as they begin, their times, and the bytes each way, kept on the client's loop and added
 * to its pool's figures once the server is quiet: to its loop's share of them, which only that loop writes.
 */
final class ClientTraffic {
    private final TrafficShard pool;
    private long queryStartNanos;
    private long xactStartNanos;
    private long bytesReceived;
    private long bytesSent;

    /** Counts into {@code pool}'s figures from {@code loop}, the client's event loop, which alone calls this. */
    ClientTraffic(TrafficStats pool, EventLoop loop) {
        this.pool = pool.shardOf(loop);
    }

    /**
     * The server was quiet and gets a request: a query starts, and a transaction unless one is open. Both count
     * now, as PgBouncer counts them when the client's first message arrives, so that SHOW STATS counts an open
     * transaction; their times count when they end.
     */
    void queryStarted(long now) {
        queryStartNanos = now;
        pool.recordQueryStart();
        if (xactStartNanos == 0) {
            xactStartNanos = now;
            pool.recordTransactionStart();
        }
    }

    void received(int bytes) {
        bytesReceived += bytes;
    }

    void sent(int bytes) {
        bytesSent += bytes;
    }

    /**
     * A ReadyForQuery came. Once the server owes nothing more ({@code quiet}) the query ends, however many
     * ReadyForQuery the client's pipeline asked for (PgBouncer's one query per busy spell), the exchange's bytes
     * count, and the transaction ends when the server is {@code idle}.
     */
    void readyForQuery(long now, boolean idle, boolean quiet) {
        if (!quiet) {
            return;
        }
        pool.recordQueryTime(now - queryStartNanos);
        if (idle) {
            pool.recordTransactionTime(now - xactStartNanos);
            xactStartNanos = 0;
        }
        pool.recordBytes(bytesReceived, bytesSent);
        bytesReceived = 0;
        bytesSent = 0;
    }
}
