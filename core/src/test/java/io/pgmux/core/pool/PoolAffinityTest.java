package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Affinity (a proxy's event loops): a client gets a server connection bound to its own loop when one is free,
 * and FIFO order among waiting clients gives way to it only boundedly.
 */
class PoolAffinityTest {
    private static final String A = "loop-a";
    private static final String B = "loop-b";

    private final ManualClock clock = new ManualClock();
    private final FakeConnector connector = new FakeConnector();
    private PoolRegistry<Conn> registry;

    @AfterEach
    void closeRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    /** A pool of {@code size} connections, opened and idle, alternating affinities A, B, A, B… */
    private Pool<Conn> warmPool(int size) {
        connector.affinities = new Object[] {A, B};
        PoolConfig config = PoolConfig.jdbcDefaults().serverCheckDelay(Duration.ofHours(1)).defaultPoolSize(size)
                .build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        List<Lease<Conn>> held = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            held.add(pool.acquireAsync().toCompletableFuture().join());
        }
        held.forEach(Lease::release);
        return pool;
    }

    private static Lease<Conn> served(CompletionStage<Lease<Conn>> stage) {
        CompletableFuture<Lease<Conn>> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "expected this client to have been served");
        return f.join();
    }

    private static void waiting(CompletionStage<Lease<Conn>> stage) {
        assertFalse(stage.toCompletableFuture().isDone(), "expected this client to be still waiting");
    }

    @Test
    void anIdleServerOfTheClientsAffinityIsTakenFirst() {
        Pool<Conn> pool = warmPool(4);
        for (int i = 0; i < 2; i++) {
            assertEquals(B, pool.tryAcquire(B).connection().affinity);
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(A, pool.tryAcquire(B).connection().affinity, "with no B left, any idle server serves");
        }
        assertNull(pool.tryAcquire(B), "nothing idle any more");
    }

    @Test
    void tryAcquireDoesNotJumpAheadOfWaitingClients() {
        Pool<Conn> pool = warmPool(1);
        Lease<Conn> held = pool.tryAcquire(A);
        CompletionStage<Lease<Conn>> first = pool.acquireAsync(A);
        waiting(first);
        held.release();
        served(first).release();
        assertNotNull(pool.tryAcquire(A), "once nobody waits, tryAcquire takes the idle server");
    }

    @Test
    void tryAcquireAtAGivenTimeLendsAtThatTime() {
        Pool<Conn> pool = warmPool(1);
        long readBefore = clock.nanoTime() - 5_000;
        Lease<Conn> lease = pool.tryAcquire(A, readBefore);
        assertEquals(readBefore, lease.borrowedAtNanos(), "the loan starts at the time the caller read");
    }

    @Test
    void aReleasedServerGoesToAWaiterOfItsAffinityAheadOfOlderWaitersOfAnother() {
        Pool<Conn> pool = warmPool(2);
        Lease<Conn> onA = pool.tryAcquire(A);
        Lease<Conn> onB = pool.tryAcquire(B);
        assertEquals(A, onA.connection().affinity);
        assertEquals(B, onB.connection().affinity);
        CompletionStage<Lease<Conn>> olderOnA = pool.acquireAsync(A);
        CompletionStage<Lease<Conn>> youngerOnB = pool.acquireAsync(B);

        onB.release();

        served(youngerOnB);
        waiting(olderOnA);
        onA.release();
        assertEquals(A, served(olderOnA).connection().affinity);
    }

    @Test
    void aWaiterPassedOverMaxPassedOverTimesIsServedInTurn() {
        Pool<Conn> pool = warmPool(2);
        Lease<Conn> onA = pool.tryAcquire(A);
        Lease<Conn> onB = pool.tryAcquire(B);
        CompletionStage<Lease<Conn>> oldestOnA = pool.acquireAsync(A);
        for (int round = 0; round < WaitQueue.MAX_PASSED_OVER; round++) {
            CompletionStage<Lease<Conn>> onBWaiter = pool.acquireAsync(B);
            onB.release();
            onB = served(onBWaiter);
            waiting(oldestOnA);
        }
        CompletionStage<Lease<Conn>> nextOnB = pool.acquireAsync(B);
        onB.release();

        Lease<Conn> got = served(oldestOnA);
        assertEquals(B, got.connection().affinity, "the oldest waiter takes a server of another affinity now");
        waiting(nextOnB);
        onA.release();
        served(nextOnB);
    }

    @Test
    void waitersWithoutAffinityAreServedOldestFirst() {
        Pool<Conn> pool = warmPool(1);
        Lease<Conn> held = pool.tryAcquire(null);
        CompletionStage<Lease<Conn>> first = pool.acquireAsync();
        CompletionStage<Lease<Conn>> second = pool.acquireAsync();
        held.release();
        served(first);
        waiting(second);
    }
}
