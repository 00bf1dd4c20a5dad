package io.pgmux.jdbc.logical;

import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.LentServer;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.jdbc.sql.PinReason;
import java.lang.ref.WeakReference;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.postgresql.core.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logical connection's hold on server connections: the client the pool lends them to, and what giving
 * one back needs. The pool refers to a loan while it lends it a server connection; the loan refers to its
 * logical connection only weakly, so that a logical connection the application dropped without close()
 * can still be collected; the {@link Reclaimer} then rolls back and gives back what it held.
 * Created at the logical connection's first borrow and kept for all its later ones.
 */
final class Loan extends WeakReference<LogicalConnection> {
    private static final Logger log = LoggerFactory.getLogger(Loan.class);
    /**
     * A server connection idle this long is probed before it is used: the probe (one system call and the
     * JDK socket's uncontended monitor, well under a microsecond) is then a tiny fraction of the time the
     * connection was not needed, and connections in steady use are never probed.
     */
    private static final long PROBE_AFTER_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    final ServerPool pool;
    final ClientAdmission admission;
    /** The server connection lent to this loan now, or null. */
    LentServer<PhysicalConnection> server;
    /** Why the logical connection keeps its server connection until close(), or null. */
    PinReason pin;
    /** Session mode: a statement changed session state, so the server connection is reset at close. */
    boolean sessionDirty;
    /** Uses of the server connection so far; the reclaimer compares it between two of its rounds. */
    int uses;
    /** The reclaimer's bookkeeping: {@link #uses} at its last round, and since when it has not changed. */
    int usesSeen;
    long unchangedSinceNanos;
    /** The logical connection closed (or was reclaimed): the pool no longer counts it as a client. */
    boolean left;

    Loan(LogicalConnection connection, ServerPool pool, ClientAdmission admission) {
        super(connection);
        this.pool = pool;
        this.admission = admission;
    }

    /**
     * Takes a server connection for this loan, never one whose server ended the session while it sat
     * idle: such a one is closed (the pool replaces it) and another taken.
     */
    PhysicalConnection borrow() throws SQLException {
        while (true) {
            LentServer<PhysicalConnection> lent = pool.borrowFor(this);
            PhysicalConnection p = lent.connection();
            if (lent.idleNanos() >= PROBE_AFTER_IDLE_NANOS && p.serverSpokeUnasked()) {
                log.debug("backend {} ended its session while idle in the pool; closing it", p.backendPid());
                lent.discard(this, new SQLException("the server ended the session while it was idle", "08006"));
                continue;
            }
            p.borrower(this);
            server = lent;
            return p;
        }
    }

    /** Gives the server connection back for reuse as it is. */
    void release() {
        LentServer<PhysicalConnection> lent = server;
        server = null;
        if (lent != null) {
            lent.connection().borrower(null);
            lent.release(this);
        }
    }

    /** Closes the server connection instead of reusing it; the pool replaces it. */
    void discard(Throwable cause) {
        LentServer<PhysicalConnection> lent = server;
        server = null;
        if (lent != null) {
            lent.connection().borrower(null);
            lent.discard(this, cause);
        }
        unpin();
    }

    void unpin() {
        if (pin != null) {
            pin = null;
            pool.unpinned();
        }
    }

    /**
     * Gives the server connection back clean: no transaction, no session state of this client's. A
     * connection that cannot be cleaned is closed instead.
     */
    void giveBack() {
        LentServer<PhysicalConnection> lent = server;
        if (lent == null) {
            unpin();
            return;
        }
        PhysicalConnection p = lent.connection();
        try {
            if (pin != null || sessionDirty) {
                p.discardAll();
            } else if (p.transactionState() != TransactionState.IDLE) {
                p.rollback();
            }
            release();
        } catch (SQLException | RuntimeException e) {
            discard(e);
        } finally {
            unpin();
        }
    }

    /** Counts the logical connection out of the pool, once. */
    void leave() {
        if (!left) {
            left = true;
            pool.clientLeft(admission);
        }
    }

    /**
     * The logical connection of {@code loan} was collected: if the loan still holds {@code p}, rolls back,
     * gives it back and counts the client out. Only the reclaimer calls this; nobody else can reach the
     * loan any more.
     */
    static void reclaimIfAbandoned(Loan loan, PhysicalConnection p) {
        LentServer<PhysicalConnection> lent = loan.server;
        if (lent == null || lent.connection() != p || !lent.isLentTo(loan)) {
            return;
        }
        log.warn("a logical connection was garbage-collected without close() while it held backend {}{};"
                        + " rolling back and returning it to the pool", p.backendPid(),
                p.transactionState() != TransactionState.IDLE ? " inside a transaction" : "");
        loan.giveBack();
        loan.leave();
    }
}
