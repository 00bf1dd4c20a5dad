package io.pgmux.core.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counts of one pool's traffic that one thread alone writes, an event loop counting its clients' queries: a
 * plain add and an ordered store per count, where a {@link java.util.concurrent.atomic.LongAdder} takes an atomic
 * instruction (four per query, each draining the store buffer). Any thread may read them, as {@link TrafficStats}
 * does when it sums its totals: opaque reads of 64-bit fields, never torn, at most a count or two behind.
 */
public final class TrafficShard {
    private static final VarHandle XACT_COUNT;
    private static final VarHandle QUERY_COUNT;
    private static final VarHandle XACT_NANOS;
    private static final VarHandle QUERY_NANOS;
    private static final VarHandle RECEIVED;
    private static final VarHandle SENT;

    static {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            XACT_COUNT = lookup.findVarHandle(TrafficShard.class, "xactCount", long.class);
            QUERY_COUNT = lookup.findVarHandle(TrafficShard.class, "queryCount", long.class);
            XACT_NANOS = lookup.findVarHandle(TrafficShard.class, "xactNanos", long.class);
            QUERY_NANOS = lookup.findVarHandle(TrafficShard.class, "queryNanos", long.class);
            RECEIVED = lookup.findVarHandle(TrafficShard.class, "received", long.class);
            SENT = lookup.findVarHandle(TrafficShard.class, "sent", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Who writes: the key {@link TrafficStats#shardOf} found this shard by. */
    final Object writer;
    private long xactCount;
    private long queryCount;
    private long xactNanos;
    private long queryNanos;
    private long received;
    private long sent;
    /** The thread seen writing first, for the assertion that no other does. */
    private Thread writingThread;

    TrafficShard(Object writer) {
        this.writer = writer;
    }

    private boolean writtenByOneThread() {
        Thread current = Thread.currentThread();
        if (writingThread == null) {
            writingThread = current;
        }
        return writingThread == current;
    }

    /** As {@link TrafficStats#recordTransactionStart()}. */
    public void recordTransactionStart() {
        assert writtenByOneThread() : "a shard written by a second thread";
        XACT_COUNT.setOpaque(this, xactCount + 1);
    }

    /** As {@link TrafficStats#recordQueryStart()}. */
    public void recordQueryStart() {
        assert writtenByOneThread() : "a shard written by a second thread";
        QUERY_COUNT.setOpaque(this, queryCount + 1);
    }

    /** As {@link TrafficStats#recordTransactionTime(long)}. */
    public void recordTransactionTime(long nanos) {
        assert writtenByOneThread() : "a shard written by a second thread";
        if (nanos != 0) {
            XACT_NANOS.setOpaque(this, xactNanos + nanos);
        }
    }

    /** As {@link TrafficStats#recordQueryTime(long)}. */
    public void recordQueryTime(long nanos) {
        assert writtenByOneThread() : "a shard written by a second thread";
        if (nanos != 0) {
            QUERY_NANOS.setOpaque(this, queryNanos + nanos);
        }
    }

    /** As {@link TrafficStats#recordBytes(long, long)}. */
    public void recordBytes(long received, long sent) {
        assert writtenByOneThread() : "a shard written by a second thread";
        if (received != 0) {
            RECEIVED.setOpaque(this, this.received + received);
        }
        if (sent != 0) {
            SENT.setOpaque(this, this.sent + sent);
        }
    }

    long xactCount() {
        return (long) XACT_COUNT.getOpaque(this);
    }

    long queryCount() {
        return (long) QUERY_COUNT.getOpaque(this);
    }

    long xactNanos() {
        return (long) XACT_NANOS.getOpaque(this);
    }

    long queryNanos() {
        return (long) QUERY_NANOS.getOpaque(this);
    }

    long received() {
        return (long) RECEIVED.getOpaque(this);
    }

    long sent() {
        return (long) SENT.getOpaque(this);
    }
}
