package io.pgmux.jmh.load;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One round of one contender: its threads run requests back to back through a warm-up and then a
 * measurement window; only requests that end inside the window count, with their latency from taking
 * the connection (queueing for it included) to giving it back.
 */
final class LoadRun {
    private final Contender contender;
    private final int warmupSeconds;
    private final int measureSeconds;

    private volatile long windowStart;
    private volatile long windowEnd;
    private volatile boolean stopped;

    LoadRun(Contender contender, int warmupSeconds, int measureSeconds) {
        this.contender = contender;
        this.warmupSeconds = warmupSeconds;
        this.measureSeconds = measureSeconds;
    }

    RoundResult run() throws SQLException, InterruptedException {
        int n = contender.threads();
        try (Variant variant = contender.variant().create()) {
            warmClasses(variant);
            List<Worker> workers = new ArrayList<>(n);
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Throwable> setupFailure = new AtomicReference<>();
            for (int i = 0; i < n; i++) {
                Worker w = new Worker(variant, ready, go, setupFailure);
                w.thread = contender.kind().make(w, "load-" + i);
                workers.add(w);
                w.thread.start();
            }
            ready.await();
            if (setupFailure.get() != null) {
                stopped = true;
                go.countDown();
                join(workers);
                throw new SQLException("a load thread could not start: " + setupFailure.get(), setupFailure.get());
            }
            long now = System.nanoTime();
            windowStart = now + TimeUnit.SECONDS.toNanos(warmupSeconds);
            windowEnd = windowStart + TimeUnit.SECONDS.toNanos(measureSeconds);
            go.countDown();
            TimeUnit.NANOSECONDS.sleep(windowEnd - System.nanoTime());
            stopped = true;
            join(workers);
            return result(workers);
        }
    }

    /**
     * Runs one request on this (platform) thread before the load starts, so that the classes it needs are
     * loaded and initialised here: thousands of virtual threads meeting a class's first use at once would
     * each wait for its loading, pinning their carrier threads, which says nothing about the pool.
     */
    private void warmClasses(Variant variant) throws SQLException, InterruptedException {
        try (Borrower borrower = variant.borrower()) {
            contender.workload().request(borrower, ThreadLocalRandom.current());
        }
    }

    private static void join(List<Worker> workers) throws InterruptedException {
        for (Worker w : workers) {
            w.thread.join();
        }
    }

    private RoundResult result(List<Worker> workers) {
        List<long[]> parts = new ArrayList<>(workers.size());
        long errors = 0;
        String firstError = null;
        for (Worker w : workers) {
            parts.add(w.latencies.toArray());
            errors += w.errors;
            if (firstError == null && w.firstError != null) {
                firstError = w.firstError;
            }
        }
        long[] all = LatencyLog.merge(parts);
        return new RoundResult(all.length, errors, measureSeconds, all, firstError);
    }

    private final class Worker implements Runnable {
        private final Variant variant;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        private final AtomicReference<Throwable> setupFailure;
        private final LatencyLog latencies = new LatencyLog();
        private long errors;
        private String firstError;
        Thread thread;

        Worker(Variant variant, CountDownLatch ready, CountDownLatch go, AtomicReference<Throwable> setupFailure) {
            this.variant = variant;
            this.ready = ready;
            this.go = go;
            this.setupFailure = setupFailure;
        }

        @Override
        public void run() {
            Borrower borrower;
            try {
                borrower = variant.borrower();
            } catch (SQLException | RuntimeException e) {
                setupFailure.compareAndSet(null, e);
                ready.countDown();
                return;
            }
            ready.countDown();
            try (borrower) {
                go.await();
                loop(borrower);
            } catch (SQLException e) {
                firstError = "closing: " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void loop(Borrower borrower) throws InterruptedException {
            Workload workload = contender.workload();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (!stopped) {
                long begin = System.nanoTime();
                Exception failure = null;
                try {
                    workload.request(borrower, random);
                } catch (SQLException | RuntimeException e) {
                    failure = e;
                }
                long end = System.nanoTime();
                if (end >= windowStart && end < windowEnd) {
                    if (failure == null) {
                        latencies.add(end - begin);
                    } else {
                        errors++;
                        if (firstError == null) {
                            firstError = failure.toString();
                        }
                    }
                }
            }
        }
    }
}
