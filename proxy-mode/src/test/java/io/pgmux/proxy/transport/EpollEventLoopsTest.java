package io.pgmux.proxy.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An idle epoll event loop sleeps until its next scheduled task, not until a deadline a second away. */
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
}
