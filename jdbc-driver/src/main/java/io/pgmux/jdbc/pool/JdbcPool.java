package io.pgmux.jdbc.pool;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.fleet.FleetCoordinator;
import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.Failures;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.LentServer;
import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolClosedException;
import io.pgmux.core.pool.PoolException;
import io.pgmux.core.pool.PoolFleetMember;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.pool.PoolTimeoutException;
import io.pgmux.core.pool.Replica;
import io.pgmux.core.pool.ReplicaMetrics;
import io.pgmux.core.pool.ReplicaSet;
import io.pgmux.core.pool.ServerLoginException;
import io.pgmux.core.pool.TooManyClientsException;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.jdbc.fleet.PgjdbcFleetSession;
import io.pgmux.jdbc.logical.ClusterIdentity;
import io.pgmux.jdbc.logical.LogicalConnection;
import io.pgmux.jdbc.logical.Reclaimer;
import io.pgmux.jdbc.logical.ServerDefaults;
import io.pgmux.jdbc.logical.ServerPool;
import io.pgmux.jdbc.logical.SessionDefaults;
import io.pgmux.jdbc.physical.PgjdbcConnector;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.core.pool.PinReason;
import io.pgmux.jdbc.sql.SqlClassifier;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGProperty;
import org.postgresql.util.PSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool of pgjdbc connections to one target and user, and the factory of the logical connections
 * that borrow from it. Shared by every {@code getConnection()} of a driver URL or a DataSource.
 */
