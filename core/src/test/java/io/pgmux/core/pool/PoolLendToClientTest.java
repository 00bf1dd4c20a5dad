package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pool.tryAcquireFor and Pool.acquireWith: a server lent to the client object itself, without a Lease, under the
 * same rules as a lease (wait order, query_wait_timeout, the reserve, cancel, close, stats), ended only by that client.
 */
class PoolLendToClientTest {
    private final ManualClock clock = new ManualClock();
    private final FakeConnector connector = new FakeConnector();
    private PoolRegistry<Conn> registry;

    @AfterEach
    void closeRegistry() {
        registry.close();
    }

    private Pool<Conn> pool(Consumer<PoolConfig.Builder> settings) {
        PoolConfig.Builder b = PoolConfig.jdbcDefaults().serverCheckDelay(Duration.ofHours(1));
        settings.accept(b);
        registry = PoolRegistry.<Conn>builder().connector(connector).config(b.build()).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        return registry.pool("app", "alice");
    }

    /** A client as the proxy's: it holds what it is lent, and is called back the same way at every wait. */
    private static final class Client implements BiConsumer<LentServer<Conn>, Throwable> {
        LentServer<Conn> server;
        Throwable failure;
        int calls;
        final Waiter<Conn> waiter = Pool.waiter(this, this);

        @Override
        public void accept(LentServer<Conn> lent, Throwable f) {
            server = lent;
            failure = f;
            calls++;
        }

        void waitOn(Pool<Conn> pool) {
            pool.acquireWith(waiter, null);
        }

        void release() {
            assertTrue(server.release(this));
            server = null;
        }
    }

    /** An idle server, lent to the client at once, one it holds and releases itself. */
    private static Client holding(Pool<Conn> pool) {
        Client c = new Client();
        c.waitOn(pool);
        assertNotNull(c.server, "expected a server at once");
        return c;
    }

    @Test
    void tryAcquireForLendsAnIdleServerToTheClientItselfAndOnlyItCanEndTheLoan() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        holding(pool).release(); // one idle server
        Object client = new Object();

        LentServer<Conn> lent = pool.tryAcquireFor(client, null, clock.nanoTime());

