package io.pgmux.core.stats;

import io.pgmux.core.fleet.FleetStatus;

/**
 * Gauges handed to a {@link MetricsTrackerFactory}, shaped like HikariCP's {@code PoolStats} so existing
 * trackers port by changing an import. Values are cached and refreshed at most every {@code timeoutMs}.
 * Beyond HikariCP's figures it carries the pool's identity (database, user, pool mode) and the SHOW POOLS
 * and SHOW STATS figures a PgBouncer dashboard graphs.
 */
public abstract class PoolStats {
    private final long timeoutMs;
    private final String database;
    private final String user;
    private final String poolMode;
    private volatile long reloadAt;

    protected volatile int totalConnections;
    protected volatile int idleConnections;
    protected volatile int activeConnections;
    protected volatile int pendingThreads;
    protected volatile int maxConnections;
    protected volatile int minConnections;
    /** SHOW POOLS cl_active. */
    protected volatile int clientsActive;
    /** SHOW POOLS sv_login. */
    protected volatile int loginConnections;
    /** SHOW POOLS maxwait and maxwait_us, in microseconds. */
    protected volatile long maxWaitMicros;
    /** SHOW STATS totals. */
    protected volatile TrafficStats.Totals traffic = TrafficStats.Totals.ZERO;
    /** The pool's fleet as its last heartbeat saw it, or null outside a fleet. */
    protected volatile FleetStatus fleet;

    /** Stats of a pool with no identity beyond its name (HikariCP's constructor). */
    protected PoolStats(long timeoutMs) {
        this(timeoutMs, "", "", "");
    }

    protected PoolStats(long timeoutMs, String database, String user, String poolMode) {
        this.timeoutMs = timeoutMs;
        this.database = database;
        this.user = user;
        this.poolMode = poolMode;
    }

    public String getDatabase() {
        return database;
    }

    public String getUser() {
        return user;
    }

    /** The pool mode when the pool was created: session, transaction or statement. */
    public String getPoolMode() {
        return poolMode;
    }

    public int getTotalConnections() {
        refresh();
        return totalConnections;
    }

    public int getIdleConnections() {
        refresh();
        return idleConnections;
    }

    public int getActiveConnections() {
        refresh();
        return activeConnections;
    }

    public int getPendingThreads() {
        refresh();
        return pendingThreads;
    }

    public int getMaxConnections() {
        refresh();
        return maxConnections;
    }

    public int getMinConnections() {
        refresh();
        return minConnections;
    }

    public int getClientsActive() {
        refresh();
        return clientsActive;
    }

    public int getLoginConnections() {
        refresh();
        return loginConnections;
    }

    public long getMaxWaitMicros() {
        refresh();
        return maxWaitMicros;
    }

    public TrafficStats.Totals getTraffic() {
        refresh();
        return traffic;
    }

    /** The pool's fleet as its last heartbeat saw it, or null outside a fleet. */
    public FleetStatus getFleet() {
        refresh();
        return fleet;
    }

    /** Fills the protected fields. */
    protected abstract void update();

    private void refresh() {
        long now = System.currentTimeMillis();
        if (now >= reloadAt) {
            update();
            reloadAt = now + timeoutMs;
        }
    }
}
