package io.pgmux.core.pool;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.core.stats.IMetricsTracker;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.PoolMBeans;
import io.pgmux.core.stats.PoolSnapshot;
import io.pgmux.core.stats.PoolStats;
import io.pgmux.core.stats.TrafficStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * All pools of one pooler, one per (database, user), created on first use. Holds what pools share:
 * max_client_conn, max_db_connections, max_user_connections, and the janitor.
 */
public final class PoolRegistry<S> implements AutoCloseable {
    private final Function<PoolKey, ServerConnector<S>> connectors;
    private final Function<PoolKey, PoolConfig> configs;
    private volatile PoolConfig defaults;
    private volatile PoolOverrides overrides;
    private final PoolClock clock;
    private final MetricsTrackerFactory metricsTrackerFactory;
    private final boolean registerMbeans;
    private final LongSupplier serverIds;
    private final PoolListener<S> listener;
    private final ConcurrentHashMap<PoolKey, Pool<S>> pools = new ConcurrentHashMap<>();
    /** Statistics kept outside the pools, see {@link #addTraffic}. */
    private final List<TrafficStats> unpooledTraffic = new CopyOnWriteArrayList<>();
    /** The pools whose MXBean this registry registered: another pooler's pool of the same name keeps its own. */
    private final Set<Pool<S>> registeredMbeans = ConcurrentHashMap.newKeySet();
    /** max_db_connections and max_user_connections. */
    final SharedLimits<S> limits = new SharedLimits<>(pools.values());
    /**
     * Clients admitted under a max_client_conn limit: a CAS keeps the count exact at the limit. Clients
     * admitted without one are counted only by their pool, in a striped adder, so admitting them from
     * many threads contends on nothing.
     */
    private final AtomicInteger limitedClients = new AtomicInteger();
    private final Janitor janitor;
    private final ScheduledExecutorService ownScheduler;
    private volatile boolean closed;