        assertNotNull(lent);
        assertTrue(lent.isLentTo(client));
        assertFalse(lent.release(new Object()), "another object cannot end the loan");
        assertEquals(1, pool.getActiveConnections());
        assertTrue(lent.release(client));
        assertFalse(lent.release(client), "a loan ends once");
        assertEquals(1, pool.getIdleConnections());
        assertEquals(1, connector.opened.get(), "the server went back to be reused");
    }

    @Test
    void tryAcquireForGivesNothingWhileClientsWait() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client holder = holding(pool);
        Client waiting = new Client();
        waiting.waitOn(pool);
        holder.release();
        assertNotNull(waiting.server, "the waiter got the server given back");

        assertNull(pool.tryAcquireFor(new Object(), null, clock.nanoTime()));
    }

    @Test
    void aWaitingClientIsHandedTheReleasedServerLentToItself() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client holder = holding(pool);
        Conn conn = holder.server.connection();
        Client waiting = new Client();
        waiting.waitOn(pool);
        assertNull(waiting.server);
        assertEquals(1, pool.getThreadsAwaitingConnection());

        holder.release();

        assertSame(conn, waiting.server.connection());
        assertTrue(waiting.server.isLentTo(waiting));
        assertEquals(1, waiting.calls);
        assertEquals(0, pool.getThreadsAwaitingConnection());
    }

    @Test
    void clientsAndLeasesWaitingTogetherAreServedInArrivalOrder() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client holder = holding(pool);
        Client first = new Client();
        first.waitOn(pool);
        CompletableFuture<Lease<Conn>> second = pool.acquireAsync().toCompletableFuture();
        Client third = new Client();
        third.waitOn(pool);

        holder.release();
        assertNotNull(first.server);
        assertFalse(second.isDone());
        first.release();
        assertTrue(second.isDone());
        assertNull(third.server);
        second.join().release();
        assertNotNull(third.server);
    }

    @Test
    void aClientWaitingLongerThanQueryWaitTimeoutFailsAtTheJanitorsRun() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(2)));
        Client holder = holding(pool);
        Client waiting = new Client();
        waiting.waitOn(pool);

        clock.advance(Duration.ofSeconds(2));
        registry.runJanitor();

        assertInstanceOf(PoolTimeoutException.class, waiting.failure);
        assertEquals(0, pool.getThreadsAwaitingConnection());
        holder.release();
        assertNull(waiting.server, "no server is lent for a wait that failed");
        assertEquals(1, pool.getIdleConnections());
    }

    @Test
    void theReserveOpensForAClientWaitingReservePoolTimeout() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).reservePoolSize(1).reservePoolTimeout(Duration.ofSeconds(5)));
        holding(pool);
        Client waiting = new Client();
        waiting.waitOn(pool);

        clock.advance(Duration.ofMillis(4999));
        registry.runJanitor();
        assertNull(waiting.server);
        clock.advance(Duration.ofMillis(1));
        registry.runJanitor();

        assertNotNull(waiting.server);
        assertTrue(waiting.server.isLentTo(waiting));
        assertEquals(2, connector.opened.get());
    }

    @Test
    void aCancelledWaitGetsACancellationAndNoServer() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client holder = holding(pool);
        Client waiting = new Client();
        waiting.waitOn(pool);

        assertTrue(pool.cancelWait(waiting));

        assertInstanceOf(CancellationException.class, waiting.failure);
        holder.release();
        assertNull(waiting.server);
        assertEquals(1, pool.getIdleConnections());
    }

    @Test
    void closingThePoolFailsTheWaitingClientsAndNewWaitsFailAtOnce() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        holding(pool);
        Client waiting = new Client();
        waiting.waitOn(pool);

        pool.close();

        assertInstanceOf(PoolClosedException.class, waiting.failure);
        Client late = new Client();
        late.waitOn(pool);
        assertInstanceOf(PoolClosedException.class, late.failure);
        assertNull(pool.tryAcquireFor(new Object(), null, clock.nanoTime()));
    }

    @Test
    void aDiscardedServerClosesInsteadOfGoingBack() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client client = holding(pool);
        Conn conn = client.server.connection();

        assertTrue(client.server.discard(client, new IllegalStateException("broken")));

        assertTrue(conn.closed);
        assertEquals(0, pool.getTotalConnections());
    }

    @Test
    void aClientsOwnWaiterServesEveryWaitInTurn() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client holder = holding(pool);
        Client client = new Client();
        Waiter<Conn> waiter = Pool.waiter(client, client);

        for (int i = 1; i <= 3; i++) {
            pool.acquireWith(waiter, null);
            assertNull(client.server, "the server is held: the client waits");
            assertEquals(1, pool.getThreadsAwaitingConnection());
            holder.release();
            assertTrue(client.server.isLentTo(client));
            assertEquals(i, client.calls);
            // the two swap: the other waits for the client's server with its own new wait
            holder.waitOn(pool);
            client.release();
            assertNotNull(holder.server);
        }
    }

    @Test
    void aClientsOwnWaiterIsServedAtOnceWhenAServerIsFree() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client client = new Client();

        pool.acquireWith(Pool.waiter(client, client), null);

        assertTrue(client.server.isLentTo(client));
        assertEquals(0, pool.getThreadsAwaitingConnection());
    }

    @Test
    void aTimeoutJudgedOnAnEarlierWaitDoesNotEndTheNextOne() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(2)));
        Client holder = holding(pool);
        Client client = new Client();
        Waiter<Conn> waiter = Pool.waiter(client, client);
        pool.acquireWith(waiter, null);
        long firstWait = waiter.ticket();
        holder.release();
        client.release();
        holder = holding(pool);
        pool.acquireWith(waiter, null); // the second wait, begun at once

        clock.advance(Duration.ofSeconds(2));
        assertFalse(pool.waiters.fail(waiter, firstWait, new PoolTimeoutException("late", 0, null)));

        assertNull(client.failure, "the second wait goes on");
        assertEquals(1, pool.getThreadsAwaitingConnection());
        holder.release();
        assertTrue(client.server.isLentTo(client));
    }

    @Test
    void aClientsOwnWaiterTimesOutCancelsAndFailsOnCloseAsAnyWait() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(2)));
        holding(pool);
        Client client = new Client();
        Waiter<Conn> waiter = Pool.waiter(client, client);

        pool.acquireWith(waiter, null);
        clock.advance(Duration.ofSeconds(2));
        registry.runJanitor();
        assertInstanceOf(PoolTimeoutException.class, client.failure);

        pool.acquireWith(waiter, null);
        assertTrue(pool.cancelWait(client));
        assertInstanceOf(CancellationException.class, client.failure);

        pool.acquireWith(waiter, null);
        pool.close();
        assertInstanceOf(PoolClosedException.class, client.failure);
        pool.acquireWith(waiter, null);
        assertInstanceOf(PoolClosedException.class, client.failure, "a closed pool refuses the next wait at once");
        assertEquals(0, pool.getThreadsAwaitingConnection());
        assertNull(client.server);
    }

    @Test
    void loansToClientsCountAsServerAssignmentsWithTheirWait() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Client holder = holding(pool);
        Client waiting = new Client();
        waiting.waitOn(pool);
        clock.advance(Duration.ofMillis(30));
        holder.release();
        waiting.release();
        Object client = new Object();
        pool.tryAcquireFor(client, null, clock.nanoTime()).release(client);

        assertEquals(3, pool.traffic().totals().serverAssignmentCount);
        assertEquals(30_000, pool.getTotalWaitTimeMicros());
    }
}
