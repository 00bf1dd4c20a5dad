package io.pgmux.core.stats;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The SHOW STATS totals of one pool: LongAdders, so recording from many threads never contends on a
 * lock, plus one {@link TrafficShard} per event loop for the counts of each query its clients run. Averages are computed per stats period from two totals, as PgBouncer does: {@link Totals} is its
 * {@code PgStats}, with {@code stat_add} ({@link Totals#plus}) and {@code calc_average}
 * ({@link Totals#averagesSince}); the registry's janitor closes every {@link Period} at once.
 */
public final class TrafficStats {
    private final LongAdder xactCount = new LongAdder();
    private final LongAdder queryCount = new LongAdder();
    private final LongAdder serverAssignmentCount = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder xactNanos = new LongAdder();
    private final LongAdder queryNanos = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private final LongAdder clientParseCount = new LongAdder();
    private final LongAdder serverParseCount = new LongAdder();
    private final LongAdder bindCount = new LongAdder();
    private final LongAdder clientLoginCount = new LongAdder();

    /** Assignments counted elsewhere (by the pool's server connections) and added to the totals. */
    private final LongSupplier countedElsewhere;

    private volatile Period lastPeriod = Period.NONE;
    /** One per writer that asked ({@link #shardOf}); copied on the rare add, read by every sum. */
    private volatile TrafficShard[] shards = new TrafficShard[0];

    public TrafficStats() {
        this(() -> 0L);
    }

    /** Stats whose server assignment count includes {@code countedElsewhere}'s. */
    public TrafficStats(LongSupplier countedElsewhere) {
        this.countedElsewhere = countedElsewhere;
    }

    /** A transaction finished after {@code nanos} on a server connection: counted and timed at once. */
    public void recordTransaction(long nanos) {
        recordTransactionStart();
        recordTransactionTime(nanos);
    }

    /** A query finished after {@code nanos}: counted and timed at once. */
    public void recordQuery(long nanos) {
        recordQueryStart();
        recordQueryTime(nanos);
    }

    /** A transaction began: PgBouncer counts it then, so that one still open is counted too. */
    public void recordTransactionStart() {
        xactCount.increment();
    }

    /** A transaction counted when it began ended after {@code nanos}. */
    public void recordTransactionTime(long nanos) {
        if (nanos != 0) {
            xactNanos.add(nanos);
        }
    }

    /** A query began: PgBouncer counts it then, so that one still running is counted too. */
    public void recordQueryStart() {
        queryCount.increment();
    }

    /** A query counted when it began ended after {@code nanos}. */
    public void recordQueryTime(long nanos) {
        if (nanos != 0) {
            queryNanos.add(nanos);
        }
    }

    /** Bytes received from clients and sent to clients. */
    public void recordBytes(long received, long sent) {
        if (received != 0) {
            bytesReceived.add(received);
        }
        if (sent != 0) {
            bytesSent.add(sent);
        }
    }

    /** A client got a server connection after waiting {@code nanos} for it (0 if it did not wait). */
    public void recordAssignment(long waitedNanos) {
        serverAssignmentCount.increment();
        if (waitedNanos > 0) {
            waitNanos.add(waitedNanos);
        }
    }

    /** A client that had to wait got a server connection after {@code nanos}; the assignment is counted elsewhere. */
    public void recordWait(long waitedNanos) {
        if (waitedNanos > 0) {
            waitNanos.add(waitedNanos);
        }
    }

    /** A client prepared a named statement (PgBouncer's prepared statement tracking, max_prepared_statements). */
    public void recordClientParse() {
        clientParseCount.increment();
    }

    /** The pooler prepared a named statement on a server for a client. */
    public void recordServerParse() {
        serverParseCount.increment();
    }

    /** A client bound a named statement the pooler tracks, and the Bind went to a server. */
    public void recordBind() {
        bindCount.increment();
    }

    /** A client logged in to the pool. */
    public void recordClientLogin() {
        clientLoginCount.increment();
    }

    /**
     * The shard that {@code writer} (an event loop, or a thread) alone records into, made at its first call: the
     * writer keeps it, so this runs once per writer and pool, not per count.
     */
    public TrafficShard shardOf(Object writer) {
        for (TrafficShard s : shards) {
            if (s.writer == writer) {
                return s;
            }
        }
        synchronized (this) {
            TrafficShard[] now = shards;
            for (TrafficShard s : now) {
                if (s.writer == writer) {
                    return s;
                }
            }
            TrafficShard made = new TrafficShard(writer);
            TrafficShard[] more = Arrays.copyOf(now, now.length + 1);
            more[now.length] = made;
            shards = more;
            return made;
        }
    }

    /** Transactions so far; reads one counter and the shards' share of it, unlike {@link #totals()}. */
    public long transactionCount() {
        long n = xactCount.sum();
        for (TrafficShard s : shards) {
            n += s.xactCount();
        }
        return n;
    }

    /** Queries so far; reads one counter and the shards' share of it, unlike {@link #totals()}. */
    public long queryCount() {
        long n = queryCount.sum();
        for (TrafficShard s : shards) {
            n += s.queryCount();
        }
        return n;
    }

    /** Microseconds clients spent waiting for a server so far; reads one counter, unlike {@link #totals()}. */
    public long waitTimeMicros() {
        return micros(waitNanos.sum());
    }

    public Totals totals() {
        long assignments = serverAssignmentCount.sum() + countedElsewhere.getAsLong();
        long xacts = xactCount.sum();
        long queries = queryCount.sum();
        long received = bytesReceived.sum();
        long sent = bytesSent.sum();
        long xactTime = xactNanos.sum();
        long queryTime = queryNanos.sum();
        for (TrafficShard s : shards) {
            xacts += s.xactCount();
            queries += s.queryCount();
            received += s.received();
            sent += s.sent();
            xactTime += s.xactNanos();
            queryTime += s.queryNanos();
        }
        return new Totals(xacts, queries, assignments, received, sent, micros(xactTime), micros(queryTime),
                micros(waitNanos.sum()), clientParseCount.sum(), serverParseCount.sum(), bindCount.sum(),
                clientLoginCount.sum());
    }

    /** Closes a stats period of {@code periodNanos}, begun where the last one ended; it is then the last. */
    public void rollPeriod(long periodNanos) {
        lastPeriod = new Period(lastPeriod.end, totals(), periodNanos);
    }

    /** The last completed stats period ({@link Period#NONE} until one has completed). */
    public Period lastPeriod() {
        return lastPeriod;
    }

    /** Averages over the last completed stats period (zero until one has completed). */
    public Averages averages() {
        return lastPeriod.averages();
    }

    private static long micros(long nanos) {
        return TimeUnit.NANOSECONDS.toMicros(nanos);
    }

    /** Totals since the pool was created; times in microseconds, as SHOW STATS prints them. */
    public static final class Totals {
        public static final Totals ZERO = new Totals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        public final long xactCount;
        public final long queryCount;
        public final long serverAssignmentCount;
        public final long received;
        public final long sent;
        public final long xactTimeMicros;
        public final long queryTimeMicros;
        public final long waitTimeMicros;
        public final long clientParseCount;
        public final long serverParseCount;
        public final long bindCount;
        public final long clientLoginCount;

        public Totals(long xactCount, long queryCount, long serverAssignmentCount, long received, long sent,
                      long xactTimeMicros, long queryTimeMicros, long waitTimeMicros, long clientParseCount,
                      long serverParseCount, long bindCount, long clientLoginCount) {
            this.clientParseCount = clientParseCount;
            this.serverParseCount = serverParseCount;
            this.bindCount = bindCount;
            this.clientLoginCount = clientLoginCount;
            this.xactCount = xactCount;
            this.queryCount = queryCount;
            this.serverAssignmentCount = serverAssignmentCount;
            this.received = received;
            this.sent = sent;
            this.xactTimeMicros = xactTimeMicros;
            this.queryTimeMicros = queryTimeMicros;
            this.waitTimeMicros = waitTimeMicros;
        }

        /** PgBouncer's stat_add: these and {@code other}'s, field by field. */
        public Totals plus(Totals other) {
            return new Totals(xactCount + other.xactCount, queryCount + other.queryCount,
                    serverAssignmentCount + other.serverAssignmentCount, received + other.received, sent + other.sent,
                    xactTimeMicros + other.xactTimeMicros, queryTimeMicros + other.queryTimeMicros,
                    waitTimeMicros + other.waitTimeMicros, clientParseCount + other.clientParseCount,
                    serverParseCount + other.serverParseCount, bindCount + other.bindCount,
                    clientLoginCount + other.clientLoginCount);
        }

        /**
         * PgBouncer's calc_average: from {@code older} to these, over {@code periodNanos}, counts and bytes per
         * second (rounded) and times as the mean duration of what finished in between (what SHOW STATS_AVERAGES
         * and the log_stats line show).
         */
        public Averages averagesSince(Totals older, long periodNanos) {
            double seconds = Math.max(periodNanos, 1) / 1e9;
            long xacts = xactCount - older.xactCount;
            long queries = queryCount - older.queryCount;
            long assignments = serverAssignmentCount - older.serverAssignmentCount;
            return new Averages(
                    perSecond(xacts, seconds),
                    perSecond(queries, seconds),
                    perSecond(assignments, seconds),
                    perSecond(received - older.received, seconds),
                    perSecond(sent - older.sent, seconds),
                    mean(xactTimeMicros - older.xactTimeMicros, xacts),
                    mean(queryTimeMicros - older.queryTimeMicros, queries),
                    mean(waitTimeMicros - older.waitTimeMicros, assignments),
                    perSecond(clientParseCount - older.clientParseCount, seconds),
                    perSecond(serverParseCount - older.serverParseCount, seconds),
                    perSecond(bindCount - older.bindCount, seconds),
                    perSecond(clientLoginCount - older.clientLoginCount, seconds));
        }

        private static long perSecond(long count, double seconds) {
            return Math.round(count / seconds);
        }

        private static long mean(long micros, long count) {
            return count == 0 ? 0 : micros / count;
        }
    }

    /**
     * One stats period: the totals at its start and at its end, and its length. Periods closed together (the
     * janitor closes all of a registry's at once) add up as PgBouncer adds pools: both ends summed, so that the
     * averages of a database or of everything are computed from the sums, never averaged again.
     */
    public record Period(Totals start, Totals end, long nanos) {
        /** No period closed yet: averages of zero. */
        public static final Period NONE = new Period(Totals.ZERO, Totals.ZERO, 0);

        /** This period and {@code other}, closed at the same time; one with none closed yet adds nothing. */
        public Period plus(Period other) {
            return new Period(start.plus(other.start), end.plus(other.end), Math.max(nanos, other.nanos));
        }

        public Averages averages() {
            return end.averagesSince(start, nanos);
        }
    }

    /**
     * PgBouncer's avg_* columns: counts and bytes per second over the period, times as the mean duration
     * (microseconds) of what finished in it.
     */
    public static final class Averages {
        public final long xactCount;
        public final long queryCount;
        public final long serverAssignmentCount;
        public final long received;
        public final long sent;
        public final long xactTimeMicros;
        public final long queryTimeMicros;
        public final long waitTimeMicros;
        public final long clientParseCount;
        public final long serverParseCount;
        public final long bindCount;
        public final long clientLoginCount;

        Averages(long xactCount, long queryCount, long serverAssignmentCount, long received, long sent,
                 long xactTimeMicros, long queryTimeMicros, long waitTimeMicros, long clientParseCount,
                 long serverParseCount, long bindCount, long clientLoginCount) {
            this.clientParseCount = clientParseCount;
            this.serverParseCount = serverParseCount;
            this.bindCount = bindCount;
            this.clientLoginCount = clientLoginCount;
            this.xactCount = xactCount;
            this.queryCount = queryCount;
            this.serverAssignmentCount = serverAssignmentCount;
            this.received = received;
            this.sent = sent;
            this.xactTimeMicros = xactTimeMicros;
            this.queryTimeMicros = queryTimeMicros;
            this.waitTimeMicros = waitTimeMicros;
        }
    }
}
