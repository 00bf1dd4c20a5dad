package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import io.pgmux.core.stats.PoolSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Many threads borrowing and returning at once, blocking and asynchronous, through leases and as lent to
 * a client, with the janitor running: a connection never has two holders, every client is served, and
 * the books balance at the end.
 */
class PoolConcurrencyTest {
    private static final int THREADS = 32;
    private static final long RUN_MILLIS = 1_500;

    @Test
    void noConnectionIsEverHeldByTwoClientsAndNothingLeaks() throws Exception {
        FakeConnector connector = new FakeConnector();
        PoolConfig config = PoolConfig.jdbcDefaults().defaultPoolSize(4).reservePoolSize(2)
                .reservePoolTimeout(Duration.ofMillis(5)).serverCheckDelay(Duration.ofMillis(2))
                .serverIdleTimeout(Duration.ofMillis(20)).minPoolSize(1).queryWaitTimeout(Duration.ofSeconds(10))
                .build();
        PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(connector).config(config)
                .janitorPeriod(Duration.ZERO).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        // The janitor runs beside the clients, and is stopped before the books are checked.
        AtomicBoolean clientsRunning = new AtomicBoolean(true);
        Thread janitor = new Thread(() -> {
            while (clientsRunning.get()) {
                registry.runJanitor();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
            }
        }, "test-janitor");
        janitor.start();

        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicLong borrows = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int kind = t % 3;
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        if (kind == 2) {
                            borrowForSelf(pool, errors);
                        } else {
                            Lease<Conn> lease = kind == 0
                                    ? pool.acquireAsync().toCompletableFuture().get(10, TimeUnit.SECONDS)
                                    : pool.acquire();
                            use(lease.connection(), errors);
                            if (ThreadLocalRandom.current().nextInt(200) == 0) {
                                lease.discard(new IllegalStateException("simulated broken connection"));
                            } else {
                                lease.release();
                            }
                        }
                        borrows.incrementAndGet();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    done.countDown();
                }
            }, "client-" + t);
            thread.start();
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), "clients finished");
        clientsRunning.set(false);
        janitor.join();
        assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        assertTrue(borrows.get() > THREADS * 10L, "work was done: " + borrows.get());

        PoolSnapshot s = pool.view().snapshot();
        assertEquals(0, s.svActive);
        assertEquals(0, s.clWaiting);
        assertEquals(pool.getTotalConnections(), s.svIdle + s.svUsed + s.svTested + s.svLogin);
        assertEquals(connector.live(), pool.getTotalConnections(), "the pool knows every open connection");
        assertTrue(pool.getTotalConnections() <= 6, "never above pool size + reserve");
        assertEquals(borrows.get(), pool.traffic().totals().serverAssignmentCount);

        pool.close().toCompletableFuture().get(5, TimeUnit.SECONDS);
        registry.close();
        assertEquals(connector.opened.get(), connector.closedCount.get(), "every connection opened was closed");
    }

    /** A loan to the thread's own client object; ending it a second time must do nothing. */
    private static void borrowForSelf(Pool<Conn> pool, ConcurrentLinkedQueue<Throwable> errors)
            throws InterruptedException {
        Object client = Thread.currentThread();
        LentServer<Conn> lent = pool.acquireFor(client);
        use(lent.connection(), errors);
        boolean ended = ThreadLocalRandom.current().nextInt(200) == 0
                ? lent.discard(client, new IllegalStateException("simulated broken connection"))
                : lent.release(client);
        if (!ended || lent.release(client)) {
            errors.add(new AssertionError(lent + " ended " + (ended ? "twice" : "never")));
        }
    }

    private static void use(Conn c, ConcurrentLinkedQueue<Throwable> errors) {
        if (c.closed) {
            errors.add(new AssertionError(c + " handed out after it was closed"));
        }
        if (c.holders.incrementAndGet() != 1) {
            errors.add(new AssertionError(c + " held by two clients at once"));
        }
        Thread.onSpinWait();
        if (ThreadLocalRandom.current().nextInt(8) == 0) {
            Thread.yield();
        }
        c.holders.decrementAndGet();
    }

    @Test
    void everyClientOfAnOverloadedPoolIsServedInTime() throws Exception {
        FakeConnector connector = new FakeConnector();
        PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(connector)
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(2).build()).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        List<CompletableFuture<Lease<Conn>>> waits = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            waits.add(pool.acquireAsync().toCompletableFuture());
        }
        int served = 0;
        for (CompletableFuture<Lease<Conn>> w : waits) {
            Lease<Conn> l = w.get(5, TimeUnit.SECONDS);
            served++;
            l.release();
        }
        assertEquals(500, served);
        assertEquals(2, connector.opened.get());
        registry.close();
    }
}
