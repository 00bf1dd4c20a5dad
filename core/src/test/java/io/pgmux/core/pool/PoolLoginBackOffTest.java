package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server that is unavailable (down, restarting, starting up) is waited for: its clients stay queued up to
 * query_wait_timeout while one login at a time probes it on a back-off growing from 50 ms to 500 ms, so that
 * service resumes within half a second of the server's return. Driven by a manual clock and explicit janitor runs.
 */
class PoolLoginBackOffTest {
    private final ManualClock clock = new ManualClock();
    private final FakeConnector connector = new FakeConnector();
    private final SQLException down = new SQLException("Connection to 127.0.0.1:5432 refused.", "08001");
    private PoolRegistry<Conn> registry;

    @BeforeEach
    void serverIsDown() {
        connector.transientFailures = true;
        connector.failLogins = down;
    }

    @AfterEach
    void closeRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    private Pool<Conn> pool(Consumer<PoolConfig.Builder> settings) {
        PoolConfig.Builder b = PoolConfig.jdbcDefaults().serverCheckDelay(Duration.ofHours(1));
        settings.accept(b);
        registry = PoolRegistry.<Conn>builder().connector(connector).config(b.build()).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        return registry.pool("app", "alice");
    }

    /** Moves the clock by {@code millis} and runs the janitor; returns how many logins were tried meanwhile. */
    private int after(long millis) {
        int before = connector.loginAttempts.get();
        clock.advance(Duration.ofMillis(millis));
        registry.runJanitor();
        return connector.loginAttempts.get() - before;
    }

    private static void pending(CompletionStage<Lease<Conn>> stage) {
        assertFalse(stage.toCompletableFuture().isDone(), "expected the client to be still waiting");
    }

    @Test
    void clientsWaitingForAnUnavailableServerStayQueued() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        assertEquals(1, connector.loginAttempts.get());
        pending(waiting);
        assertEquals(1, pool.getThreadsAwaitingConnection());
    }

    @Test
    void clientsArrivingWhileTheServerIsUnavailableWaitInsteadOfGettingACachedError() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).serverLoginRetry(Duration.ofSeconds(15)));
        pending(pool.acquireAsync());
        pending(pool.acquireAsync());
    }

    @Test
    void loginsAreTriedAgainAfterABackOffThatDoublesFrom50msUpTo500ms() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        pending(pool.acquireAsync());
        long[] pauses = {50, 100, 200, 400, 500, 500};
        for (long pause : pauses) {
            assertEquals(0, after(pause - 1), "no login before " + pause + " ms");
            assertEquals(1, after(1), "one login after " + pause + " ms");
        }
    }

    @Test
    void aServerLoginRetryShorterThan500msCapsTheBackOff() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).serverLoginRetry(Duration.ofMillis(150)));
        pending(pool.acquireAsync());
        long[] pauses = {50, 100, 150, 150};
        for (long pause : pauses) {
            assertEquals(0, after(pause - 1), "no login before " + pause + " ms");
            assertEquals(1, after(1), "one login after " + pause + " ms");
        }
    }

    @Test
    void whileLoginsFailOneLoginAtATimeProbesTheServerForAllWaitingClients() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(10));
        List<CompletionStage<Lease<Conn>>> waiting = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            waiting.add(pool.acquireAsync());
        }
        assertEquals(1, connector.loginAttempts.get(), "the first failure stops the other logins");
        connector.failLogins = null;
        connector.holdLogins = true;
        assertEquals(1, after(50));
        assertEquals(0, after(500), "no second login while the probe runs");
        waiting.forEach(PoolLoginBackOffTest::pending);
    }

    @Test
    void loginsUnderWayTogetherWhenTheServerGoesAwayCountAsOneFailure() {
        connector.failLogins = null;
        connector.holdLogins = true;
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(3));
        for (int i = 0; i < 3; i++) {
            pending(pool.acquireAsync());
        }
        assertEquals(3, connector.heldLogins.size());
        connector.heldLogins.forEach(login -> login.completeExceptionally(down));
        connector.heldLogins.clear();
        connector.heldHandles.clear();
        connector.holdLogins = false;
        connector.failLogins = down;
        assertEquals(0, after(49));
        assertEquals(1, after(1), "the first retry after 50 ms, not after 200");
    }

    @Test
    void theFirstLoginThatSucceedsAgainOpensConnectionsForEveryWaitingClient() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(10));
        List<CompletionStage<Lease<Conn>>> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(pool.acquireAsync());
        }
        connector.failLogins = null;
        after(50);
        for (CompletionStage<Lease<Conn>> w : waiting) {
            assertTrue(w.toCompletableFuture().isDone(), "every waiting client is served");
            w.toCompletableFuture().join();
        }
        assertEquals(5, pool.getTotalConnections());
    }

    @Test
    void aClientStillWaitingAtQueryWaitTimeoutGetsItWithTheLastLoginFailure() throws Exception {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).queryWaitTimeout(Duration.ofSeconds(2)));
        CompletableFuture<Lease<Conn>> waiting = pool.acquireAsync().toCompletableFuture();
        for (int i = 0; i < 4; i++) {
            after(500);
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(0, TimeUnit.SECONDS));
        PoolTimeoutException timeout = assertInstanceOf(PoolTimeoutException.class, e.getCause());
        assertSame(down, timeout.getCause());
    }

    @Test
    void aRefusalAfterTheServerIsBackFailsTheWaitingClientsAtOnce() throws Exception {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        CompletableFuture<Lease<Conn>> waiting = pool.acquireAsync().toCompletableFuture();
        SQLException refused = new SQLException("database \"app\" does not exist", "3D000");
        connector.transientFailures = false;
        connector.failLogins = refused;
        after(50);
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(0, TimeUnit.SECONDS));
        assertInstanceOf(ServerLoginException.class, e.getCause());
        assertSame(refused, e.getCause().getCause());
    }

    @Test
    void theBackOffStartsAgainAt50msAfterALoginSucceeded() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        CompletionStage<Lease<Conn>> first = pool.acquireAsync();
        after(50);
        after(100);
        connector.failLogins = null;
        after(200);
        Lease<Conn> lease = first.toCompletableFuture().join();
        lease.connection().handle.markBroken(null);
        lease.release();

        connector.failLogins = down;
        CompletionStage<Lease<Conn>> second = pool.acquireAsync();
        pending(second);
        assertEquals(0, after(49));
        assertEquals(1, after(1));
    }

    @Test
    void minPoolSizeIsRefilledOnTheSameBackOff() {
        pool(b -> b.defaultPoolSize(2).minPoolSize(1));
        assertEquals(1, connector.loginAttempts.get());
        assertEquals(0, after(49));
        assertEquals(1, after(1));
    }

    @Test
    void theRetryAfterABackOffNeedsNoJanitorPass() throws Exception {
        registry = PoolRegistry.<Conn>builder().connector(connector)
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(1).build()).janitorPeriod(Duration.ofHours(1))
                .build();
        CompletableFuture<Lease<Conn>> waiting = registry.pool("app", "alice").acquireAsync().toCompletableFuture();
        connector.failLogins = null;
        waiting.get(10, TimeUnit.SECONDS).release();
    }
}
