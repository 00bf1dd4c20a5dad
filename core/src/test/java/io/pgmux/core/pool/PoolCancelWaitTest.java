package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Pool.cancelWait: a client cancels the request that waits for a server; no server is lent for it. */
class PoolCancelWaitTest {
    private final FakeConnector connector = new FakeConnector();
    private PoolRegistry<Conn> registry;

    @AfterEach
    void closeRegistry() {
        registry.close();
    }

    private Pool<Conn> poolOfOne() {
        registry = PoolRegistry.<Conn>builder().connector(connector)
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(1).build())
                .clock(new ManualClock()).janitorPeriod(Duration.ZERO).build();
        return registry.pool("app", "alice");
    }

    /** What a waiting client's callback was given. */
    private static final class Outcome implements BiConsumer<Lease<Conn>, Throwable> {
        final AtomicReference<Lease<Conn>> lease = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        @Override
        public void accept(Lease<Conn> l, Throwable f) {
            lease.set(l);
            failure.set(f);
        }
    }

    @Test
    void aCancelledWaitGetsACancellationAndTheNextWaiterTheServer() {
        Pool<Conn> pool = poolOfOne();
        Lease<Conn> held = pool.acquireAsync().toCompletableFuture().join();
        Outcome cancelled = new Outcome();
        Outcome next = new Outcome();
        pool.acquireAsync(null, cancelled);
        pool.acquireAsync(null, next);
        assertEquals(2, pool.view().snapshot().clWaiting);

        assertTrue(pool.cancelWait(cancelled));
        assertInstanceOf(CancellationException.class, cancelled.failure.get());
        assertEquals(1, pool.view().snapshot().clWaiting);

        held.release();
        assertNull(cancelled.lease.get(), "no server is lent for a cancelled wait");
        assertTrue(next.lease.get() != null, "the server goes to the next waiter");
    }

    @Test
    void aWaitAlreadyServedCannotBeCancelled() {
        Pool<Conn> pool = poolOfOne();
        Outcome served = new Outcome();
        pool.acquireAsync(null, served);
        assertFalse(pool.cancelWait(served));
        assertTrue(served.lease.get() != null);
    }
}
