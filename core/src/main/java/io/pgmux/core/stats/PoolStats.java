package io.pgmux.core.stats;

/**
 * Gauges handed to a {@link MetricsTrackerFactory}, shaped like HikariCP's {@code PoolStats} so existing
 * trackers port by changing an import. Values are cached and refreshed at most every {@code timeoutMs}.
 */
public abstract class PoolStats {
    private final long timeoutMs;
    private volatile long reloadAt;

    protected volatile int totalConnections;
    protected volatile int idleConnections;
    protected volatile int activeConnections;
    protected volatile int pendingThreads;
    protected volatile int maxConnections;
    protected volatile int minConnections;

    protected PoolStats(long timeoutMs) {
        this.timeoutMs = timeoutMs;
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
