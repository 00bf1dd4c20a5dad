package io.pgmux.proxy.transport;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place a proxy runs what blocks and so may not run on an event loop: host name lookups, building a
 * server TLS context, reading the password database for peer, RELOAD, SET, SHUTDOWN and the standalone process's
 * signals. A few daemon threads, made on demand and gone after a while idle, so an idle proxy keeps none; work
 * beyond them queues rather than piling up threads. Shut down with the proxy.
 */
public final class BlockingWork implements Executor {
    static final int THREADS = 4;
    private static final long IDLE_SECONDS = 30;
    private final AtomicInteger threadIds = new AtomicInteger();
    private final ThreadPoolExecutor threads = new ThreadPoolExecutor(THREADS, THREADS, IDLE_SECONDS,
            TimeUnit.SECONDS, new LinkedBlockingQueue<>(), this::thread);

    public BlockingWork() {
        threads.allowCoreThreadTimeOut(true);
    }

    private Thread thread(Runnable work) {
        Thread t = new Thread(work, "pgmux-blocking-" + threadIds.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    /** @throws java.util.concurrent.RejectedExecutionException once shut down */
    @Override
    public void execute(Runnable work) {
        threads.execute(work);
    }

    /** Takes no more work; what runs or queued still runs. Returns at once, so work may call it. */
    public void shutdown() {
        threads.shutdown();
    }

    /** Threads alive now, idle or not. */
    int threadCount() {
        return threads.getPoolSize();
    }
}
