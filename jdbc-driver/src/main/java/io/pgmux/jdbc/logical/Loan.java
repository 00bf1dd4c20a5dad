package io.pgmux.jdbc.logical;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.LentServer;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.core.pool.PinReason;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.sql.SQLException;
import org.postgresql.core.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC layer's record of one server connection's loans: whom it is lent to now and what giving it
 * back needs. Made at the connection's first loan and reused by every later one, so that borrowing
 * allocates nothing.
 *
 * <p>The pool lends the server connection to the logical connection itself. So that a logical connection
 * the application dropped without close() can still be collected, the {@link Reclaimer} moves every loan
 * it finds (at most a round old) to the connection's {@link WeakBorrower}; once the collector has cleared
 * that, the reclaimer rolls back and gives back what the connection held. Short loans, the common case,
 * end before any round sees them and never make the weak reference.
 */
final class Loan {
    private static final Logger log = LoggerFactory.getLogger(Loan.class);
    private static final VarHandle BORROWER;

    static {
        try {
            BORROWER = MethodHandles.lookup().findVarHandle(Loan.class, "borrower", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ServerPool pool;
    final LentServer<PhysicalConnection> server;
    /**
     * Whom the server connection is lent to: the logical connection, then its {@link WeakBorrower} once the
     * reclaimer has moved the loan; null between loans. Written with release stores (no fence on the
     * borrowing path) and read by the reclaimer, which may see it late: it acts only through the pool's own
     * record of the loan, which a CAS checks.
     */
    private Object borrower;
    /** How the pool counted the borrower, to count it out if the reclaimer must. */
    ClientAdmission admission;
    /** Why the borrower keeps the server connection until close(), or null. */
    PinReason pin;
    /** A transaction is open on the server (SHOW STATS counts it when it ends); it began at xactStartNanos. */
    boolean inTransaction;
    long xactStartNanos;
    /** The borrower's transactions here may write and it reads its own writes: each one's end is noted. */
    boolean writes;
    /** The server connection belongs to a standby's pool (read routing): nothing run here can have written. */
    final boolean onStandby;
    /** Uses of the server connection in this loan; the reclaimer compares it between two of its rounds. */
    int uses;
    /** The reclaimer's bookkeeping: {@link #uses} at its last round, and since when it has not changed. */
    int usesSeen;
    long unchangedSinceNanos;

    private Loan(ServerPool pool, LentServer<PhysicalConnection> server) {
        this.onStandby = pool.onStandby(server);
        this.pool = pool;
        this.server = server;
    }

    /** The record of {@code server}'s loans, made at its first. */
    static Loan of(ServerPool pool, LentServer<PhysicalConnection> server) {
        PhysicalConnection p = server.connection();
        Object known = p.borrower();
        if (known instanceof Loan l) {
            return l;
        }
        Loan l = new Loan(pool, server);
        p.borrower(l);
        return l;
    }

    /** The loan just began, for {@code borrower} (the identity the pool lent it to). */
    void begin(Object borrower, ClientAdmission admission) {
        this.admission = admission;
        this.pin = null;
        this.inTransaction = false;
        this.uses = 0;
        this.usesSeen = 0;
        BORROWER.setRelease(this, borrower);
    }

    PhysicalConnection connection() {
        return server.connection();
    }

    /** Gives the server connection back for reuse as it is; only the logical connection holding it calls this. */
    void release(Borrower c) {
        unpin();
        BORROWER.setRelease(this, null);
        if (!server.release(c)) {
            WeakBorrower w = c.weakBorrower();
            if (w != null) {
                server.release(w);
            }
        }
    }

    /**
     * Closes the server connection instead of reusing it, if {@code c} still holds it; the pool replaces it.
     * Another thread may call this (abort): the pool's check of the holder comes first, and a discarded
     * server connection is never lent again, so the cleaning after it touches no later loan.
     */
    boolean discard(Borrower c, Throwable cause) {
        if (!server.discard(c, cause)) {
            WeakBorrower w = c.weakBorrower();
            if (w == null || !server.discard(w, cause)) {
                return false;
            }
        }
        BORROWER.setRelease(this, null);
        unpin();
        return true;
    }

    void unpin() {
        if (pin != null) {
            pin = null;
            pool.unpinned();
        }
    }

    /**
     * Gives the server connection back clean: no transaction, no session state of the borrower's. A
     * connection that cannot be cleaned is closed instead.
     *
     * @param sessionDirty session mode: a statement of the borrower changed session state
     */
    void giveBack(Borrower c, boolean sessionDirty) {
        try {
            clean(sessionDirty);
        } catch (SQLException | RuntimeException e) {
            discard(c, e);
            return;
        }
        release(c);
    }

    private void clean(boolean sessionDirty) throws SQLException {
        PhysicalConnection p = connection();
        if (pin != null || sessionDirty) {
            p.discardAll();
        } else if (p.transactionState() != TransactionState.IDLE) {
            p.rollback();
        }
    }

    /**
     * The reclaimer's look at a loan in progress: moves one lent to a logical connection itself to that
     * connection's weak reference, so that the connection can be collected; and if a weak reference's
     * connection was collected, rolls back, gives the server connection back and counts the client out.
     *
     * @return the logical connection holding the loan, or null if there is none (any more)
     */
    Borrower weaken() {
        Object b = BORROWER.getAcquire(this);
        if (b instanceof Borrower c) {
            WeakBorrower w = c.weakBorrowerMade();
            if (server.transfer(c, w)) {
                BORROWER.compareAndSet(this, c, w);
            }
            return c;
        }
        if (!(b instanceof WeakBorrower w)) {
            return null;
        }
        Borrower c = w.get();
        if (c == null && server.isLentTo(w)) {
            reclaimAbandoned(w);
        }
        return c;
    }

    /** The logical connection behind {@code w} was collected while it held the server connection. */
    private void reclaimAbandoned(WeakBorrower w) {
        PhysicalConnection p = connection();
        log.warn("a logical connection was garbage-collected without close() while it held backend {}{};"
                        + " rolling back and returning it to the pool", p.backendPid(),
                p.transactionState() != TransactionState.IDLE ? " inside a transaction" : "");
        ClientAdmission counted = admission;
        try {
            // Whether a session-mode client changed session state died with it: reset as if it had.
            clean(pool.poolMode() == PoolMode.SESSION);
            unpin();
            BORROWER.setRelease(this, null);
            server.release(w);
        } catch (SQLException | RuntimeException e) {
            unpin();
            BORROWER.setRelease(this, null);
            server.discard(w, e);
        }
        pool.clientLeft(counted);
    }

    /**
     * A logical connection's identity for the loans the reclaimer has moved to it: refers to the connection
     * only weakly. Made once per logical connection, at the first round that finds it holding a server.
     */
    static final class WeakBorrower extends WeakReference<Borrower> {
        WeakBorrower(Borrower c) {
            super(c);
        }
    }
}
