package io.pgmux.jmh.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.jmh.stub.StubConnection;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** The pools the cycle benchmark compares start full and get every borrowed connection back. */
class PoolCycleTest {

    @Test
    void pgmuxStartsWithEveryConnectionOpenAndIdle() {
        try (PoolRegistry<StubConnection> registry = ComparedPools.pgmux(4)) {
            Pool<StubConnection> pool = ComparedPools.pgmuxPool(registry);
            assertEquals(4, pool.getTotalConnections());
            assertEquals(4, pool.getIdleConnections());
        }
    }

    @Test
    void pgmuxCycleLendsAnOpenStubConnectionAndTakesItBack() throws Exception {
        PoolRegistry<StubConnection> registry = ComparedPools.pgmux(4);
        try (PgmuxCycle cycle = new PgmuxCycle(registry)) {
            StubConnection connection = assertInstanceOf(StubConnection.class, cycle.borrowAndReturn());
            assertFalse(connection.isClosed());
            assertEquals(4, ComparedPools.pgmuxPool(registry).getIdleConnections());
        }
    }

    @Test
    void pgmuxAsyncCycleLendsAnOpenStubConnectionAndTakesItBack() throws Exception {
        PoolRegistry<StubConnection> registry = ComparedPools.pgmux(4);
        try (PgmuxAsyncCycle cycle = new PgmuxAsyncCycle(registry)) {
            StubConnection connection = assertInstanceOf(StubConnection.class, cycle.borrowAndReturn());
            assertFalse(connection.isClosed());
            assertEquals(4, ComparedPools.pgmuxPool(registry).getIdleConnections());
        }
    }

    @Test
    void hikariStartsWithEveryConnectionOpenAndIdle() {
        try (HikariDataSource ds = ComparedPools.hikari(4)) {
            assertEquals(4, ds.getHikariPoolMXBean().getIdleConnections());
        }
    }

    @Test
    void hikariCycleClosesTheProxyAndKeepsThePhysicalConnection() throws Exception {
        HikariDataSource ds = ComparedPools.hikari(4);
        try (HikariCycle cycle = new HikariCycle(ds)) {
            Connection proxy = (Connection) cycle.borrowAndReturn();
            assertTrue(proxy.isClosed());
            assertEquals(4, ds.getHikariPoolMXBean().getIdleConnections());
            assertEquals(4, ds.getHikariPoolMXBean().getTotalConnections());
        }
    }

    @Test
    void anUnknownPoolNameIsRefusedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PoolCycle.start("dbcp2", 4));
        assertEquals("unknown pool 'dbcp2'; expected pgmux, pgmux-async or hikari", e.getMessage());
    }
}