public final class JdbcPool implements ServerPool, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JdbcPool.class);
    /** How long close() waits for leases in use to come back before closing them anyway. */
    private static final long DRAIN_SECONDS = 30;
    /** How long a read waits for a standby's pool before it looks again whether the standby is still usable. */
    /** How long the primary's cluster identity is used before it is asked again: a promotion changes its timeline. */
    private static final long CLUSTER_IDENTITY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long STANDBY_WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final JdbcPoolSettings settings;
    private final PoolRegistry<PhysicalConnection> registry;
    private final PgjdbcConnector connector;
    private final Pool<PhysicalConnection> pool;
    private final SqlClassifier classifier = new SqlClassifier();
    private final SessionDefaults sessionDefaults;
    private volatile ServerDefaults serverDefaults;
    private final ScheduledFuture<?> reclaimer;
    /** With readRouting=replicas: every host of the URL's list with a pool of its own; else null. */
    private final ReplicaSet<PhysicalConnection> replicas;
    private final ReplicaWatch replicaWatch;
    /** The read routing's MXBean and meters, or null without read routing. */
    private final ReplicaMetrics replicaMetrics;
    private final List<ScheduledFuture<?>> replicaReclaimers = new ArrayList<>();
    private final boolean tracksWrites;
    private final long replicaWaitNanos;
    private final AtomicBoolean sequenceReadLogged = new AtomicBoolean();
    private volatile ClusterIdentity clusterIdentity;
    private volatile long clusterIdentityAt;
    private final String resetQueryAlways;
    /** The pool's fleet coordination, or null outside a fleet. */
    private final FleetCoordinator fleet;

    public JdbcPool(JdbcPoolSettings settings) {
        this(settings, new org.postgresql.Driver());
    }

    /**
     * A pool whose server connections {@code driver} opens from {@code settings.targetUrl()}: pgjdbc's, or
     * for benchmarks and tests a driver whose connections unwrap to pgjdbc's BaseConnection.
     */
    public JdbcPool(JdbcPoolSettings settings, java.sql.Driver driver) {
        this.settings = settings;
        boolean routed = settings.readRouting == ReadRouting.REPLICAS;
        this.connector = connector(driver, settings, routed ? HostList.primaryUrl(settings.targetUrl)
                : settings.targetUrl);
        // Logical connections reset a server connection themselves, and only when the session changed
        // state the pool cannot track; the engine's reset-on-every-release is not needed here.
        PoolConfig engineConfig = settings.poolConfig.toBuilder().serverResetQuery("").build();
        Map<PoolKey, PgjdbcConnector> replicaConnectors = new LinkedHashMap<>();
        if (routed) {
            for (HostList.Host host : HostList.hosts(settings.targetUrl, settings.driverProperties)) {
                replicaConnectors.put(new PoolKey(settings.database + "@" + host.name(), settings.user),
                        connector(driver, settings, host.url()));
            }
        }
        PoolRegistry.Builder<PhysicalConnection> b = PoolRegistry.<PhysicalConnection>builder()
                .connectors(key -> replicaConnectors.getOrDefault(key, connector))
                .config(engineConfig).registerMbeans(settings.registerMbeans);
        if (settings.metricsTrackerFactory != null) {
            b.metricsTrackerFactory(settings.metricsTrackerFactory::create);
        }
        this.registry = b.build();
        this.pool = registry.pool(settings.database, settings.user);
        this.reclaimer = Reclaimer.start(pool, settings.idleTransactionTimeout);
        if (routed) {
            List<Replica<PhysicalConnection>> replicas = new ArrayList<>();
            for (PoolKey key : replicaConnectors.keySet()) {
                Pool<PhysicalConnection> p = registry.pool(key.database(), key.user());
                replicas.add(new Replica<>(key.database().substring(settings.database.length() + 1), p));
                replicaReclaimers.add(Reclaimer.start(p, settings.idleTransactionTimeout));
            }
            this.replicas = new ReplicaSet<>(replicas);
            this.replicaWatch = new ReplicaWatch(pool.name(), replicas(), List.copyOf(replicaConnectors.values()),
                    settings.replicaCheckPeriod, settings.replicaMaxLag);
            this.replicaMetrics = ReplicaMetrics.publish(pool, this.replicas, settings.registerMbeans,
                    settings.metricsTrackerFactory);
        } else {
            this.replicas = null;
            this.replicaWatch = null;
            this.replicaMetrics = null;
        }
        this.tracksWrites = routed && settings.readYourWrites;
        this.replicaWaitNanos = settings.replicaWaitTimeout.toNanos();
        this.sessionDefaults = new SessionDefaults(settings.autoCommit == null || settings.autoCommit,
                settings.readOnly != null && settings.readOnly, settings.transactionIsolation, settings.catalog,
                settings.schema, socketTimeoutMillis(settings));
        PoolConfig c = settings.poolConfig;
        this.resetQueryAlways = c.serverResetQueryAlways() && !c.serverResetQuery().isBlank()
                ? c.serverResetQuery() : null;
        this.fleet = settings.fleet == null ? null : joinFleet(settings);
    }

    /** The coordination connection logs in as the pool's do, through the credentialsProvider too. */
    private FleetCoordinator joinFleet(JdbcPoolSettings settings) {
        FleetCoordinator coordinator = new PostgresFleetCoordinator(settings.fleet, settings.fleetMaxServers,
                settings.database, settings.user, PgjdbcFleetSession.through(connector::connectUnpooled));
        coordinator.join(new PoolFleetMember(pool));
        return coordinator;
    }

    /**
     * The connector of one pool: a login looking for the targetServerType's kind through a failover leaves a
     * quarter of server_connect_timeout to its last try before the pool gives up on it.
     */
    private static PgjdbcConnector connector(java.sql.Driver driver, JdbcPoolSettings settings, String url) {
        return new PgjdbcConnector(driver, url, settings.driverProperties, settings.connectionInitSql,
                PgjdbcConnector.sharedExecutor(), settings.poolConfig.serverConnectTimeoutNanos() / 4 * 3,
                settings.credentialsProvider);
    }

    /**
     * pgjdbc's socketTimeout, from the URL or the properties as pgjdbc itself reads them: the network
     * timeout every logical connection starts with, since each server connection opens with it.
     */
    private static int socketTimeoutMillis(JdbcPoolSettings settings) {
        Properties parsed = org.postgresql.Driver.parseURL(settings.targetUrl, settings.driverProperties);
        if (parsed == null) {
            return 0;
        }
        try {
            Integer seconds = PGProperty.SOCKET_TIMEOUT.getInteger(parsed);
            return seconds == null || seconds <= 0 ? 0 : Math.multiplyExact(seconds, 1000);
        } catch (PSQLException | ArithmeticException e) {
            // pgjdbc refuses the value when it opens a connection, with its own message.
            return 0;
        }
    }

    public JdbcPoolSettings settings() {
        return settings;
    }

    public PoolConfig config() {
        return pool.config();
    }

    /**
     * One pool setting changed while the pool runs (the data source's config MXBean): checked with the others as
     * at the start, then in effect at once, as a RELOAD would put it (a smaller pool closes idle server connections
     * above it, a larger one serves waiting borrowers).
     *
     * @throws io.pgmux.core.config.ConfigException for a value the setting cannot take beside the others
     */
    public void reconfigure(String name, String text) {
        registry.reconfigure(registry.config().toBuilder().set(name, text).build());
    }

    /** New server connections log in with {@code password}; see {@link PgjdbcConnector#password(String)}. */
    public void password(String password) {
        connector.password(password);
    }

    @Override
    public PoolMode poolMode() {
        return pool.config().poolMode();
    }

    /** The engine pool behind this JDBC pool, for stats and management. */
    public Pool<PhysicalConnection> pool() {
        return pool;
    }

    @Override
    public SqlClassifier classifier() {
        return classifier;
    }

    @Override
    public SessionDefaults sessionDefaults() {
        return sessionDefaults;
    }

    /** A new logical connection; it holds no server connection until it runs its first statement. */
    public Connection getConnection() throws SQLException {
        if (pool.isClosed()) {
            throw closedException();
        }
        ClientAdmission admission;
        try {
            // A session-mode logical connection holds or waits for a server connection from here to close().
            admission = registry.admitClient(pool, pool.config().poolMode() == PoolMode.SESSION);
        } catch (TooManyClientsException e) {
            throw new SQLTransientConnectionException(pool.name() + " - " + e.getMessage(), "53300", e);
        }
        return new LogicalConnection(this, admission);
    }

    /** A logical connection closed, admitted as {@code admission}; call once. */
    @Override
    public void clientLeft(ClientAdmission admission) {
        registry.clientLeaves(pool, admission);
    }

    /**
     * What a server session starts with (isolation, search_path, database, application name): the same
     * for every connection of the pool, so learned from the first one and then answered without
     * borrowing. The first call borrows a connection if none was opened yet.
     */
    @Override
    public ServerDefaults serverDefaults() throws SQLException {
        ServerDefaults d = serverDefaults;
        if (d == null) {
            Lease<PhysicalConnection> lease = borrow();
            lease.release();
            d = serverDefaults;
        }
        return d;
    }

    /** Borrows a server connection through a lease, translating pool failures into SQLExceptions. */
    public Lease<PhysicalConnection> borrow() throws SQLException {
        Lease<PhysicalConnection> lease;
        try {
            lease = pool.acquire();
        } catch (PoolException | InterruptedException e) {
            throw borrowFailed(e);
        }
        try {
            learnServerDefaults(lease.connection());
        } catch (SQLException e) {
            lease.release();
            throw e;
        }
        return lease;
    }

    /**
     * Borrows a server connection lent to {@code client} itself (a logical connection), which alone can
     * give it back: no lease object per borrow.
     */
    @Override
    public LentServer<PhysicalConnection> borrowFor(Object client) throws SQLException {
        LentServer<PhysicalConnection> lent;
        try {
            lent = pool.acquireFor(client);
        } catch (PoolException | InterruptedException e) {
            throw borrowFailed(e);
        }
        try {
            learnServerDefaults(lent.connection());
        } catch (SQLException e) {
            lent.release(client);
            throw e;
        }
        return lent;
    }

    /**
     * Borrows for a read-only transaction: from the next standby in turn when read routing is on and one is
     * usable, else from the primary as {@link #borrowFor}. A standby whose pool cannot lend (it stopped since its
     * last check) leaves the read set and the primary serves: the transaction had not started on it.
     */
    @Override
    public LentServer<PhysicalConnection> borrowForRead(Object client, long minLsn, boolean mayWait)
            throws SQLException {
        if (replicas == null) {
            return borrowFor(client);
        }
        Replica<PhysicalConnection> replica = replicas.pick(minLsn);
        if (replica == null && mayWait && minLsn != 0 && replicaWaitNanos > 0 && replicas.hasStandby()) {
            replicaWatch.checkSoon();
            long start = System.nanoTime();
            try {
                replica = replicas.await(minLsn, replicaWaitNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                throw borrowFailed(e);
            } finally {
                replicas.replayWaited(System.nanoTime() - start);
            }
        }
        long wait = pool.config().queryWaitTimeoutNanos();
        long deadline = System.nanoTime() + (wait == 0 ? Long.MAX_VALUE / 2 : wait);
        // each standby once at most: one that is only busy is not waited for twice
        for (int tries = replicas.replicas().size(); replica != null && tries > 0; tries--) {
            LentServer<PhysicalConnection> lent = borrowFromStandby(replica, client, deadline);
            if (lent != null) {
                return lent;
            }
            replica = replicas.pick(minLsn);
        }
        if (minLsn != 0 && replicas.hasStandby()) {
            replicas.readSentToPrimaryForFreshness();
        }
        return borrowFor(client);
    }

    /**
     * A server connection of {@code replica}'s pool, or null when the read is better served elsewhere: the
     * standby left the read set while the read waited (a check found it stopped), it refused the login, or its
     * pool lent nothing by {@code deadline} (connectionTimeout after the read began). The read waits in slices of {@link #STANDBY_WAIT_SLICE_NANOS}
     * so that a standby that stopped costs it no more than the check that finds so, which the first slice that
     * passes asks for at once; a pool that is merely busy keeps the read until the deadline.
     */
    private LentServer<PhysicalConnection> borrowFromStandby(Replica<PhysicalConnection> replica, Object client,
                                                            long deadline) throws SQLException {
        boolean checkAsked = false;
        while (true) {
            long slice = Math.min(STANDBY_WAIT_SLICE_NANOS, deadline - System.nanoTime());
            try {
                LentServer<PhysicalConnection> lent = replica.pool().acquireFor(client, Math.max(slice, 1),
                        TimeUnit.NANOSECONDS);
                replica.readRouted();
                return lent;
            } catch (PoolTimeoutException e) {
                if (!replica.isStandby() || deadline - System.nanoTime() <= 0) {
                    log.debug("pool {}: standby {} lent nothing, the read goes elsewhere", pool.name(),
                            replica.host());
                    return null;
                }
                if (!checkAsked) {
                    checkAsked = true;
                    replicaWatch.checkSoon();
                }
            } catch (PoolException e) {
                log.warn("pool {}: standby {} could not lend a server connection, the read goes elsewhere: {}",
                        pool.name(), replica.host(), e.getMessage());
                if (e instanceof PoolClosedException) {
                    throw borrowFailed(e);
                }
                replicas.unreachable(replica);
                return null;
            } catch (InterruptedException e) {
                throw borrowFailed(e);
            }
        }
    }

    @Override
    public boolean routesReads() {
        return replicas != null;
    }

    @Override
    public boolean onStandby(LentServer<PhysicalConnection> server) {
        return replicas != null && !server.poolKey().equals(pool.key());
    }

    @Override
    public boolean tracksWrites() {
        return tracksWrites;
    }

    @Override
    public long walInsertLsn() throws SQLException {
        return onPrimary("SELECT pg_current_wal_insert_lsn()::text", rs -> Lsn.parse(rs.getString(1)));
    }

    @Override
    public boolean standbyHasReplayed(long lsn) {
        return replicas != null && replicas.pick(lsn) != null;
    }

    @Override
    public ClusterIdentity clusterIdentity(boolean fresh) throws SQLException {
        ClusterIdentity known = clusterIdentity;
        if (known != null && !fresh && System.nanoTime() - clusterIdentityAt < CLUSTER_IDENTITY_NANOS) {
            return known;
        }
        known = onPrimary("SELECT system_identifier, (SELECT timeline_id FROM pg_control_checkpoint())"
                + " FROM pg_control_system()", rs -> new ClusterIdentity(rs.getLong(1), rs.getInt(2)));
        clusterIdentityAt = System.nanoTime();
        clusterIdentity = known;
        return known;
    }

    private interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** The one row {@code sql} answers, on a primary server connection borrowed for it alone. */
    private <T> T onPrimary(String sql, Row<T> row) throws SQLException {
        Lease<PhysicalConnection> lease = borrow();
        T value;
        try {
            PhysicalConnection p = lease.connection();
            // whatever its last borrower left, this query must not open a transaction
            p.autoCommit(true);
            try (Statement st = p.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                value = row.read(rs);
            }
        } catch (SQLException | RuntimeException e) {
            lease.discard(e);
            throw e;
        }
        lease.release();
        return value;
    }

    /** With readRouting=replicas, the hosts reads may go to and what their last check found; else null. */
    public ReplicaSet<PhysicalConnection> replicas() {
        return replicas;
    }

    private void learnServerDefaults(PhysicalConnection p) throws SQLException {
        if (serverDefaults == null) {
            serverDefaults = ServerDefaults.of(p);
        }
    }

    private SQLException borrowFailed(Exception failure) {
        if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new SQLTransientConnectionException(pool.name()
                    + " - interrupted while waiting for a server connection", "08001", failure);
        }
        if (failure instanceof PoolTimeoutException) {
            SQLTransientConnectionException ex = new SQLTransientConnectionException(
                    pool.name() + " - " + failure.getMessage(), "08001", failure);
            if (failure.getCause() instanceof SQLException) {
                ex.setNextException((SQLException) failure.getCause());
            }
            return ex;
        }
        if (failure instanceof ServerLoginException) {
            // The server's own error and SQLSTATE, whether this borrow's login got it or one within
            // server_login_retry did (pgjdbc would have thrown the same one connecting itself).
            ServerLoginException e = (ServerLoginException) failure;
            if (e.getCause() instanceof SQLException) {
                SQLException server = (SQLException) e.getCause();
                return new SQLNonTransientConnectionException(server.getMessage(), server.getSQLState(),
                        server.getErrorCode(), e);
            }
            return new SQLNonTransientConnectionException(e.getCause().getMessage(), "08001", e);
        }
        if (failure instanceof PoolClosedException) {
            return closedException();
        }
        return new SQLNonTransientConnectionException(failure.getMessage(), "08001", failure);
    }

    private SQLNonTransientConnectionException closedException() {
        return new SQLNonTransientConnectionException("pool " + pool.name() + " has been closed", "08003");
    }

    /** A logical connection was pinned to its server connection; the engine pool counts it for the MXBean and metrics. */
    @Override
    public String resetQueryAlways() {
        return resetQueryAlways;
    }

    @Override
    public void sequenceReadAlone() {
        if (!sequenceReadLogged.get() && sequenceReadLogged.compareAndSet(false, true)) {
            log.warn("pool {}: {}; logged once per pool", pool.name(), LogicalConnection.SEQUENCE_READ_ALONE);
        }
    }

    @Override
    public void pinned(PinReason reason, int backendPid) {
        if (log.isDebugEnabled()) {
            log.debug("pool {}: logical connection pinned to backend {} until it closes: {}", pool.name(),
                    backendPid, reason.description());
        }
        pool.clientPinned(reason.name());
    }

    @Override
    public void unpinned() {
        pool.clientUnpinned();
    }

    /** Logical connections pinned to a server connection right now. */
    public int pinnedConnections() {
        return pool.getClientsPinned();
    }

    /** Pins since the pool started. */
    public long pinsTotal() {
        return pool.getPinsByReason().values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public boolean isClosed() {
        return pool.isClosed();
    }

    @Override
    public TrafficStats traffic() {
        return pool.traffic();
    }

    @Override
    public boolean timesStatements() {
        return settings.metricsTrackerFactory != null;
    }

    /**
     * Drains: new borrows fail, leases in use are awaited (up to 30 s) and their server connections
     * closed as they come back, then everything still open is closed.
     */
    @Override
    public void close() {
        if (replicaWatch != null) {
            replicaWatch.close();
            replicaMetrics.close();
        }
        try {
            registry.closeGracefully().toCompletableFuture().get(DRAIN_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            log.warn("pool {}: {} connections still in use after {} s; closing them", pool.name(),
                    pool.getActiveConnections(), DRAIN_SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            log.warn("pool {}: draining failed", pool.name(), Failures.cause(e));
        } finally {
            reclaimer.cancel(false);
            replicaReclaimers.forEach(r -> r.cancel(false));
            registry.close();
            // Only once its servers are closed does the member give its share back.
            if (fleet != null) {
                fleet.close();
            }
        }
    }

    @Override
    public String toString() {
        return "JdbcPool[" + pool.name() + "]";
    }
}
