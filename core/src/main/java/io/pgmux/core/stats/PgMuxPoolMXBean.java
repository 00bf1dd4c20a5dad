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

    /** The fleet the pool is a member of, or an empty string (docs/fleet.md). */
    String getFleet();

    /** The server connections the pool may hold as its fleet's share; 0 outside a fleet. */
    int getFleetShare();

    /** What the pool's share leaves of its equal part of the fleet's budget to the other members. */
    int getFleetLent();

    /** What the pool's share holds beyond its equal part of the fleet's budget. */
    int getFleetBorrowed();

    /** The fleet's members the pool saw at its last heartbeat, itself included; 0 outside a fleet. */
    int getFleetMembers();

    /** Whether the fleet's coordination failed and the pool holds a fixed share. */
    boolean isFleetFallback();
}
