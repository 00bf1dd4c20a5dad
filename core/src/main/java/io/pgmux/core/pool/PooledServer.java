package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * One server connection owned by a pool, with PgBouncer's states as one machine: LOGIN, then IDLE, ACTIVE and
 * TESTED in turn, then CLOSING, which is final. Every change is a CAS in {@link #to}, so that borrowing takes no
 * lock and two threads never win the same connection. While ACTIVE it is lent to one client object (a
 * {@link Lease} or the caller of {@link Pool#acquireFor}), and only that object can end the loan; a server handed
 * from one client straight to the next stays ACTIVE. How the connection itself logs in and whom it relays to is
 * its connector's (the proxy's ServerConnection), not a second state of the server.
 */
final class PooledServer<S> implements LentServer<S> {
    /** Being opened and logged in (SV_LOGIN). */
    static final int LOGIN = 0;
    /** In the pool, free to lend (SV_IDLE, and SV_USED when due for server_check_query: {@link #needsCheck}). */
    static final int IDLE = 1;
    /** Lent to a client, or claimed by the thread about to lend, check or close it (SV_ACTIVE). */
    static final int ACTIVE = 2;
    /** Running server_check_query or server_reset_query (SV_TESTED). */
    static final int TESTED = 3;
    /** Out of the pool: closed, or a login given up (SV_FREE); no transition leaves it. */
    static final int CLOSING = 4;

    /** The transitions, one bit per state each state may move to. */
    private static final int[] NEXT = {
            1 << ACTIVE | 1 << CLOSING,                // LOGIN: logged in (handed to its first client), or failed
            1 << ACTIVE | 1 << TESTED | 1 << CLOSING,  // IDLE: claimed, kept alive by the janitor, or closed
            1 << IDLE | 1 << TESTED | 1 << CLOSING,    // ACTIVE: given back, checked or reset, or closed
            1 << ACTIVE | 1 << CLOSING,                // TESTED: passed (and given back by its tester), or failed
            0                                          // CLOSING
    };

    private static final VarHandle STATE;
    private static final VarHandle CLIENT;
    private static final VarHandle ASSIGNMENTS;
    /** PgBouncer's janitor period (a third of a second): how long an idle connection may wait to be marked used. */
    private static final long JANITOR_MARKS_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(333);

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PooledServer.class, "state", int.class);
            CLIENT = MethodHandles.lookup().findVarHandle(PooledServer.class, "client", Object.class);
            ASSIGNMENTS = MethodHandles.lookup().findVarHandle(PooledServer.class, "assignments", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Pool<S> pool;
    private final long id;
    final long loginStartedNanos;

    private volatile int state = LOGIN;
    volatile S connection;
    /** What the connector says the connection is bound to (an event loop, say); null for none. */
    volatile Object affinity;
    volatile long connectedAtNanos;
    /**
     * The share of server_lifetime this connection lives, drawn at login so that connections made together do not
     * all retire together; server_lifetime itself is read when the age is checked, so a changed value applies.
     */
    volatile double lifetimeShare = 1;
    /**
     * Written before the transition to IDLE that publishes it, and read only after reading the state, so it
     * needs no volatile store of its own on every release.
     */
    long lastUsedNanos;
    /**
     * When the connection was last known to work: given back by a client, or passed the janitor's background
     * check. Written and read as {@link #lastUsedNanos} is.
     */
    long checkedNanos;
    /**
     * Lent to a client since it logged in or last passed a check: with server_check_delay 0 it is checked
     * before its next loan, as PgBouncer's release puts it in sv_used. Written and read as {@link #lastUsedNanos} is.
     */
    boolean usedSinceCheck;
    /** Whom the connection is lent to; null while it is not lent. Ending a loan is a CAS from that client. */
    private volatile Object client;
    /**
     * When the current loan began: written before the loan is published by the store of {@code client},
     * read by the client ending it.
     */
    long lentAtNanos;
    /** The current loan's watch, only when leak detection is on (the janitor's leak check reads it). */
    volatile LeakWatch leak;
    /**
     * Loans of this connection (SHOW STATS' server assignments). Only the thread lending it writes, and a
     * lender holds the server alone, after the previous holder's release; stats read it opaquely.
     */
    private long assignments;
    volatile Throwable brokenCause;
    /** Set by soft eviction and RECONNECT to the reason to close instead of reusing; null while reusable. */
    volatile String evictedBecause;
    /** Opened for one client alone ({@link DedicatedLogins}): closed when its loan ends, never idle. */
    final boolean dedicated;

    PooledServer(Pool<S> pool, long nowNanos) {
        this(pool, nowNanos, false);
    }

    PooledServer(Pool<S> pool, long nowNanos, boolean dedicated) {
        this.pool = pool;
        this.id = pool.nextServerId();
        this.loginStartedNanos = nowNanos;
        this.dedicated = dedicated;
    }

    int state() {
        return state;
    }

    /**
     * The one transition: from {@code from}, the state the caller saw or holds the server in, to {@code next};
     * false when another thread moved it first. Leaving LOGIN or IDLE must be a CAS: the janitor, borrowers,
     * {@link #markBroken}, eviction and the pool's close race for a server in those states. ACTIVE and TESTED are
     * the holder's alone (the thread whose CAS took the server out of LOGIN or IDLE), so a volatile store would
     * do for leaving them but for {@link Pool#closeNow}, which closes servers others hold: with a CAS, CLOSING is
     * final, and a holder's late change (a check or reset completing, a server given back) fails instead of
     * bringing a closed server back. A CAS costs what a volatile store does on x86 (one locked instruction).
     */
    boolean to(int from, int next) {
        assert (NEXT[from] & 1 << next) != 0 : this + ": no transition from " + from + " to " + next;
        return STATE.compareAndSet(this, from, next);
    }

    /**
     * Lends the connection (ACTIVE, claimed by the caller, not lent) to {@code to}. A release store is
     * enough: the client learns of the loan from the caller (return value or a waiter's outcome CAS), and
     * a stale client's CAS fails against any value but its own.
     */
    void lend(Object to, long nowNanos, LeakWatch watch) {
        ASSIGNMENTS.setOpaque(this, assignments + 1);
        lentAtNanos = nowNanos;
        if (watch != null) {
            leak = watch;
        }
        CLIENT.setRelease(this, to);
    }

    /** Takes back a loan nobody accepted (the waiter offered it had given up). */
    void unlend() {
        ASSIGNMENTS.setOpaque(this, assignments - 1);
        leak = null;
        client = null;
    }

    long assignments() {
        return (long) ASSIGNMENTS.getOpaque(this);
    }

    @Override
    public S connection() {
        return connection;
    }

    @Override
    public long idleNanos() {
        return lentAtNanos - lastUsedNanos;
    }

    @Override
    public boolean isLentTo(Object c) {
        return c != null && client == c;
    }

    @Override
    public boolean transfer(Object from, Object to) {
        return from != null && to != null && CLIENT.compareAndSet(this, from, to);
    }

    @Override
    public boolean release(Object c) {
        if (c == null || !CLIENT.compareAndSet(this, c, null)) {
            return false;
        }
        pool.release(this);
        return true;
    }

    /**
     * Ends the loan as no use of the connection (see {@link Pool#releaseUntouched}) and takes back its count as a
     * server assignment. Only the holder gets here, and after its CAS nobody else can lend the server until the
     * pool has it back.
     */
    boolean releaseUncounted(Object c) {
        if (c == null || !CLIENT.compareAndSet(this, c, null)) {
            return false;
        }
        ASSIGNMENTS.setOpaque(this, assignments - 1);
        pool.releaseUntouched(this);
        return true;
    }

    /**
     * PgBouncer's sv_used: whether server_check_query runs before the next loan. With server_check_delay 0, a
     * connection a client used since its last check, or one idle for longer than PgBouncer's janitor, which
     * runs three times a second, takes to mark an idle connection used; otherwise one neither used nor checked
     * for longer than the delay.
     */
    boolean needsCheck(long nowNanos, long checkDelayNanos) {
        if (checkDelayNanos == 0) {
            return usedSinceCheck || nowNanos - checkedNanos > JANITOR_MARKS_IDLE_NANOS;
        }
        return nowNanos - checkedNanos > checkDelayNanos;
    }

    @Override
    public boolean discard(Object c, Throwable cause) {
        if (c == null || !CLIENT.compareAndSet(this, c, null)) {
            return false;
        }
        brokenCause = cause != null ? cause : new PoolException("discarded by its client");
        pool.release(this);
        return true;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public PoolKey poolKey() {
        return pool.key();
    }

    @Override
    public long connectedAtNanos() {
        return connectedAtNanos;
    }

    @Override
    public boolean closeNeeded() {
        return evictedBecause != null;
    }

    @Override
    public void markBroken(Throwable cause) {
        brokenCause = cause != null ? cause : new PoolException("server connection broken");
        pool.disconnect.close(this, IDLE, "server connection broken while idle");
    }

    boolean isBroken() {
        return brokenCause != null;
    }

    @Override
    public String toString() {
        return "S-" + id + "(" + pool.key() + ")";
    }
}
