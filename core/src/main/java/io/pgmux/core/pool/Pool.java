package io.pgmux.core.pool;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.fleet.FleetStatus;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.core.stats.TrafficStats;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The server connections of one (database, user) and the clients waiting for them, with PgBouncer's
 * rules: limits, the reserve, logins and their back-off, the janitor's closing of idle and aged servers.
 * The servers themselves are a {@link ServerSet}, where borrowing an idle one and giving it back are a
 * scan and a CAS; waiting clients are served strictly oldest first by handing a released server straight
 * to them. What the admin console and JMX show is read through {@link #view()}.
 *
 * <p>Pool is the face of a pool and owns its state (settings, servers, waiters, counts; running, paused or
 * closing); each role is a class of its own, as PgBouncer splits objects.c and janitor.c: {@code Lending}
 * (acquire, the wait, the hand-off to the oldest waiter), {@code Release} (a loan's end), {@code ServerLogins}
 * (opening servers, the reserve, the login back-off), {@code Disconnect} (a server leaving),
 * {@code PoolMaintenance} (the janitor's pass), {@code DedicatedLogins} (a client's own server) and
 * {@code PoolFleet} (the fleet's share).
 */
public final class Pool<S> implements PgMuxPoolMXBean {
    private static final int RUNNING = 0;
    private static final int PAUSED = 1;
    private static final int CLOSING = 2;

    private final PoolKey key;
    private final String name;
    final PoolRegistry<S> registry;
    final ServerConnector<S> connector;
    final PoolClock clock;
    final ServerSet<S> servers = new ServerSet<>();
    /** Server assignments are counted by each server connection as it is lent, and summed by the set. */
    private final TrafficStats traffic = new TrafficStats(servers::assignments);
    final IMetricsTracker tracker;
    /** Clients pinned to their server connection now, and how often a client was pinned, per reason. */
    private final AtomicInteger pinnedNow = new AtomicInteger();
    private final ConcurrentHashMap<String, LongAdder> pinsByReason = new ConcurrentHashMap<>();
    final boolean tracking;
    private volatile PoolConfig config;

    final WaitQueue<S> waiters = new WaitQueue<>();
    final DedicatedLogins<S> dedicated = new DedicatedLogins<>(this);
    private final PoolView<S> view = new PoolView<>(this, servers, waiters);
    /** Every server in any state but closed, including those logging in, and those about to be added. */
    final AtomicInteger serverCount = new AtomicInteger();
    final PoolFleet<S> fleet = new PoolFleet<>(this);
    final Disconnect<S> disconnect = new Disconnect<>(this);
    final ServerLogins<S> logins = new ServerLogins<>(this);
    private final PoolMaintenance<S> maintenance = new PoolMaintenance<>(this);
    final Lending<S> lending;
    final Release<S> release;
    /** Clients connected to this pool (cl_active + cl_waiting); striped, since every logical connection counts. */
    private final LongAdder clients = new LongAdder();

    private volatile int state = RUNNING;
    private volatile CompletableFuture<Void> pauseDone;
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    Pool(PoolKey key, PoolConfig config, PoolRegistry<S> registry, ServerConnector<S> connector, PoolClock clock,
         Function<Pool<?>, IMetricsTracker> trackerFactory) {
        this.key = key;
        this.config = config;
        this.name = config.poolName().isEmpty() ? key.toString() : config.poolName();
        this.registry = registry;
        this.connector = connector;
        this.clock = clock;
        this.tracker = trackerFactory == null ? null : trackerFactory.apply(this);
        this.tracking = tracker != null;
        this.lending = new Lending<>(this);
        this.release = new Release<>(this);
    }

    /** The id of a server connection being opened, from the registry's counter (SHOW SERVERS' id). */
    long nextServerId() {
        return registry.nextServerId();
    }

    public PoolKey key() {
        return key;
    }

    public String name() {
        return name;
    }

    /**
     * A client of the pool came to be pinned to its server connection, for each of {@code reasons}: counted for the
     * MXBean and the metrics. Rare (a client's session state changed), so neither path is hot.
     */
    public void clientPinned(String... reasons) {
        pinnedNow.incrementAndGet();
        for (String reason : reasons) {
            pinsByReason.computeIfAbsent(reason, r -> new LongAdder()).increment();
            if (tracking) {
                tracker.recordConnectionPinned(reason);
            }
        }
    }

    /** A pinned client is transaction-pooled again, or gone. */
    public void clientUnpinned() {
        pinnedNow.decrementAndGet();
    }

    @Override
    public int getClientsPinned() {
        return pinnedNow.get();
    }

    @Override
    public Map<String, Long> getPinsByReason() {
        Map<String, Long> pins = new TreeMap<>();
        pinsByReason.forEach((reason, count) -> pins.put(reason, count.sum()));
        return pins;
    }

    public PoolConfig config() {
        return config;
    }

    /** Applies new settings (RELOAD); sizes take effect at once, surplus idle connections close at the next janitor run. */
    public void reconfigure(PoolConfig newConfig) {
        this.config = newConfig;
        maybeOpen();
    }

    public TrafficStats traffic() {
        return traffic;
    }

    /**
     * Holds the pool to {@code cap} server connections, its fleet's share: a lower cap closes idle connections
     * above it now and the others as they come back; a higher one serves the waiting clients.
     */
    public void fleetCap(int cap) {
        fleetCap(cap, Long.MAX_VALUE, cap);
    }

    /**
     * As {@link #fleetCap(int)} for {@code validForNanos}; then the pool holds to {@code fencedCap} until the next
     * call (idle servers above it close at the janitor's next pass): a member that could not beat for so long may
     * have been counted dead, its share given to others.
     */
    public void fleetCap(int cap, long validForNanos, int fencedCap) {
        fleet.cap(cap, validForNanos, fencedCap);
    }

    /** What the fleet's coordinator saw at its last heartbeat; the first makes the pool's fleet meters. */
    public void fleetStatus(FleetStatus status) {
        fleet.status(status);
    }

    /** What the fleet's coordinator saw at its last heartbeat, or null outside a fleet. */
    public FleetStatus fleetStatus() {
        return fleet.status();
    }

    @Override
    public String getFleet() {
        FleetStatus f = fleet.status();
        return f == null ? "" : f.fleet();
    }

    @Override
    public int getFleetShare() {
        FleetStatus f = fleet.status();
        return f == null ? 0 : f.share();
    }

    @Override
    public int getFleetLent() {
        FleetStatus f = fleet.status();
        return f == null ? 0 : f.lent();
    }

    @Override
    public int getFleetBorrowed() {
        FleetStatus f = fleet.status();
        return f == null ? 0 : f.borrowed();
    }

    @Override
    public int getFleetMembers() {
        FleetStatus f = fleet.status();
        return f == null ? 0 : f.members();
    }

    @Override
    public boolean isFleetFallback() {
        FleetStatus f = fleet.status();
        return f != null && f.fallback();
    }

    /** The fleet's share in force now; Integer.MAX_VALUE outside a fleet. */
    public int fleetCap() {
        return fleet.capAt(clock.nanoTime());
    }

    public PoolClock clock() {
        return clock;
    }

    /** The figures of SHOW POOLS, SHOW SERVERS and the MXBean. */
    public PoolView<S> view() {
        return view;
    }

    // ---------------------------------------------------------------- acquire

    /** Waits up to query_wait_timeout for a connection; see {@link #acquire(long, TimeUnit)}. */
    public Lease<S> acquire() throws InterruptedException {
        return acquire(config.queryWaitTimeoutNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Borrows a server connection, parking the calling thread (never spinning, never holding a monitor,
     * so virtual threads do not pin) until one is free or the timeout passes.
     *
     * @param timeout 0 waits without limit
     * @throws PoolTimeoutException when none became free in time
     * @throws ServerLoginException when the server refuses logins and no connection could serve us
     * @throws PoolClosedException when the pool shuts down
     */
    public Lease<S> acquire(long timeout, TimeUnit unit) throws InterruptedException {
        Lease<S> lease = new Lease<>();
        lease.bind(lending.borrow(lease, unit.toNanos(timeout)));
        return lease;
    }

    /** Waits up to query_wait_timeout; see {@link #acquireFor(Object, long, TimeUnit)}. */
    public LentServer<S> acquireFor(Object client) throws InterruptedException {
        return acquireFor(client, config.queryWaitTimeoutNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Borrows a server connection as {@link #acquire(long, TimeUnit)} does, but lends it to {@code client}
     * itself instead of through a new {@link Lease}: for a client that holds one connection at a time and
     * ends each loan itself, borrowing then allocates nothing.
     */
    public LentServer<S> acquireFor(Object client, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(client, "client");
        return lending.borrow(client, unit.toNanos(timeout));
    }

    /**
     * Borrows a server connection without blocking the caller: the stage completes on the thread that
     * frees or opens a connection. Waiters time out at the janitor's next run after query_wait_timeout.
     */
    public CompletionStage<Lease<S>> acquireAsync() {
        return acquireAsync(null);
    }

    /**
     * Like {@link #acquireAsync()}, preferring connections with the given affinity (see
     * {@link ServerConnector#affinity}): an idle one of those first, and when connections are handed to
     * waiting clients, a waiter of the same affinity near the head of the queue before the head itself.
     * FIFO order gives way only boundedly: a waiter passed over a few times is served strictly in turn.
     *
     * @param affinity null for no preference
     */
    public CompletionStage<Lease<S>> acquireAsync(Object affinity) {
        Lending.AcquiredStage<S> acquired = new Lending.AcquiredStage<>();
        lending.acquireAsync(affinity, acquired);
        return acquired;
    }

    /**
     * Like {@link #acquireAsync(Object)}, without a stage: {@code whenDone} gets the lease, or the failure that
     * ended the wait (query_wait_timeout, a refused login, the pool shutting down), once — at once on the
     * caller's thread when a connection is free or the pool refuses, otherwise on the thread that hands a
     * connection over or ends the wait. A client that waits often passes one callback of its own each time, and
     * a wait then allocates only the lease and the pool's own record of it.
     *
     * @param whenDone must not block: it runs on the pool's thread of the moment
     */
    public void acquireAsync(Object affinity, BiConsumer<? super Lease<S>, ? super Throwable> whenDone) {
        lending.acquireAsync(affinity, whenDone);
    }

    /**
     * A waiter for every wait of {@code client} ({@link #acquireWith}), in this pool or another: {@code whenDone} gets
     * the server lent to {@code client} itself, or the failure that ended a wait. Made once per client, it makes the
     * client's waits allocate only the queue's entry.
     */
    public static <S> Waiter<S> waiter(Object client, BiConsumer<? super LentServer<S>, ? super Throwable> whenDone) {
        return Waiter.reusable(Objects.requireNonNull(client, "client"), Objects.requireNonNull(whenDone, "whenDone"));
    }

    /**
     * Borrows a server connection as {@link #acquireAsync(Object, BiConsumer)} does, but lends it to the client of
     * {@code waiter} (its own {@link #waiter}, whose last wait must have ended) instead of through a new
     * {@link Lease}, as {@link #acquireFor(Object, long, TimeUnit)} does: its callback gets the server at once on the
     * caller's thread when one is free and nobody waits, or the failure when the pool refuses; otherwise the thread
     * that hands a server over or ends the wait calls it. Only that client can end the loan.
     */
    public void acquireWith(Waiter<S> waiter, Object affinity) {
        lending.acquireAsync(waiter, affinity);
    }

    /**
     * Ends the wait of {@link #acquireAsync(Object, BiConsumer)} or {@link #acquireWith} that calls
     * {@code whenDone}, if it still waits:
     * {@code whenDone} gets a {@link CancellationException} on this thread, and no server is lent for it (a
     * client cancelled the request that waited).
     *
     * @return false when no such wait was left: it had been served or had failed
     */
    public boolean cancelWait(BiConsumer<?, ?> whenDone) {
        Waiter<S> w = waiters.find(whenDone);
        return w != null && waiters.fail(w, new CancellationException("the client cancelled its request"));
    }

    /**
     * A server connection of the client's own, opened with {@code startupParameters} added to the pool's login
     * (PgBouncer's replication connections): never one of the pool's idle ones, never given back to them; ending
     * the lease closes it. It counts in pool_size and the shared limits as any other: an idle connection is
     * evicted to make room, else the client waits up to query_wait_timeout. A failed login fails this client only.
     * Cancelling the stage while it waits gives up the client's place.
     */
    public CompletionStage<Lease<S>> acquireDedicated(Map<String, String> startupParameters) {
        if (state == CLOSING) {
            return CompletableFuture.failedFuture(shuttingDown());
        }
        return dedicated.request(startupParameters, clock.nanoTime());
    }

    /**
     * Borrows an idle connection if one is free and nobody waits, else returns null at once; the caller then
     * waits with {@link #acquireAsync(Object)}. Lets a client skip the future and the pause of its reads when
     * the pool has a connection ready, which is the common case.
     */
    public Lease<S> tryAcquire(Object affinity) {
        return lending.claimNow(clock.nanoTime(), affinity);
    }

    /**
     * As {@link #tryAcquire(Object)}, at {@code nowNanos}: the pool clock's time, which a caller that has just read
     * it passes on rather than have it read again.
     */
    public Lease<S> tryAcquire(Object affinity, long nowNanos) {
        return lending.claimNow(nowNanos, affinity);
    }

    /**
     * As {@link #tryAcquire(Object, long)}, but lends the server to {@code client} itself, as
     * {@link #acquireFor(Object, long, TimeUnit)} does: no {@link Lease} is made. Null when none is free or
     * clients wait; the caller then waits with {@link #acquireWith}.
     */
    public LentServer<S> tryAcquireFor(Object client, Object affinity, long nowNanos) {
        Objects.requireNonNull(client, "client");
        return lending.claimNowFor(client, nowNanos, affinity);
    }

    // ---------------------------------------------------------------- release

    /** Whether {@code s} lived its share of the current server_lifetime (0: no limit). */
    boolean lifetimeOver(PooledServer<S> s, long now) {
        long lifetime = config.serverLifetimeNanos();
        return lifetime > 0 && now - s.connectedAtNanos >= (long) (lifetime * s.lifetimeShare);
    }

    /** A loan of {@code s} ended (its client's CAS made this call the only one for that loan). */
    void release(PooledServer<S> s) {
        release.loanEnded(s, true);
    }

    /**
     * A loan whose client only read the connection's parameters (the welcome of a pool's first client) ended:
     * the connection goes back as it was lent, so the loan counts as a use for neither server_check_delay,
     * server_reset_query nor server_idle_timeout, as PgBouncer's welcome is no loan at all.
     */
    void releaseUntouched(PooledServer<S> s) {
        release.loanEnded(s, false);
    }

    // ---------------------------------------------------------------- logins, waiters, for the roles and the registry

    /** Opens connections for waiters not already covered by logins in progress, within every limit. */
    void maybeOpen() {
        logins.openForWaiters();
    }

    /** Keeps min_pool_size connections open, no more than the pool's size. */
    void ensureMin() {
        logins.openToMin();
    }

    /** Scheduled at the end of a back-off: the logins the waiting clients and min_pool_size need. */
    void retryLogins() {
        logins.retry();
    }

    /** A connector's call as a stage: one that throws or returns null fails the stage rather than its caller. */
    static <T> CompletionStage<T> runStage(Supplier<CompletionStage<T>> call) {
        try {
            CompletionStage<T> stage = call.get();
            return stage != null ? stage : CompletableFuture.failedFuture(new PoolException("connector returned null"));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Closes one idle connection to make room for another pool of the same database or user. */
    boolean evictOneIdle() {
        return disconnect.oneIdle("evicted for another pool (max_db_connections / max_user_connections)");
    }

    /** Clients waiting for a server connection of their own: cl_waiting counts them with the others. */
    int dedicatedWaiting() {
        return dedicated.waitingCount();
    }

    boolean hasWaiters() {
        return !waiters.isEmpty() || dedicated.hasWaiting();
    }

    /** Whether clients wait that no login under way will serve (the count {@link #maybeOpen} opens for). */
    boolean needsServer() {
        return waiters.size() > logins.underWay() || dedicated.hasWaiting();
    }

    // ---------------------------------------------------------------- janitor

    /**
     * Whether nothing of this pool can be due within a janitor period: no client waits, no server logs in, and
     * the pool runs (a PAUSE waits for its servers to come back).
     */
    boolean quiet() {
        return state == RUNNING && waiters.isEmpty() && logins.underWay() == 0 && !dedicated.hasWaiting();
    }

    /** The periodic work of one pool: timeouts, idle and aged connections, min size, reserve, leaks. */
    void maintain() {
        maintenance.run();
    }

    // ---------------------------------------------------------------- pause, evict, close

    /**
     * PAUSE: stops handing out connections; the stage completes when none is in use any more. Waiting
     * and new clients queue until {@link #resume()}.
     */
    public CompletionStage<Void> pause() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (state == RUNNING) {
            pauseDone = done;
            state = PAUSED;
            checkPaused();
            return done;
        }
        return state == PAUSED ? pauseDone : CompletableFuture.failedFuture(shuttingDown());
    }

    /** RESUME: serves the clients that queued meanwhile. */
    public void resume() {
        if (state == PAUSED) {
            state = RUNNING;
            CompletableFuture<Void> done = pauseDone;
            if (done != null) {
                done.complete(null);
            }
            lending.serveWaiters();
            maybeOpen();
        }
    }

    void checkPaused() {
        CompletableFuture<Void> done = pauseDone;
        if (done != null && !done.isDone() && countServers(clock.nanoTime()).inUse() == 0) {
            done.complete(null);
        }
    }

    ServerCounts countServers(long now) {
        return servers.count(now, config.serverCheckDelayNanos());
    }

    /** Soft eviction: idle connections close now, busy ones when they are released. */
    @Override
    public void softEvictConnections() {
        softEvictConnections("evicted");
    }

    /**
     * Soft eviction for {@code reason}, the closing reason logged for each connection (the proxy's RECONNECT and
     * changed configuration give PgBouncer's {@code database configuration changed}). A login the server refused
     * is tried again at once rather than after server_login_retry: what made it fail may be what changed.
     */
    public void softEvictConnections(String reason) {
        logins.retryNow(clock.nanoTime());
        for (PooledServer<S> s : servers.members()) {
            s.evictedBecause = reason;
            disconnect.close(s, PooledServer.IDLE, reason);
        }
    }

    /**
     * Drains the pool: waiters fail with "pooler is shutting down", idle connections close now and busy
     * ones when released. The stage completes when the last connection is closed.
     */
    public CompletionStage<Void> close() {
        if (state != CLOSING) {
            state = CLOSING;
            CompletableFuture<Void> pausing = pauseDone;
            if (pausing != null) {
                pausing.complete(null);
            }
            PoolClosedException failure = shuttingDown();
            waiters.forEachWaiting(w -> waiters.fail(w, failure));
            dedicated.failAll(failure);
            for (PooledServer<S> s : servers.members()) {
                disconnect.close(s, PooledServer.IDLE, "pool closing");
            }
            if (serverCount.get() == 0) {
                closed.complete(null);
            }
            if (tracking) {
                tracker.close();
            }
        }
        return closed;
    }

    /** Closes every connection now, including those in use; their holders see their next call fail. */
    public void closeNow() {
        close();
        for (PooledServer<S> s : servers.members()) {
            // the one close of a server others hold: a CAS from whatever state it is in, until one wins or it left
            int st;
            do {
                st = s.state();
            } while (st != PooledServer.CLOSING && st != PooledServer.LOGIN
                    && !disconnect.close(s, st, "pool closed"));
        }
    }

    boolean isRunning() {
        return state == RUNNING;
    }

    public boolean isClosed() {
        return state == CLOSING;
    }

    /** Between {@link #pause()} (SUSPEND, PAUSE, the MXBean's suspendPool) and {@link #resume()}. */
    public boolean isPaused() {
        return state == PAUSED;
    }

    PoolClosedException shuttingDown() {
        return new PoolClosedException("pooler is shutting down (pool " + name + ")");
    }

    // ---------------------------------------------------------------- clients and stats

    void clientArrived() {
        clients.increment();
    }

    void clientLeft() {
        clients.decrement();
    }

    long clientCount() {
        return clients.sum();
    }

    int serverCount() {
        return serverCount.get();
    }

    int loginsInProgress() {
        return logins.underWay();
    }

    // ---------------------------------------------------------------- MXBean, read through the view

    @Override
    public int getIdleConnections() {
        return view.idleServers();
    }

    @Override
    public int getActiveConnections() {
        return view.serversInUse();
    }

    @Override
    public int getTotalConnections() {
        return view.totalServers();
    }

    @Override
    public int getThreadsAwaitingConnection() {
        return view.waitingClients();
    }

    @Override
    public void suspendPool() {
        pause();
    }

    @Override
    public void resumePool() {
        resume();
    }

    @Override
    public int getClientsActive() {
        return view.activeClients();
    }

    @Override
    public int getServersLogin() {
        return view.loginServers();
    }

    @Override
    public int getServersTested() {
        return view.testedServers();
    }

    @Override
    public long getMaxWaitMicros() {
        return view.maxWaitMicros();
    }

    @Override
    public String getPoolMode() {
        return config.poolMode().configName();
    }

    @Override
    public long getTransactionCount() {
        return traffic.transactionCount();
    }

    @Override
    public long getQueryCount() {
        return traffic.queryCount();
    }

    @Override
    public long getTotalWaitTimeMicros() {
        return traffic.waitTimeMicros();
    }

    @Override
    public String toString() {
        return "Pool[" + name + "]";
    }
}
