package io.pgmux.core.stats;

/** One row of SHOW POOLS, taken at one moment. */
public final class PoolSnapshot {
    public final String database;
    public final String user;
    /** Clients connected and not waiting for a server. */
    public final int clActive;
    /** Clients waiting for a server connection. */
    public final int clWaiting;
    /** Server connections linked to a client. */
    public final int svActive;
    /** Server connections idle and ready for immediate use. */
    public final int svIdle;
    /** Idle server connections that will be tested before reuse (idle longer than server_check_delay). */
    public final int svUsed;
    /** Server connections being tested or reset. */
    public final int svTested;
    /** Server connections being opened. */
    public final int svLogin;
    /** How long the oldest waiting client has waited: whole seconds and the microseconds beyond them. */
    public final long maxwait;
    public final long maxwaitUs;
    public final String poolMode;

    public PoolSnapshot(String database, String user, int clActive, int clWaiting, int svActive, int svIdle,
                        int svUsed, int svTested, int svLogin, long maxwait, long maxwaitUs, String poolMode) {
        this.database = database;
        this.user = user;
        this.clActive = clActive;
        this.clWaiting = clWaiting;
        this.svActive = svActive;
        this.svIdle = svIdle;
        this.svUsed = svUsed;
        this.svTested = svTested;
        this.svLogin = svLogin;
        this.maxwait = maxwait;
        this.maxwaitUs = maxwaitUs;
        this.poolMode = poolMode;
    }

    /** Every server connection the pool has, in any state. */
    public int svTotal() {
        return svActive + svIdle + svUsed + svTested + svLogin;
    }

    @Override
    public String toString() {
        return database + "/" + user + " cl_active=" + clActive + " cl_waiting=" + clWaiting + " sv_active="
                + svActive + " sv_idle=" + svIdle + " sv_used=" + svUsed + " sv_tested=" + svTested + " sv_login="
                + svLogin + " maxwait=" + maxwait + "." + String.format("%06d", maxwaitUs) + " pool_mode="
                + poolMode;
    }
}
