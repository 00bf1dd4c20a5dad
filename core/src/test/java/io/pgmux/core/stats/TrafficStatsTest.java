package io.pgmux.core.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.pgmux.core.stats.TrafficStats.Averages;
import io.pgmux.core.stats.TrafficStats.Period;
import io.pgmux.core.stats.TrafficStats.Totals;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** PgBouncer's stat_add and calc_average, written once: totals add up, averages come from two snapshots. */
class TrafficStatsTest {
    private static final long TWO_SECONDS = TimeUnit.SECONDS.toNanos(2);

    @Test
    void totalsAddUpFieldByField() {
        Totals a = new Totals(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        Totals b = new Totals(100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200);
        Totals sum = a.plus(b);
        assertEquals(List.of(101L, 202L, 303L, 404L, 505L, 606L, 707L, 808L, 909L, 1010L, 1111L, 1212L), figures(sum));
    }

    @Test
    void averagesAreRatesPerSecondAndMeansOfWhatFinished() {
        Totals older = new Totals(10, 20, 5, 1_000, 2_000, 100, 200, 50, 4, 2, 8, 1);
        // 20 more transactions of 150 us, 40 more queries of 50 us, 4 assignments that waited 25 us, 3 bytes more in
        Totals newer = new Totals(30, 60, 9, 1_003, 10_000, 3_100, 2_200, 150, 10, 4, 38, 5);
        Averages a = newer.averagesSince(older, TWO_SECONDS);
        assertEquals(10, a.xactCount);
        assertEquals(20, a.queryCount);
        assertEquals(2, a.serverAssignmentCount);
        assertEquals(2, a.received, "1.5 bytes a second round to 2");
        assertEquals(4_000, a.sent);
        assertEquals(150, a.xactTimeMicros);
        assertEquals(50, a.queryTimeMicros);
        assertEquals(25, a.waitTimeMicros);
        assertEquals(3, a.clientParseCount);
        assertEquals(1, a.serverParseCount);
        assertEquals(15, a.bindCount);
        assertEquals(2, a.clientLoginCount);
    }

    @Test
    void aPeriodWithNothingFinishedHasMeansOfZero() {
        Totals same = new Totals(10, 20, 5, 1_000, 2_000, 100, 200, 50, 4, 2, 8, 1);
        Averages a = same.averagesSince(same, TWO_SECONDS);
        assertEquals(0, a.xactTimeMicros);
        assertEquals(0, a.queryTimeMicros);
        assertEquals(0, a.waitTimeMicros);
        assertEquals(0, a.xactCount);
    }

    @Test
    void periodsAddedUpAverageTheirSumsNotTheirAverages() {
        // one pool: 1 transaction of 100 us; the other: 3 of 300 us; together 4 of 250 us on average
        Period one = new Period(Totals.ZERO, new Totals(1, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0), TWO_SECONDS);
        Period other = new Period(Totals.ZERO, new Totals(3, 0, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0), TWO_SECONDS);
        Averages both = one.plus(other).averages();
        assertEquals(250, both.xactTimeMicros);
        assertEquals(2, both.xactCount);
    }

    @Test
    void aPoolWithNoClosedPeriodAddsNothing() {
        Period closed = new Period(Totals.ZERO, new Totals(4, 0, 0, 0, 0, 400, 0, 0, 0, 0, 0, 0), TWO_SECONDS);
        Averages a = closed.plus(Period.NONE).averages();
        assertEquals(2, a.xactCount);
        assertEquals(100, a.xactTimeMicros);
    }

    @Test
    void eachPeriodStartsWhereTheLastEnded() {
        TrafficStats stats = new TrafficStats();
        assertEquals(Period.NONE, stats.lastPeriod());
        stats.recordTransaction(TimeUnit.MICROSECONDS.toNanos(300));
        stats.rollPeriod(TWO_SECONDS);
        stats.recordTransaction(TimeUnit.MICROSECONDS.toNanos(100));
        stats.recordTransaction(TimeUnit.MICROSECONDS.toNanos(100));
        stats.rollPeriod(TWO_SECONDS);
        assertEquals(1, stats.lastPeriod().start().xactCount);
        assertEquals(3, stats.lastPeriod().end().xactCount);
        assertEquals(1, stats.averages().xactCount, "2 transactions in 2 s");
        assertEquals(100, stats.averages().xactTimeMicros, "only the second period's");
    }

    private static List<Long> figures(Totals t) {
        return List.of(t.xactCount, t.queryCount, t.serverAssignmentCount, t.received, t.sent, t.xactTimeMicros,
                t.queryTimeMicros, t.waitTimeMicros, t.clientParseCount, t.serverParseCount, t.bindCount,
                t.clientLoginCount);
    }

    @Test
    void eachWriterGetsOneShardOfItsOwn() {
        TrafficStats stats = new TrafficStats();
        Object loop = new Object();
        TrafficShard shard = stats.shardOf(loop);
        assertSame(shard, stats.shardOf(loop));
        assertNotSame(shard, stats.shardOf(new Object()));
    }

    @Test
    void theShardsCountsAreInTheTotalsBesideTheSharedOnes() {
        TrafficStats stats = new TrafficStats();
        TrafficShard shard = stats.shardOf(Thread.currentThread());
        shard.recordTransactionStart();
        shard.recordQueryStart();
        shard.recordQueryStart();
        shard.recordQueryTime(3_000);
        shard.recordTransactionTime(5_000);
        shard.recordBytes(10, 20);
        stats.recordTransaction(7_000);
        stats.recordQuery(1_000);
        stats.recordBytes(1, 2);
        Totals t = stats.totals();
        assertEquals(2, t.xactCount);
        assertEquals(3, t.queryCount);
        assertEquals(12, t.xactTimeMicros);
        assertEquals(4, t.queryTimeMicros);
        assertEquals(11, t.received);
        assertEquals(22, t.sent);
        assertEquals(2, stats.transactionCount());
        assertEquals(3, stats.queryCount());
    }

    @Test
    void shardsWrittenOnTheirOwnThreadsAllCount() throws InterruptedException {
        TrafficStats stats = new TrafficStats();
        int perThread = 100_000;
        Thread[] writers = new Thread[4];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = new Thread(() -> {
                TrafficShard shard = stats.shardOf(Thread.currentThread());
                for (int n = 0; n < perThread; n++) {
                    shard.recordQueryStart();
                    shard.recordBytes(1, 2);
                }
            });
            writers[i].start();
        }
        for (Thread w : writers) {
            w.join();
        }
        Totals t = stats.totals();
        assertEquals(4L * perThread, t.queryCount);
        assertEquals(4L * perThread, t.received);
        assertEquals(8L * perThread, t.sent);
    }
}
