package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pool.acquireDedicated, the pool's side of PgBouncer's replication connections: a server of the client's own,
 * opened with its startup parameters, counted in pool_size, never given back to the pool.
 */
class PoolDedicatedServerTest {
    private static final Map<String, String> LOGICAL = Map.of("replication", "database");
    private final FakeConnector connector = new FakeConnector();
    private final ManualClock clock = new ManualClock();
    private PoolRegistry<Conn> registry;

    @AfterEach
    void closeRegistry() {
        registry.close();
    }

    private Pool<Conn> pool(int size) {
        registry = PoolRegistry.<Conn>builder().connector(connector)
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(size).queryWaitTimeout(Duration.ofSeconds(5))
                        .build())
                .clock(clock).janitorPeriod(Duration.ZERO).build();
        return registry.pool("app", "alice");
    }

    private static Lease<Conn> now(CompletableFuture<Lease<Conn>> f) {
        assertTrue(f.isDone(), "not served at once");
        return f.join();
    }

    @Test
    void itIsANewServerLoggedInWithTheClientsStartupParametersNotAnIdleOne() {
        Pool<Conn> pool = pool(4);
        Lease<Conn> ordinary = pool.acquireAsync().toCompletableFuture().join();
        Conn idle = ordinary.connection();
        ordinary.release();
        Lease<Conn> own = now(pool.acquireDedicated(LOGICAL).toCompletableFuture());
        assertNotSame(idle, own.connection());
        assertEquals(List.of(LOGICAL), connector.dedicatedStartups);
        assertEquals(1, pool.view().snapshot().svActive);
    }

    @Test
    void endingItsLeaseClosesItInsteadOfGivingItBack() {
        Pool<Conn> pool = pool(4);
        Lease<Conn> own = now(pool.acquireDedicated(LOGICAL).toCompletableFuture());
        own.release();
        assertTrue(own.connection().closed);
        assertEquals(0, pool.getTotalConnections());
        assertNotSame(own.connection(), pool.acquireAsync().toCompletableFuture().join().connection());
    }

    @Test
    void aFullPoolEvictsAnIdleServerToMakeRoomForIt() {
        Pool<Conn> pool = pool(1);
        Lease<Conn> ordinary = pool.acquireAsync().toCompletableFuture().join();
        Conn idle = ordinary.connection();
        ordinary.release();
        now(pool.acquireDedicated(LOGICAL).toCompletableFuture());
        assertTrue(idle.closed, "the idle server was not evicted");
        assertEquals(1, pool.getTotalConnections());
    }

    @Test
    void aPoolFullOfBusyServersMakesItWaitUntilOneGoesIdle() {
        Pool<Conn> pool = pool(1);
        Lease<Conn> busy = pool.acquireAsync().toCompletableFuture().join();
        CompletableFuture<Lease<Conn>> waiting = pool.acquireDedicated(LOGICAL).toCompletableFuture();
        assertFalse(waiting.isDone());
        assertEquals(1, pool.view().snapshot().clWaiting);
        busy.release();
        assertTrue(busy.connection().closed, "the server freed was not evicted for the waiting client");
        assertTrue(waiting.isDone());
        assertEquals(0, pool.view().snapshot().clWaiting);
    }

    @Test
    void aClientLeavingWhileItWaitsGivesUpItsPlace() {
        Pool<Conn> pool = pool(1);
        Lease<Conn> busy = pool.acquireAsync().toCompletableFuture().join();
        pool.acquireDedicated(LOGICAL).toCompletableFuture().cancel(false);
        assertEquals(0, pool.view().snapshot().clWaiting);
        busy.release();
        assertFalse(busy.connection().closed, "a server was evicted for a client gone");
        assertTrue(connector.dedicatedStartups.isEmpty(), "a server was opened for a client gone");
    }

    @Test
    void aWaitLongerThanQueryWaitTimeoutFails() {
        Pool<Conn> pool = pool(1);
        pool.acquireAsync().toCompletableFuture().join();
        CompletableFuture<Lease<Conn>> waiting = pool.acquireDedicated(LOGICAL).toCompletableFuture();
        clock.advance(Duration.ofSeconds(6));
        pool.maintain();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, waiting::get);
        assertInstanceOf(PoolTimeoutException.class, e.getCause());
    }

    @Test
    void aRefusedLoginFailsItsClientOnlyAndOrdinaryLoginsGoOn() {
        Pool<Conn> pool = pool(2);
        connector.failLogins = new IllegalStateException("permission denied to start WAL sender");
        CompletableFuture<Lease<Conn>> refused = pool.acquireDedicated(LOGICAL).toCompletableFuture();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, refused::get);
        assertEquals("permission denied to start WAL sender", e.getCause().getMessage());
        assertEquals(0, pool.getTotalConnections());
        connector.failLogins = null;
        assertTrue(pool.acquireAsync().toCompletableFuture().isDone(), "the pool held back its logins");
    }
}
