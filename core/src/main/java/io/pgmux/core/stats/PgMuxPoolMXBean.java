package io.pgmux.core.stats;

/**
 * JMX view of one pool. The first seven operations are HikariCP's {@code HikariPoolMXBean}, so existing
 * dashboards and scripts keep working; the rest are the SHOW POOLS figures.
 */
public interface PgMuxPoolMXBean {
    int getIdleConnections();

    int getActiveConnections();

    int getTotalConnections();

    int getThreadsAwaitingConnection();

    void softEvictConnections();

    void suspendPool();

    void resumePool();

    int getClientsActive();

    int getServersLogin();

    int getServersTested();

    long getMaxWaitMicros();

    String getPoolMode();

    long getTransactionCount();

    long getQueryCount();

    long getTotalWaitTimeMicros();

    /** Clients pinned to their server connection by session state now (transaction and statement mode). */
    int getClientsPinned();

    /** How often a client was pinned since the pool started, per reason (LISTEN, ADVISORY_LOCK, …). */
    java.util.Map<String, Long> getPinsByReason();
}
