package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.epoll.Epoll;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An idle epoll event loop sleeps until its next scheduled task, not until a deadline a second away; the relay's clock
 * ({@link LoopClock}) is read once per pass of the loop, and afresh in the next pass; a loop is never suspended, so
 * Netty does not time its passes.
 */
class EpollEventLoopsTest {
    private EpollEventLoops group;
    private EpollEventLoops.Loop loop;

    @BeforeEach
    void start() {
        assumeTrue(Epoll.isAvailable(), "epoll's native library");
        group = new EpollEventLoops(1);
        loop = (EpollEventLoops.Loop) group.next();
    }

    @AfterEach
    void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aLoopWithNothingScheduledHasNoDeadline() throws Exception {
        assertEquals(-1L, loop.submit(loop::deadlineNanos).get(10, TimeUnit.SECONDS));
    }

    @Test
    void aSleepingLoopRunsATaskScheduledFromAnotherThread() throws Exception {
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
        CountDownLatch ran = new CountDownLatch(1);
        loop.schedule(ran::countDown, 10, TimeUnit.MILLISECONDS);
        assertTrue(ran.await(10, TimeUnit.SECONDS), "the task scheduled while the loop slept did not run");
    }

    @Test
    void aLoopCannotBeSuspendedSoItTimesNoPass() throws Exception {
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
        // Netty times each pass over ready sockets only for a loop that may be suspended
        assertFalse(loop.trySuspend(), "a loop of the proxy accepted to be suspended");
        assertFalse(loop.isSuspended());
        assertTrue(loop.submit(() -> true).get(10, TimeUnit.SECONDS), "the loop runs tasks after the refusal");
    }

    @Test
    void everythingOnePassHandlesGetsOneTime() throws Exception {
        long[] times = loop.submit(() -> {
            long first = LoopClock.nanoTime(loop);
            long busy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
            while (System.nanoTime() < busy) {
                Thread.onSpinWait();
            }
            return new long[] {first, LoopClock.nanoTime(loop)};
        }).get(10, TimeUnit.SECONDS);
        assertEquals(times[0], times[1]);
    }

    @Test
    void theNextPassReadsTheClockAgain() throws Exception {
        long before = System.nanoTime();
        long first = loop.submit(() -> LoopClock.nanoTime(loop)).get(10, TimeUnit.SECONDS);
        Thread.sleep(5);
        // the loop waited for work between the two tasks: a pass of its own
        long second = loop.submit(() -> LoopClock.nanoTime(loop)).get(10, TimeUnit.SECONDS);
        assertTrue(first >= before, "the first pass read the clock when it ran");
        assertTrue(second - first >= TimeUnit.MILLISECONDS.toNanos(5), "the second pass kept the first's time");
    }

    @Test
    void anotherKindOfLoopReadsTheClockAtEveryCall() throws Exception {
        DefaultEventLoop other = new DefaultEventLoop();
        try {
            long[] times = other.submit(() -> {
                long first = LoopClock.nanoTime(other);
                Thread.sleep(2);
                return new long[] {first, LoopClock.nanoTime(other)};
            }).get(10, TimeUnit.SECONDS);
            assertTrue(times[1] - times[0] >= TimeUnit.MILLISECONDS.toNanos(2));
        } finally {
            other.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
