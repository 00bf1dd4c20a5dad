package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.FakeConnector.Conn;
import io.pgmux.core.stats.PoolSnapshot;
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
import org.junit.jupiter.api.Test;

/** PgBouncer's timing rules, driven by a manual clock and explicit janitor runs: no sleeping. */
class PoolTimingRulesTest {
    private final ManualClock clock = new ManualClock();
    private final FakeConnector connector = new FakeConnector();
    private PoolRegistry<Conn> registry;

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

    private static Lease<Conn> now(CompletionStage<Lease<Conn>> stage) {
        CompletableFuture<Lease<Conn>> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "expected a connection at once");
        return f.join();
    }

    private static Throwable failure(CompletionStage<Lease<Conn>> stage) {
        CompletableFuture<Lease<Conn>> f = stage.toCompletableFuture();
        assertTrue(f.isCompletedExceptionally(), "expected the wait to have failed");
        ExecutionException e = assertThrows(ExecutionException.class, f::get);
        return e.getCause();
    }

    private static void pending(CompletionStage<Lease<Conn>> stage) {
        assertFalse(stage.toCompletableFuture().isDone(), "expected the client to be still waiting");
    }

    @Test
    void reconfigureGivesAWaiterTheLargerPoolAtOnceAndNewPoolsTheNewSettings() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        pending(waiting);

        registry.reconfigure(PoolConfig.jdbcDefaults().serverCheckDelay(Duration.ofHours(1)).defaultPoolSize(2)
                .poolMode(PoolMode.STATEMENT).build());
        now(waiting);
        assertEquals(2, pool.config().defaultPoolSize());
        assertEquals(PoolMode.STATEMENT, registry.pool("app", "bob").config().poolMode());
        assertEquals(2, registry.config().defaultPoolSize());
    }

    @Test
    void reservePoolOpensOnlyAfterAClientWaitedReservePoolTimeout() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).reservePoolSize(1).reservePoolTimeout(Duration.ofSeconds(5)));
        now(pool.acquireAsync());
        now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();

        clock.advance(Duration.ofMillis(4999));
        registry.runJanitor();
        pending(waiting);
        assertEquals(2, connector.opened.get());

        clock.advance(Duration.ofMillis(1));
        registry.runJanitor();
        now(waiting);
        assertEquals(3, connector.opened.get());
    }

    @Test
    void reservePoolNeverGrowsBeyondReservePoolSize() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).reservePoolSize(2).reservePoolTimeout(Duration.ofSeconds(1)));
        List<CompletionStage<Lease<Conn>>> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            clients.add(pool.acquireAsync());
        }
        clock.advance(Duration.ofSeconds(2));
        registry.runJanitor();
        registry.runJanitor();

        assertEquals(4, connector.opened.get());
        assertEquals(4, pool.getTotalConnections());
        assertEquals(6, pool.getThreadsAwaitingConnection());
    }

    @Test
    void waitingClientsAreServedInArrivalOrder() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> holder = now(pool.acquireAsync());
        List<CompletableFuture<Lease<Conn>>> queue = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queue.add(pool.acquireAsync().toCompletableFuture());
            clock.advance(Duration.ofMillis(1));
        }
        Lease<Conn> current = holder;
        for (int i = 0; i < 5; i++) {
            current.release();
            for (int j = i + 1; j < 5; j++) {
                assertFalse(queue.get(j).isDone(), "client " + j + " served before client " + i);
            }
            current = now(queue.get(i));
        }
    }

    @Test
    void callbackWaitersTakeTheirTurnAmongStageWaiters() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> holder = now(pool.acquireAsync());
        List<String> served = new ArrayList<>();
        List<Lease<Conn>> leases = new ArrayList<>();
        pool.acquireAsync(null, (lease, failure) -> {
            served.add("first");
            leases.add(lease);
        });
        CompletableFuture<Lease<Conn>> second = pool.acquireAsync().toCompletableFuture();
        pool.acquireAsync(null, (lease, failure) -> served.add("third"));
        assertEquals(List.of(), served);

        holder.release();
        assertEquals(List.of("first"), served);
        assertFalse(second.isDone(), "the second client was served before the first");
        leases.get(0).release();
        now(second).release();
        assertEquals(List.of("first", "third"), served);
    }

    @Test
    void aFreeConnectionReachesTheCallbackAtOnce() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        List<Lease<Conn>> leases = new ArrayList<>();
        pool.acquireAsync(null, (lease, failure) -> leases.add(lease));
        assertEquals(1, leases.size());
        assertEquals(1, pool.getActiveConnections());
    }

    @Test
    void aCallbackWaiterPastQueryWaitTimeoutGetsTheTimeout() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(3)));
        now(pool.acquireAsync());
        List<Throwable> failures = new ArrayList<>();
        pool.acquireAsync(null, (lease, failure) -> failures.add(failure));
        clock.advance(Duration.ofSeconds(3));
        registry.runJanitor();
        assertEquals(1, failures.size());
        assertInstanceOf(PoolTimeoutException.class, failures.get(0));
        assertEquals(0, pool.getThreadsAwaitingConnection());
    }

    @Test
    void aCallbackThatThrowsDoesNotFailTheReleaseThatServedIt() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> holder = now(pool.acquireAsync());
        pool.acquireAsync(null, (lease, failure) -> {
            throw new IllegalStateException("the waiting client's own bug");
        });
        holder.release();
        assertEquals(0, pool.getThreadsAwaitingConnection());
    }

    @Test
    void aClientPastQueryWaitTimeoutFailsWithAClearErrorAndLeavesTheQueue() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).queryWaitTimeout(Duration.ofSeconds(3)));
        Lease<Conn> holder = now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();

        clock.advance(Duration.ofMillis(2999));
        registry.runJanitor();
        pending(waiting);

        clock.advance(Duration.ofMillis(1));
        registry.runJanitor();
        Throwable t = failure(waiting);
        assertInstanceOf(PoolTimeoutException.class, t);
        assertTrue(t.getMessage().startsWith("query_wait_timeout: pool app/alice"), t.getMessage());
        assertTrue(t.getMessage().contains("pool size 1"), t.getMessage());
        assertEquals(0, pool.getThreadsAwaitingConnection());

        holder.release();
        assertEquals(1, pool.getIdleConnections(), "the released connection must not go to the timed-out client");
    }

    @Test
    void aBlockingClientTimesOutOnItsOwnDeadlineWithoutTheJanitor() throws InterruptedException {
        registry = PoolRegistry.<Conn>builder().connector(connector)
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(1).build()).janitorPeriod(Duration.ZERO).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        pool.acquire(1, TimeUnit.SECONDS);
        PoolTimeoutException e = assertThrows(PoolTimeoutException.class,
                () -> pool.acquire(50, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().startsWith("query_wait_timeout"), e.getMessage());
        assertTrue(e.waitedNanos() >= TimeUnit.MILLISECONDS.toNanos(50));
        assertEquals(0, pool.getThreadsAwaitingConnection());
    }

    @Test
    void idleConnectionsAboveMinCloseAfterServerIdleTimeout() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(5).minPoolSize(2).serverIdleTimeout(Duration.ofSeconds(60)));
        List<Lease<Conn>> leases = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            leases.add(now(pool.acquireAsync()));
        }
        leases.forEach(Lease::release);
        assertEquals(5, pool.getIdleConnections());

        clock.advance(Duration.ofSeconds(59));
        registry.runJanitor();
        assertEquals(5, pool.getTotalConnections());

        clock.advance(Duration.ofSeconds(1));
        registry.runJanitor();
        assertEquals(2, pool.getTotalConnections(), "closes down to min_pool_size, not below");
        assertEquals(3, connector.closedCount.get());
    }

    @Test
    void minPoolSizeIsOpenedWhenThePoolIsCreated() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(5).minPoolSize(3));
        assertEquals(3, pool.getTotalConnections());
        assertEquals(3, pool.getIdleConnections());
    }

    @Test
    void minPoolSizeIsRefilledAfterConnectionsDie() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(5).minPoolSize(3));
        for (Conn c : new ArrayList<>(connector.all)) {
            c.handle.markBroken(new SQLException("terminating connection due to administrator command", "57P01"));
        }
        assertEquals(3, connector.closedCount.get());
        registry.runJanitor();
        assertEquals(3, pool.getTotalConnections());
        assertEquals(6, connector.opened.get());
    }

    @Test
    void serverLifetimeNeverClosesAConnectionInUse() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).serverLifetime(Duration.ofSeconds(100)));
        Lease<Conn> busy = now(pool.acquireAsync());
        Lease<Conn> idle = now(pool.acquireAsync());
        idle.release();

        clock.advance(Duration.ofSeconds(101));
        registry.runJanitor();
        assertFalse(busy.connection().closed, "a connection in use is never retired");
        assertTrue(idle.connection().closed, "an idle aged connection is retired");

        busy.release();
        assertTrue(busy.connection().closed, "retired when it comes back");
        assertEquals(0, pool.getTotalConnections());
    }

    @Test
    void serverLifetimeIsJitteredDownwardOnly() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverLifetime(Duration.ofSeconds(1000))
                .serverIdleTimeout(Duration.ZERO));
        now(pool.acquireAsync()).release();
        clock.advance(Duration.ofSeconds(974));
        registry.runJanitor();
        assertEquals(1, pool.getTotalConnections(), "jitter shortens lifetime by at most 2.5%");
        clock.advance(Duration.ofSeconds(26));
        registry.runJanitor();
        assertEquals(0, pool.getTotalConnections());
    }

    @Test
    void maxDbConnectionsHoldsAcrossUsers() {
        PoolConfig config = PoolConfig.jdbcDefaults().defaultPoolSize(5).maxDbConnections(3).build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        Pool<Conn> alice = registry.pool("app", "alice");
        Pool<Conn> bob = registry.pool("app", "bob");
        Pool<Conn> other = registry.pool("reports", "bob");

        Lease<Conn> a1 = now(alice.acquireAsync());
        now(alice.acquireAsync());
        now(bob.acquireAsync());
        CompletionStage<Lease<Conn>> bobWaits = bob.acquireAsync();
        now(other.acquireAsync());

        pending(bobWaits);
        assertEquals(3, registry.databaseConnections("app"));

        a1.release();
        assertEquals(3, registry.databaseConnections("app"));
        Lease<Conn> bobs = now(bobWaits);
        assertNotSame(a1.connection(), bobs.connection(), "alice's idle connection was closed to make room");
        assertTrue(a1.connection().closed);
    }

    @Test
    void aConnectionGoingIdleStaysOpenWhenTheWaitingSiblingsLoginIsUnderWay() {
        PoolConfig config = PoolConfig.jdbcDefaults().defaultPoolSize(5).maxDbConnections(2).build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        Lease<Conn> alices = now(registry.pool("app", "alice").acquireAsync());
        Lease<Conn> carols = now(registry.pool("app", "carol").acquireAsync());
        connector.holdLogins = true;
        CompletionStage<Lease<Conn>> bobWaits = registry.pool("app", "bob").acquireAsync();
        pending(bobWaits);

        alices.release();
        assertTrue(alices.connection().closed, "alice's idle connection was closed to make room for bob");
        carols.release();
        connector.completeOneLogin();
        now(bobWaits);

        assertFalse(carols.connection().closed, "bob's one client has its login under way: carol's stays open");
        assertEquals(2, registry.databaseConnections("app"));
    }

    @Test
    void maxUserConnectionsHoldsAcrossDatabases() {
        PoolConfig config = PoolConfig.jdbcDefaults().defaultPoolSize(5).maxUserConnections(2).build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        now(registry.pool("a", "alice").acquireAsync());
        now(registry.pool("b", "alice").acquireAsync());
        pending(registry.pool("c", "alice").acquireAsync());
        assertEquals(2, registry.userConnections("alice"));
    }

    @Test
    void aFailedLoginFailsWaitingClientsAtOnceWithTheServersError() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        SQLException serverError = new SQLException("password authentication failed for user \"alice\"", "28P01");
        connector.failLogins = serverError;

        Throwable t = failure(pool.acquireAsync());
        assertInstanceOf(ServerLoginException.class, t);
        assertSame(serverError, t.getCause());
        assertFalse(((ServerLoginException) t).isCached());
    }

    @Test
    void clientsArrivingWithinServerLoginRetryGetTheCachedErrorWithoutANewLogin() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).serverLoginRetry(Duration.ofSeconds(15)));
        connector.failLogins = new SQLException("database \"app\" does not exist", "3D000");
        failure(pool.acquireAsync());
        assertEquals(1, connector.loginAttempts.get());

        clock.advance(Duration.ofSeconds(14));
        Throwable t = failure(pool.acquireAsync());
        assertTrue(((ServerLoginException) t).isCached());
        assertTrue(t.getMessage().contains("server login has been failing, cached error"), t.getMessage());
        assertEquals(1, connector.loginAttempts.get(), "no login attempt within server_login_retry");
    }

    @Test
    void aRefusedLoginIsTriedAgainOnlyAfterServerLoginRetry() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2).serverLoginRetry(Duration.ofSeconds(15)));
        connector.failLogins = new SQLException("password authentication failed for user \"alice\"", "28P01");
        failure(pool.acquireAsync());

        connector.failLogins = null;
        clock.advance(Duration.ofSeconds(15));
        now(pool.acquireAsync());
        assertEquals(2, connector.loginAttempts.get());
    }

    @Test
    void aLoginFailureDoesNotFailClientsThatAConnectedServerCanServe() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        Lease<Conn> held = now(pool.acquireAsync());
        connector.failLogins = new SQLException("too many connections for role \"alice\"", "53300");
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        pending(waiting);
        held.release();
        assertSame(held.connection(), now(waiting).connection());
    }

    @Test
    void aLoginSlowerThanServerConnectTimeoutIsAbandonedAndTriedAgainWhileTheClientWaits() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverConnectTimeout(Duration.ofSeconds(15)));
        connector.holdLogins = true;
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        assertEquals(1, pool.view().snapshot().svLogin);

        clock.advance(Duration.ofSeconds(15));
        registry.runJanitor();
        pending(waiting);
        assertEquals(0, pool.getTotalConnections());

        connector.completeOneLogin();
        assertEquals(1, connector.closedCount.get(), "a login that completes after the timeout is closed");
        assertEquals(0, pool.getTotalConnections());

        connector.holdLogins = false;
        clock.advance(Duration.ofMillis(50));
        registry.runJanitor();
        now(waiting);
        assertEquals(2, connector.loginAttempts.get());
    }

    @Test
    void anIdleConnectionOlderThanServerCheckDelayIsTestedBeforeReuse() {
        PoolConfig config = PoolConfig.jdbcDefaults().defaultPoolSize(1).serverCheckDelay(Duration.ofSeconds(30))
                .build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        Lease<Conn> first = now(pool.acquireAsync());
        first.release();

        clock.advance(Duration.ofSeconds(10));
        now(pool.acquireAsync()).release();
        assertEquals(0, first.connection().checks.get(), "recently used: no check");

        clock.advance(Duration.ofSeconds(31));
        Lease<Conn> again = now(pool.acquireAsync());
        assertEquals(1, first.connection().checks.get());
        assertSame(first.connection(), again.connection());
    }

    @Test
    void withServerCheckDelayZeroAConnectionAClientUsedIsCheckedBeforeItsNextLoanOnly() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ZERO));
        Lease<Conn> first = now(pool.acquireAsync());
        assertEquals(0, first.connection().checks.get(), "just logged in: no check");
        first.release();
        clock.advance(Duration.ofMillis(1));
        Lease<Conn> second = now(pool.acquireAsync());
        assertSame(first.connection(), second.connection());
        assertEquals(1, first.connection().checks.get(), "used by a client: checked");
        second.releaseUncounted();
        clock.advance(Duration.ofMillis(1));
        now(pool.acquireAsync()).release();
        assertEquals(1, first.connection().checks.get(), "just checked, and only looked at since: no check");
    }

    @Test
    void aLoanGivenBackUntouchedLeavesAFreshConnectionUnchecked() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ZERO));
        Lease<Conn> welcome = now(pool.acquireAsync());
        welcome.releaseUncounted();
        clock.advance(Duration.ofMillis(1));
        now(pool.acquireAsync()).release();
        assertEquals(0, welcome.connection().checks.get());
    }

    @Test
    void withServerCheckDelayZeroAConnectionIdleLongerThanPgBouncersJanitorPeriodIsChecked() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ZERO));
        Lease<Conn> welcome = now(pool.acquireAsync());
        welcome.releaseUncounted();
        clock.advance(Duration.ofSeconds(1));
        now(pool.acquireAsync()).release();
        assertEquals(1, welcome.connection().checks.get());
    }

    @Test
    void withServerCheckDelayZeroAWaitingClientGetsTheReleasedConnectionOnlyAfterItsCheck() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ZERO));
        Lease<Conn> first = now(pool.acquireAsync());
        CompletableFuture<Lease<Conn>> waiting = pool.acquireAsync().toCompletableFuture();
        assertFalse(waiting.isDone());
        first.release();
        assertSame(first.connection(), now(waiting).connection());
        assertEquals(1, first.connection().checks.get());
    }

    @Test
    void theJanitorChecksAConnectionIdleForServerCheckDelayInTheBackground() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ofSeconds(30))
                .serverIdleTimeout(Duration.ofSeconds(100)));
        Lease<Conn> first = now(pool.acquireAsync());
        first.release();

        clock.advance(Duration.ofSeconds(10));
        registry.runJanitor();
        assertEquals(0, first.connection().checks.get(), "checked only after server_check_delay");
        clock.advance(Duration.ofSeconds(21));
        registry.runJanitor();
        assertEquals(1, first.connection().checks.get());
        assertEquals(1, pool.getIdleConnections());

        Lease<Conn> again = now(pool.acquireAsync());
        assertSame(first.connection(), again.connection());
        assertEquals(1, first.connection().checks.get(), "just checked: no second check at the borrow");
        again.release();
    }

    @Test
    void aBackgroundCheckLeavesServerIdleTimeoutCountingFromTheLastUse() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ofSeconds(30))
                .serverIdleTimeout(Duration.ofSeconds(50)));
        Lease<Conn> first = now(pool.acquireAsync());
        first.release();
        clock.advance(Duration.ofSeconds(31));
        registry.runJanitor();
        assertEquals(1, first.connection().checks.get());
        clock.advance(Duration.ofSeconds(20));
        registry.runJanitor();
        assertTrue(first.connection().closed, "idle 51 s since its last use, checked or not");
    }

    @Test
    void anIdleConnectionFailingTheBackgroundCheckIsClosedBeforeAnyClientBorrowsIt() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).serverCheckDelay(Duration.ofSeconds(30)));
        Lease<Conn> first = now(pool.acquireAsync());
        first.release();
        connector.failChecks = true;
        clock.advance(Duration.ofSeconds(31));
        registry.runJanitor();
        assertTrue(first.connection().closed);
        assertEquals(0, pool.getTotalConnections());
    }

    @Test
    void aConnectionThatFailsItsCheckIsReplaced() {
        PoolConfig config = PoolConfig.jdbcDefaults().defaultPoolSize(1).serverCheckDelay(Duration.ZERO).build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        Lease<Conn> first = now(pool.acquireAsync());
        first.release();
        connector.failChecks = true;
        clock.advance(Duration.ofMillis(1));

        Lease<Conn> second = now(pool.acquireAsync());
        assertTrue(first.connection().closed);
        assertNotSame(first.connection(), second.connection());
    }

    @Test
    void sessionModeResetsAConnectionBeforeItsNextClient() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).poolMode(PoolMode.SESSION));
        Lease<Conn> lease = now(pool.acquireAsync());
        lease.release();
        assertEquals(1, lease.connection().resets.get());
    }

    @Test
    void aConnectionWhoseResetEndsAfterThePoolStartedClosingIsClosedNotKept() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).poolMode(PoolMode.SESSION));
        Lease<Conn> lease = now(pool.acquireAsync());
        connector.holdResets = true;
        lease.release();
        CompletableFuture<Void> drained = pool.close().toCompletableFuture();
        assertFalse(drained.isDone());

        connector.heldResets.poll().complete(null);
        assertTrue(lease.connection().closed);
        assertTrue(drained.isDone());
    }

    @Test
    void transactionModeDoesNotResetUnlessAskedAlways() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
        Lease<Conn> lease = now(pool.acquireAsync());
        lease.release();
        assertEquals(0, lease.connection().resets.get());
    }

    @Test
    void releasingALeaseTwiceDoesNotReleaseTheNextHoldersConnection() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> first = now(pool.acquireAsync());
        first.release();
        Lease<Conn> second = now(pool.acquireAsync());
        first.release();
        assertEquals(1, pool.getActiveConnections());
        pending(pool.acquireAsync());
        second.release();
    }

    @Test
    void aLoanTellsHowLongItsServerSatIdleBeforeIt() throws InterruptedException {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Object client = new Object();
        LentServer<Conn> lent = pool.acquireFor(client);
        assertTrue(lent.release(client));
        clock.advance(Duration.ofMillis(1234));
        assertSame(lent, pool.acquireFor(client));
        assertEquals(Duration.ofMillis(1234).toNanos(), lent.idleNanos());
        assertTrue(lent.release(client));
    }

    @Test
    void aServerLentToAClientIsGivenBackOnlyByThatClientAndOnlyOnce() throws InterruptedException {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Object first = new Object();
        Object second = new Object();
        LentServer<Conn> lent = pool.acquireFor(first);
        assertTrue(lent.isLentTo(first));
        assertFalse(lent.release(second), "another client cannot give it back");
        assertEquals(1, pool.getActiveConnections());

        assertTrue(lent.release(first));
        assertSame(lent, pool.acquireFor(second));
        assertFalse(lent.release(first), "a repeated release is ignored");
        assertFalse(lent.discard(first, null), "so is a late discard");
        assertTrue(lent.isLentTo(second));
        assertFalse(lent.connection().closed);
        assertEquals(1, pool.getActiveConnections());
        assertTrue(lent.release(second));
        assertEquals(1, pool.getIdleConnections());
    }

    @Test
    void aLoanTransferredToAnotherClientIsEndedOnlyByThatOne() throws InterruptedException {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Object first = new Object();
        Object second = new Object();
        LentServer<Conn> lent = pool.acquireFor(first);
        assertFalse(lent.transfer(second, first), "only the client it is lent to can pass it on");

        assertTrue(lent.transfer(first, second));
        assertFalse(lent.release(first));
        assertTrue(lent.isLentTo(second));
        assertTrue(lent.release(second));
        assertFalse(lent.transfer(second, first), "nor after the loan ended");
        assertEquals(1, pool.getIdleConnections());
    }

    @Test
    void aClientWaitingForAServerIsLentTheReleasedOne() throws Exception {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> busy = now(pool.acquireAsync());
        Object client = new Object();
        CompletableFuture<LentServer<Conn>> waiting = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                waiting.complete(pool.acquireFor(client, 10, TimeUnit.SECONDS));
            } catch (Throwable e) {
                waiting.completeExceptionally(e);
            }
        });
        waiter.start();
        while (pool.getThreadsAwaitingConnection() == 0 && waiter.isAlive()) {
            Thread.onSpinWait();
        }
        busy.release();
        LentServer<Conn> lent = waiting.get(10, TimeUnit.SECONDS);
        assertSame(busy.connection(), lent.connection());
        assertTrue(lent.isLentTo(client));
        assertTrue(busy.isEnded());
        busy.release();
        assertEquals(1, pool.getActiveConnections(), "the old lease cannot give back the new loan");
        assertTrue(lent.release(client));
    }

    @Test
    void aServerDiscardedByItsClientIsClosed() throws InterruptedException {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Object client = new Object();
        LentServer<Conn> lent = pool.acquireFor(client);
        assertTrue(lent.discard(client, new SQLException("server closed the connection unexpectedly", "08006")));
        assertTrue(lent.connection().closed);
        assertNotSame(lent.connection(), pool.acquireFor(client).connection());
    }

    @Test
    void serverAssignmentsCountEveryLoanAlsoOfConnectionsClosedSince() throws InterruptedException {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Object client = new Object();
        now(pool.acquireAsync()).release();
        pool.acquireFor(client).release(client);
        Lease<Conn> busy = now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        busy.discard(null);
        now(waiting).release();
        pool.acquireFor(client).discard(client, null);
        assertEquals(2, connector.closedCount.get(), "both connections were closed");
        assertEquals(5, pool.traffic().totals().serverAssignmentCount);
    }

    @Test
    void aLoanReleasedUncountedIsNoServerAssignment() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        now(pool.acquireAsync()).releaseUncounted();
        now(pool.acquireAsync()).release();
        assertEquals(1, pool.traffic().totals().serverAssignmentCount);
    }

    @Test
    void aDiscardedLeaseClosesItsConnectionAndAWaiterGetsANewOne() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> broken = now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        broken.discard(new SQLException("server closed the connection unexpectedly", "08006"));
        assertTrue(broken.connection().closed);
        assertNotSame(broken.connection(), now(waiting).connection());
    }

    @Test
    void pauseWaitsForActiveConnectionsAndQueuesNewClientsUntilResume() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        Lease<Conn> busy = now(pool.acquireAsync());
        CompletableFuture<Void> paused = pool.pause().toCompletableFuture();
        assertFalse(paused.isDone());
        CompletionStage<Lease<Conn>> queued = pool.acquireAsync();

        busy.release();
        assertTrue(paused.isDone());
        pending(queued);

        pool.resume();
        now(queued);
    }

    @Test
    void softEvictionClosesIdleConnectionsNowAndBusyOnesOnRelease() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(2));
        Lease<Conn> busy = now(pool.acquireAsync());
        Lease<Conn> idle = now(pool.acquireAsync());
        idle.release();
        pool.softEvictConnections();
        assertTrue(idle.connection().closed);
        assertFalse(busy.connection().closed);
        busy.release();
        assertTrue(busy.connection().closed);
        assertNotSame(busy.connection(), now(pool.acquireAsync()).connection());
    }

    @Test
    void closingDrainsWaitersFailAndBusyConnectionsCloseWhenReleased() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        Lease<Conn> busy = now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> waiting = pool.acquireAsync();
        CompletableFuture<Void> drained = pool.close().toCompletableFuture();

        assertInstanceOf(PoolClosedException.class, failure(waiting));
        assertTrue(failure(pool.acquireAsync()).getMessage().contains("pooler is shutting down"));
        assertFalse(drained.isDone());
        busy.release();
        assertTrue(drained.isDone());
        assertEquals(connector.opened.get(), connector.closedCount.get());
    }

    @Test
    void maxClientConnRefusesClientsBeyondTheLimitWithPgBouncersMessage() {
        PoolConfig config = PoolConfig.proxyDefaults().maxClientConn(2).build();
        registry = PoolRegistry.<Conn>builder().connector(connector).config(config).clock(clock)
                .janitorPeriod(Duration.ZERO).build();
        Pool<Conn> pool = registry.pool("app", "alice");
        ClientAdmission one = registry.admitClient(pool, false);
        registry.admitClient(registry.pool("other", "bob"), false);
        TooManyClientsException e = assertThrows(TooManyClientsException.class,
                () -> registry.admitClient(pool, false));
        assertEquals("no more connections allowed (max_client_conn)", e.getMessage());
        registry.clientLeaves(pool, one);
        registry.admitClient(pool, false);
        assertEquals(2, registry.clientCount());
    }

    @Test
    void showPoolsFiguresMatchTheConnectionsStates() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(3).serverCheckDelay(Duration.ofSeconds(30)));
        Lease<Conn> a = now(pool.acquireAsync());
        Lease<Conn> b = now(pool.acquireAsync());
        Lease<Conn> c = now(pool.acquireAsync());
        CompletionStage<Lease<Conn>> w = pool.acquireAsync();
        clock.advance(Duration.ofMillis(2_500));
        b.release();
        now(w);
        c.release();
        clock.advance(Duration.ofSeconds(31));
        PoolSnapshot s = pool.view().snapshot();
        assertEquals(2, s.svActive);
        assertEquals(0, s.svIdle);
        assertEquals(1, s.svUsed, "idle longer than server_check_delay counts as sv_used");
        assertEquals(0, s.clWaiting);
        assertEquals("transaction", s.poolMode);
        assertEquals(4, pool.traffic().totals().serverAssignmentCount);
        assertEquals(2_500_000, pool.traffic().totals().waitTimeMicros, "the one waiter waited 2.5 s");
        a.release();
    }

    @Test
    void maxwaitReportsTheOldestWaiter() {
        Pool<Conn> pool = pool(b -> b.defaultPoolSize(1));
        now(pool.acquireAsync());
        pool.acquireAsync();
        clock.advance(Duration.ofMillis(1_500));
        pool.acquireAsync();
        clock.advance(Duration.ofMillis(1_250));
        PoolSnapshot s = pool.view().snapshot();
        assertEquals(2, s.clWaiting);
        assertEquals(2, s.maxwait);
        assertEquals(750_000, s.maxwaitUs);
    }
}