    private PoolRegistry(Builder<S> b) {
        this.connectors = Objects.requireNonNull(b.connectors, "connector");
        this.defaults = b.defaults;
        b.overrides.validate(b.defaults);
        this.overrides = b.overrides;
        this.configs = b.configs != null ? b.configs
                : key -> this.overrides.apply(this.defaults, key.database(), key.user());
        this.clock = b.clock;
        this.metricsTrackerFactory = b.metricsTrackerFactory;
        this.registerMbeans = b.registerMbeans;
        this.serverIds = b.serverIds != null ? b.serverIds : new AtomicLong()::incrementAndGet;
        this.listener = b.listener;
        this.janitor = new Janitor(this, clock, b.statsPeriod.toNanos());
        long period = b.janitorPeriod.toNanos();
        if (period > 0) {
            ScheduledExecutorService executor = b.scheduler;
            if (executor == null) {
                ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, "pgmux-janitor");
                    t.setDaemon(true);
                    return t;
                });
                own.setRemoveOnCancelPolicy(true);
                executor = own;
                ownScheduler = own;
            } else {
                ownScheduler = null;
            }
            janitor.schedule(executor, period);
        } else {
            ownScheduler = null;
        }
    }

    public static <S> Builder<S> builder() {
        return new Builder<>();
    }

    /** The pool of (database, user), created with its configuration on first use. */
    public Pool<S> pool(String database, String user) {
        PoolKey key = new PoolKey(database, user);
        Pool<S> pool = pools.get(key);
        return pool != null ? pool : pools.computeIfAbsent(key, this::createPool);
    }

    /** The pool of (database, user) if one exists; unlike {@link #pool} it never creates one. */
    public Optional<Pool<S>> find(String database, String user) {
        return Optional.ofNullable(pools.get(new PoolKey(database, user)));
    }

    long nextServerId() {
        return serverIds.getAsLong();
    }

    private Pool<S> createPool(PoolKey key) {
        if (closed) {
            throw new PoolClosedException("pooler is shutting down");
        }
        PoolConfig config = configs.apply(key);
        Pool<S> pool = new Pool<>(key, config, this, connectors.apply(key), clock,
                metricsTrackerFactory == null ? null : this::createTracker);
        if (registerMbeans) {
            registerMBean(pool);
        }
        if (listener != null) {
            listener.created(pool);
        }
        pool.ensureMin();
        return pool;
    }

    private IMetricsTracker createTracker(Pool<?> pool) {
        PoolKey key = pool.key();
        return metricsTrackerFactory.create(pool.name(), new PoolStats(1000, key.database(), key.user(),
                pool.config().poolMode().configName()) {
            @Override
            protected void update() {
                PoolSnapshot s = pool.view().snapshot();
                totalConnections = s.svTotal();
                idleConnections = s.svIdle + s.svUsed;
                activeConnections = s.svActive;
                pendingThreads = s.clWaiting;
                maxConnections = pool.config().defaultPoolSize();
                minConnections = pool.config().minPoolSize();
                clientsActive = s.clActive;
                loginConnections = s.svLogin;
                maxWaitMicros = s.maxwait * 1_000_000 + s.maxwaitUs;
                traffic = pool.traffic().totals();
                fleet = pool.fleetStatus();
            }
        });
    }

    /**
     * RELOAD: {@code config} becomes the settings of every pool (under its database's and user's overrides,
     * which stay as they are; or through the per-pool function, when one was given) and of pools made later.
     * Sizes apply at once, surplus idle connections close at the next janitor run; a changed max_client_conn
     * counts the clients that arrive afterwards.
     *
     * @throws io.pgmux.core.config.ConfigException when an override does not fit the new settings (nothing
     *     changes then)
     */
    public void reconfigure(PoolConfig config) {
        reconfigure(config, overrides);
    }

    /** RELOAD with new per-database and per-user overrides as well; see {@link #reconfigure(PoolConfig)}. */
    public void reconfigure(PoolConfig config, PoolOverrides overrides) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(overrides, "overrides").validate(config);
        this.overrides = overrides;
        this.defaults = config;
        for (Pool<S> pool : pools.values()) {
            pool.reconfigure(configs.apply(pool.key()));
        }
    }

    /** The registry-wide settings (max_client_conn) and those of pools without their own. */
    public PoolConfig config() {
        return defaults;
    }

    /** The per-database and per-user settings on top of {@link #config()}. */
    public PoolOverrides overrides() {
        return overrides;
    }

    /**
     * RELOAD removed {@code database}: its pools leave the registry and close now with every connection, in use
     * or not; their clients are the owner's to disconnect. A pool made for the name later starts afresh.
     */
    public void removeDatabase(String database) {
        for (Pool<S> pool : pools.values()) {
            if (pool.key().database().equals(database)) {
                removePool(pool);
            }
        }
    }

    /**
     * pool_idle_timeout: {@code pool} leaves the registry, if it is still the one registered under its key, and
     * closes now with every connection. A pool made for the key later starts afresh, statistics included.
     *
     * @return whether {@code pool} was registered
     */
    public boolean removePool(Pool<S> pool) {
        if (!pools.remove(pool.key(), pool)) {
            return false;
        }
        pool.closeNow();
        removed(pool);
        return true;
    }

    /**
     * RELOAD changed what the pools of {@code database} reach, and none is to be made for it again (a host a
     * read-routing entry no longer lists): they leave the registry and close as PgBouncer closes the servers of a
     * changed database, idle ones now, busy ones once released.
     */
    public void retireDatabase(String database) {
        for (Pool<S> pool : pools.values()) {
            if (pool.key().database().equals(database) && pools.remove(pool.key(), pool)) {
                pool.close();
                removed(pool);
            }
        }
    }

    private void removed(Pool<S> pool) {
        if (registerMbeans) {
            unregisterMBean(pool);
        }
        if (listener != null) {
            listener.removed(pool);
        }
    }

    /** The factory each pool's meters come from; null without one. */
    public MetricsTrackerFactory metricsTrackerFactory() {
        return metricsTrackerFactory;
    }

    /** Whether each pool registers its MXBean. */
    public boolean registersMbeans() {
        return registerMbeans;
    }

    public Collection<Pool<S>> pools() {
        return Collections.unmodifiableCollection(pools.values());
    }

    /**
     * Statistics counted outside any pool — the proxy's admin console, which PgBouncer counts in the pool of its
     * database {@code pgbouncer} — whose stats period rolls with the pools'.
     */
    public void addTraffic(TrafficStats traffic) {
        unpooledTraffic.add(Objects.requireNonNull(traffic, "traffic"));
    }

    /** Every pool's statistics and those {@link #addTraffic added}: what the stats period rolls and totals sum. */
    public List<TrafficStats> traffic() {
        List<TrafficStats> all = new ArrayList<>(pools.size() + unpooledTraffic.size());
        pools.values().forEach(pool -> all.add(pool.traffic()));
        all.addAll(unpooledTraffic);
        return all;
    }

    /** SHOW POOLS: one row per pool. */
    public List<PoolSnapshot> snapshots() {
        List<PoolSnapshot> rows = new ArrayList<>();
        for (Pool<S> pool : pools.values()) {
            rows.add(pool.view().snapshot());
        }
        return rows;
    }

    /**
     * Admits a client of {@code pool} under max_client_conn, or refuses with PgBouncer's message. Pass the
     * answer to {@link #clientLeaves(Pool, ClientAdmission)} exactly once when the client disconnects.
     *
     * @param linkedForLife the client holds or waits for a server connection from now until it leaves (a
     *     session-mode logical connection): without a max_client_conn limit it then need not be counted
     * @throws TooManyClientsException at max_client_conn
     */
    public ClientAdmission admitClient(Pool<S> pool, boolean linkedForLife) {
        int max = defaults.maxClientConn();
        if (max <= 0) {
            if (linkedForLife) {
                return ClientAdmission.UNCOUNTED;
            }
            pool.clientArrived();
            return ClientAdmission.COUNTED;
        }
        for (;;) {
            int c = limitedClients.get();
            if (c >= max) {
                throw new TooManyClientsException("no more connections allowed (max_client_conn)");
            }
            if (limitedClients.compareAndSet(c, c + 1)) {
                break;
            }
        }
        pool.clientArrived();
        return ClientAdmission.LIMITED;
    }

    /** A client admitted by {@link #admitClient} disconnected; {@code admission} is what that returned. */
    public void clientLeaves(Pool<?> pool, ClientAdmission admission) {
        if (admission == ClientAdmission.UNCOUNTED) {
            return;
        }
        if (admission == ClientAdmission.LIMITED) {
            limitedClients.decrementAndGet();
        }
        pool.clientLeft();
    }

    /** Clients connected to any pool. */
    public int clientCount() {
        long n = 0;
        for (Pool<S> pool : pools.values()) {
            n += pool.clientCount();
        }
        return (int) n;
    }

    /** Server connections open (or opening) to a database across its users' pools. */
    public int databaseConnections(String database) {
        return limits.databaseConnections(database);
    }

    public int userConnections(String user) {
        return limits.userConnections(user);
    }

    /**
     * A new time between two janitor passes, from the pass after the next on; for a registry built with a
     * janitor period above zero.
     */
    public void janitorPeriod(Duration period) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("janitor period must be above zero: " + period);
        }
        janitor.period(period.toNanos());
    }

    /**
     * Janitor passes {@code period} apart while nothing can be due soon: no pool has a client waiting, a server
     * logging in or a PAUSE under way, and {@code ownerQuiet} says the owner has nothing due either (the proxy:
     * no client's timeout can be due). The owner calls {@link #wakeJanitor} when that changes. {@code period} bounds how
     * late what can still be due then (an idle server's timeouts, the stats period) comes; at or below the
     * janitor's period, or zero, the janitor keeps its period.
     */
    public void janitorQuietPeriod(Duration period, BooleanSupplier ownerQuiet) {
        janitor.quiet(period.toNanos(), Objects.requireNonNull(ownerQuiet, "ownerQuiet"));
    }

    /** Something can be due soon: a janitor sleeping its quiet period runs its next pass one period from now. */
    public void wakeJanitor() {
        janitor.wake();
    }

    /**
     * PgBouncer's stats_period changed at run time (RELOAD, SET): the period running now ends when the new length
     * has passed since it began.
     */
    public void statsPeriod(Duration period) {
        janitor.statsPeriod(period.toNanos());
    }

    /**
     * Runs {@code chore} at the end of every janitor pass, on the janitor's thread: the owner's periodic work
     * (the proxy checks its clients' timeouts there, as PgBouncer's janitor does), so that one clock drives it
     * all. A chore must not block.
     */
    public void addJanitorChore(Runnable chore) {
        janitor.add(Objects.requireNonNull(chore, "chore"));
    }

    /**
     * Calls {@code listener} on the janitor's thread each time a stats period closes, with the period of every
     * pool and of what was {@link #addTraffic added} summed (PgBouncer's log_stats line reads it). It must not
     * block.
     */
    public void addStatsPeriodListener(Consumer<TrafficStats.Period> listener) {
        janitor.addPeriodListener(Objects.requireNonNull(listener, "listener"));
    }

    /** Retries the logins of {@code pool} after a back-off shorter than the janitor's period. */
    void retryLoginsLater(Pool<S> pool, long delayNanos) {
        janitor.later(pool::retryLogins, delayNanos);
    }

    /** One janitor pass now; for tests with a manual clock, and for callers that schedule it themselves. */
    public void runJanitor() {
        janitor.run();
    }

    private void registerMBean(Pool<S> pool) {
        if (PoolMBeans.register("Pool", pool.name(), pool)) {
            registeredMbeans.add(pool);
        }
    }

    private void unregisterMBean(Pool<S> pool) {
        if (registeredMbeans.remove(pool)) {
            PoolMBeans.unregister("Pool", pool.name());
        }
    }

    /** Drains every pool; the stage completes when all their connections are closed. */
    public CompletionStage<Void> closeGracefully() {
        closed = true;
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Pool<S> pool : pools.values()) {
            all.add(pool.close().toCompletableFuture());
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> stop());
    }

    /** Closes every pool and connection now. */
    @Override
    public void close() {
        closed = true;
        for (Pool<S> pool : pools.values()) {
            pool.closeNow();
        }
        stop();
    }

    private void stop() {
        janitor.cancel();
        if (ownScheduler != null) {
            ownScheduler.shutdownNow();
        }
        pools.values().forEach(this::unregisterMBean);
        if (listener != null) {
            pools.values().forEach(listener::removed);
        }
    }

    /** Configures a registry. */
    public static final class Builder<S> {
        private Function<PoolKey, ServerConnector<S>> connectors;
        private Function<PoolKey, PoolConfig> configs;
        private PoolConfig defaults = PoolConfig.jdbcDefaults().build();
        private PoolOverrides overrides = PoolOverrides.none();
        private PoolClock clock = PoolClock.SYSTEM;
        private Duration janitorPeriod = Duration.ofMillis(333);
        private Duration statsPeriod = Duration.ofSeconds(60);
        private ScheduledExecutorService scheduler;
        private MetricsTrackerFactory metricsTrackerFactory;
        private boolean registerMbeans;
        private LongSupplier serverIds;
        private PoolListener<S> listener;

        private Builder() {
        }

        /** One connector for every pool. */
        public Builder<S> connector(ServerConnector<S> connector) {
            Objects.requireNonNull(connector, "connector");
            this.connectors = key -> connector;
            return this;
        }

        /** A connector per pool (e.g. one per database target). */
        public Builder<S> connectors(Function<PoolKey, ServerConnector<S>> connectors) {
            this.connectors = connectors;
            return this;
        }

        /** Settings of every pool, and the registry-wide max_client_conn. */
        public Builder<S> config(PoolConfig config) {
            this.defaults = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Settings of the pools of some databases and users that differ from {@link #config(PoolConfig)}
         * (PgBouncer's {@code [databases]} and {@code [users]} keys), kept on top of it across reconfigures.
         */
        public Builder<S> overrides(PoolOverrides overrides) {
            this.overrides = Objects.requireNonNull(overrides, "overrides");
            return this;
        }

        /** Per-pool settings computed by the caller; replaces {@link #overrides(PoolOverrides)}. */
        public Builder<S> configs(Function<PoolKey, PoolConfig> configs) {
            this.configs = configs;
            return this;
        }

        public Builder<S> clock(PoolClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How often the janitor runs (default a third of a second, as PgBouncer's). Zero schedules
         * nothing: the owner calls {@link PoolRegistry#runJanitor()}.
         */
        public Builder<S> janitorPeriod(Duration period) {
            this.janitorPeriod = Objects.requireNonNull(period, "period");
            return this;
        }

        /** PgBouncer's stats_period: the window of the SHOW STATS averages. */
        public Builder<S> statsPeriod(Duration period) {
            this.statsPeriod = Objects.requireNonNull(period, "period");
            return this;
        }

        /** Runs the janitor on this executor instead of a thread of its own. */
        public Builder<S> scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        public Builder<S> metricsTrackerFactory(MetricsTrackerFactory factory) {
            this.metricsTrackerFactory = factory;
            return this;
        }

        /** Registers a {@code io.pgmux:type=Pool,name=…} MXBean per pool. */
        public Builder<S> registerMbeans(boolean register) {
            this.registerMbeans = register;
            return this;
        }

        /**
         * Where new server connections take their ids (SHOW SERVERS' id); by default the registry counts from 1.
         * A pooler that numbers its clients from the same counter, as PgBouncer does, passes it here.
         */
        public Builder<S> serverIds(LongSupplier ids) {
            this.serverIds = Objects.requireNonNull(ids, "ids");
            return this;
        }

        /** Told of each pool made and removed; none by default. */
        public Builder<S> listener(PoolListener<S> listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public PoolRegistry<S> build() {
            return new PoolRegistry<>(this);
        }
    }
}
