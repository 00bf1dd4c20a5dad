package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The proxy's one executor for what blocks: a few named daemon threads, the rest queued, none once shut down. */
class BlockingWorkTest {

    @Test
    void moreWorkThanThreadsQueuesOnAFewNamedDaemonThreads() throws Exception {
        BlockingWork work = new BlockingWork();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<CompletableFuture<Thread>> done = new ArrayList<>();
        for (int i = 0; i < BlockingWork.THREADS * 3; i++) {
            done.add(CompletableFuture.supplyAsync(() -> {
                mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                awaitUninterruptibly(release);
                running.decrementAndGet();
                return Thread.currentThread();
            }, work));
        }
        release.countDown();
        for (CompletableFuture<Thread> each : done) {
            Thread thread = each.get(10, TimeUnit.SECONDS);
            assertTrue(thread.isDaemon(), thread.getName());
            assertTrue(thread.getName().startsWith("pgmux-blocking-"), thread.getName());
        }
        assertTrue(mostAtOnce.get() <= BlockingWork.THREADS, "at once: " + mostAtOnce.get());
        assertEquals(BlockingWork.THREADS, work.threadCount());
        work.shutdown();
    }

    @Test
    void workQueuedBeforeShutdownStillRunsAndLaterWorkIsRefused() throws Exception {
        BlockingWork work = new BlockingWork();
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Void>> queued = new ArrayList<>();
        for (int i = 0; i < BlockingWork.THREADS + 2; i++) {
            queued.add(CompletableFuture.runAsync(() -> awaitUninterruptibly(release), work));
        }
        work.shutdown();
        release.countDown();
        CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThrows(RejectedExecutionException.class, () -> work.execute(() -> { }));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
