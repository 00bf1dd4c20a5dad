package io.pgmux.jdbc.logical;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.LentServer;
import io.pgmux.core.pool.PinReason;
import io.pgmux.core.pool.ServerGoingAway;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.jdbc.physical.PhysicalConnection;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.util.concurrent.TimeUnit;
import org.postgresql.core.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logical connection as the pool's client: it borrows a server connection when work starts and gives it
 * back when the pool mode allows (at close in session mode; in transaction mode once the server reports the
 * transaction idle and no result of it is still open; after each statement in statement mode), gives up one
 * that is lost, and is closed by its owner or the {@link Reclaimer}. The per-transaction borrow and release
 * are here; the session state replayed onto each server connection borrowed is {@link SessionState}'s, what a
 * statement's classification asks of the connection is {@link StatementRules}', the JDBC API
 * {@link LogicalConnection}'s. They are one object, each a class of this chain, as {@link ConnectionLock} is:
 * a connection costs no object per role, and the hot path follows no reference from one role to another.
 */
abstract class Borrower extends ConnectionLock {
    /** Logged under the connection's name: its roles are one connection to whoever reads the log. */
    private static final Logger log = LoggerFactory.getLogger(LogicalConnection.class);
    private static final String SQLSTATE_FEATURE_NOT_SUPPORTED = "0A000";
    private static final String SQLSTATE_CONNECTION_DOES_NOT_EXIST = "08003";
    /**
     * A server connection idle this long is probed before it is used: the probe (one system call and the
     * JDK socket's uncontended monitor, well under a microsecond) is then a tiny fraction of the time the
     * connection was not needed, and connections in steady use are never probed.
     */
    private static final long PROBE_AFTER_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Borrower.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ServerPool pool;
    private final boolean timed;
    final PoolMode mode;
    /** How the pool counted this client, to count it out the same way. */
    final ClientAdmission admission;
    /** serverResetQuery, run on every server connection given back (serverResetQueryAlways), or null. */
    private final String resetQueryAlways;

    /** Read-your-writes' record of this connection's writes; null when the pool does not route reads for it. */
    final OwnWrites ownWrites;

    /** JDBC's auto-commit and read-only: they decide when a transaction ends and where one borrows. */
    boolean autoCommit;
    boolean readOnly;

    /** The loan of the server connection held now, or null. */
    Loan loan;
    /** The server connection of {@link #loan}, or null. */
    PhysicalConnection physical;
    /** Counts this connection's loans, so that what pgjdbc handed out in one can tell when it ended (LeaseScope). */
    private long leases;
    /** The server connection held now ran nextval(), setval() or an INSERT for this connection since it was borrowed. */
    boolean sequenceAdvanced;
    /** A statement hinted at session state the classifier could not see: the server is checked before it goes back. */
    boolean checkBeforeRelease;
    /** Session mode: a statement changed session state, so the server connection is reset at close. */
    boolean sessionDirty;
    /** What the reclaimer moved this connection's loans to, so that it can be collected; made at its first look. */
    private volatile Loan.WeakBorrower weakBorrower;
    /** Statements whose results (open result set, generated keys, OUT parameters) still need the server. */
    private int holds;
    /** Newest open statement, heading a list linked through the statements themselves: no list object. */
    private LogicalStatement openStatements;
    /** The server connection lost last was a standby's, in auto-commit mode: what failed on it may run again. */
    private boolean lostStandbyRead;
    /**
     * The server connection lost last was a standby's: the next borrow for reads takes the primary's, since the
     * standby's other idle connections likely died with it and the read set drops it only at its next check.
     */
    private boolean readOnPrimaryOnce;
    /** The server connection died inside a transaction: only rollback() or close() may follow. */
    boolean transactionLost;
    /** When the server connection lost last had logged in, on the pool's clock ({@code System.nanoTime()}). */
    private long lostConnectedAtNanos;
    /** Set once, by a CAS, by whichever of close() and abort() comes first; that one also leaves the pool. */
    volatile boolean closed;
    /** Why the pool closed this connection, when it did; written before {@link #closed}. */
    private String closedReason;

    /** A client the pool admitted as {@code admission}, its session state as the pool's defaults say. */
    Borrower(ServerPool pool, ClientAdmission admission) {
        this.pool = pool;
        this.timed = pool.timesStatements();
        this.mode = pool.poolMode();
        this.admission = admission;
        this.resetQueryAlways = mode == PoolMode.SESSION ? null : pool.resetQueryAlways();
        this.ownWrites = pool.tracksWrites() ? new OwnWrites() : null;
        SessionDefaults d = pool.sessionDefaults();
        this.autoCommit = d.autoCommit;
        this.readOnly = d.readOnly;
    }

    /** The server connection this logical connection works on, borrowed and brought up to date if needed. */
    PhysicalConnection attach() throws SQLException {
        return attach(false);
    }

    /** As {@link #attach()}; one borrowed now is borrowed as a read-only transaction's if {@code readOnlyTransaction}. */
    PhysicalConnection attach(boolean readOnlyTransaction) throws SQLException {
        checkOpen();
        if (transactionLost) {
            throw new SQLNonTransientConnectionException("the server connection was lost during the transaction;"
                    + " call rollback() to start over", "08007");
        }
        PhysicalConnection p = physical;
        if (p != null) {
            loan.uses++;
            return p;
        }
        Loan l = borrow(readOnly || readOnlyTransaction);
        p = l.connection();
        try {
            applyState(p);
        } catch (SQLException e) {
            l.discard(this, e);
            throw e;
        }
        loan = l;
        physical = p;
        leases++;
        l.uses++;
        return p;
    }

    /** Brings a server connection just borrowed to this connection's session state. */
    abstract void applyState(PhysicalConnection p) throws SQLException;

    /** The number of the loan held now, which a {@link LeaseScope} compares; meaningless while none is held. */
    long lease() {
        return leases;
    }

    /**
     * Takes a server connection, never one whose server ended the session while it sat idle: such a one is
     * closed (the pool replaces it) and another taken.
     */
    private Loan borrow(boolean reads) throws SQLException {
        while (true) {
            // the intent a transaction declares when it borrows decides where it runs (read routing)
            boolean onPrimary = !reads || readOnPrimaryOnce;
            readOnPrimaryOnce = false;
            LentServer<PhysicalConnection> lent = onPrimary ? pool.borrowFor(this)
                    : ownWrites != null ? ownWrites.borrowForRead(pool, this) : pool.borrowForRead(this, 0, false);
            PhysicalConnection p = lent.connection();
            if (lent.idleNanos() >= PROBE_AFTER_IDLE_NANOS && p.serverSpokeUnasked()) {
                log.debug("backend {} ended its session while idle in the pool; closing it", p.backendPid());
                lent.discard(this, new SQLException("the server ended the session while it was idle", "08006"));
                continue;
            }
            Loan l = Loan.of(pool, lent);
            l.begin(this, admission);
            l.writes = ownWrites != null && !reads;
            return l;
        }
    }

    /** The weak reference the reclaimer moved this connection's loans to, or null if it has not yet. */
    Loan.WeakBorrower weakBorrower() {
        return weakBorrower;
    }

    /** The reclaimer's: {@link #weakBorrower()}, made now if it was not yet. */
    Loan.WeakBorrower weakBorrowerMade() {
        Loan.WeakBorrower w = weakBorrower;
        if (w == null) {
            w = new Loan.WeakBorrower(this);
            weakBorrower = w;
        }
        return w;
    }

    /** A call used the server connection held without attach() (reading a result set's rows). */
    void used() {
        Loan l = loan;
        if (l != null) {
            l.uses++;
        }
    }

    /** Keeps the current server connection until close(): state the pool cannot move now lives on it. */
    void pinTo(PinReason reason) throws SQLException {
        PhysicalConnection p = attach();
        if (mode == PoolMode.SESSION) {
            sessionDirty = true;
        } else if (loan.pin == null) {
            loan.pin = reason;
            pool.pinned(reason, p.backendPid());
        }
    }

    PinReason pinReason() {
        Loan l = loan;
        return l == null ? null : l.pin;
    }

    void hold() {
        holds++;
    }

    void unhold() throws SQLException {
        holds--;
        releaseIfIdle();
    }

    /** When a statement starts, for {@link #statementDone}; 0 when statements are counted, not timed. */
    long statementStart() {
        return timed ? System.nanoTime() : 0;
    }

    /**
     * Counts a statement (or COMMIT, ROLLBACK) that began at {@code startNanos} and has just finished, and the
     * transaction it ended if the server is idle now, as SHOW STATS counts them; call before
     * {@link #afterExecute()}. Lock-free adders, no allocation.
     */
    void statementDone(long startNanos) {
        long now = timed ? System.nanoTime() : 0;
        TrafficStats traffic = pool.traffic();
        traffic.recordQuery(now - startNanos);
        Loan l = loan;
        if (l == null || physical.transactionState() == TransactionState.IDLE) {
            traffic.recordTransaction(now - (l != null && l.inTransaction ? l.xactStartNanos : startNanos));
            if (l != null) {
                l.inTransaction = false;
                if (l.writes) {
                    ownWrites.transactionEnded();
                }
            }
        } else if (!l.inTransaction) {
            l.inTransaction = true;
            l.xactStartNanos = startNanos;
        }
    }

    /** After a statement: give the server connection back if the pool mode and the server allow it. */
    void afterExecute() throws SQLException {
        if (mode == PoolMode.STATEMENT && physical != null
                && physical.transactionState() != TransactionState.IDLE && loan.pin == null) {
            try {
                physical.rollback();
            } finally {
                releaseIfIdle();
            }
            throw transactionsNotAllowed();
        }
        releaseIfIdle();
    }

    void releaseIfIdle() throws SQLException {
        if (physical == null || holds > 0 || loan.pin != null || mode == PoolMode.SESSION) {
            return;
        }
        if (physical.transactionState() != TransactionState.IDLE) {
            return;
        }
        if (checkBeforeRelease) {
            checkBeforeRelease = false;
            PinReason found;
            try {
                found = SessionStateCheck.find(physical);
            } catch (SQLException | RuntimeException e) {
                // What the session holds is unknown: it goes to nobody else. The statement itself succeeded.
                log.debug("pool {}: checking the session state of backend {} failed; closing it", pool,
                        physical.backendPid(), e);
                dropServer(e);
                return;
            }
            if (found != null) {
                pinTo(found);
                return;
            }
        }
        releaseServer();
    }

    private void releaseServer() {
        Loan l = loan;
        PhysicalConnection p = physical;
        physical = null;
        loan = null;
        sequenceAdvanced = false;
        for (LogicalStatement s = openStatements; s != null; s = s.nextOpen) {
            s.dropPhysical();
        }
        releaseReset(l, p);
    }

    /** Gives a server connection back, reset first when serverResetQueryAlways asks for it; one that fails it is closed. */
    private void releaseReset(Loan l, PhysicalConnection p) {
        if (resetQueryAlways != null) {
            try {
                p.reset(resetQueryAlways);
            } catch (SQLException | RuntimeException e) {
                l.discard(this, e);
                return;
            }
        }
        l.release(this);
    }

    /** A statement failed: if the server connection is gone, give it up so the pool replaces it. */
    SQLException failed(SQLException e) {
        lostStandbyRead = false;
        if (physical != null && isConnectionLoss(e)) {
            boolean inTransaction = !autoCommit || physical.transactionState() != TransactionState.IDLE;
            lostStandbyRead = autoCommit && loan.onStandby;
            readOnPrimaryOnce = loan.onStandby;
            lostConnectedAtNanos = loan.server.connectedAtNanos();
            dropServer(e);
            transactionLost = inTransaction;
        }
        return e;
    }

    /** Closes the server connection held instead of giving it back; the pool replaces it. */
    void dropServer(Throwable cause) {
        Loan l = loan;
        physical = null;
        loan = null;
        sequenceAdvanced = false;
        checkBeforeRelease = false;
        for (LogicalStatement s = openStatements; s != null; s = s.nextOpen) {
            s.forgetPhysical();
        }
        holds = 0;
        l.discard(this, cause);
    }

    /**
     * After {@link #failed} gave up a lost server connection that the failed call had itself borrowed:
     * whether the call may simply run again on another one. Only when it was the first statement of a
     * transaction (autocommit off): pgjdbc sent BEGIN with it, so the server can have committed nothing of
     * it and rolled back whatever of it ran, and nothing of the transaction had been acknowledged; or when it
     * ran in auto-commit mode on a standby, which cannot have written anything of it. The lost
     * transaction is forgotten, so that the retry starts it afresh. An autocommit statement is never run
     * again: its connection may have died after its commit, and running it twice could apply it twice.
     */
    boolean restartLostTransaction(SQLException e) {
        if (lostStandbyRead) {
            // a standby wrote nothing of it: a standby that stopped costs the read no error
            lostStandbyRead = false;
            return isConnectionLoss(e);
        }
        if (autoCommit || !transactionLost || !isConnectionLoss(e)) {
            return false;
        }
        transactionLost = false;
        return true;
    }

    /**
     * Whether the server connection lost last had logged in before {@code nanos} (the pool's clock): a restart or a
     * failover kills all of a pool's connections at once, and the pool lends the ones still idle before it can know.
     */
    boolean lostConnectionOlderThan(long nanos) {
        return lostConnectedAtNanos - nanos < 0;
    }

    static boolean isConnectionLoss(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || ServerGoingAway.means(state));
    }

    void register(LogicalStatement s) {
        LogicalStatement head = openStatements;
        s.nextOpen = head;
        if (head != null) {
            head.prevOpen = s;
        }
        openStatements = s;
    }

    void unregister(LogicalStatement s) {
        LogicalStatement prev = s.prevOpen;
        LogicalStatement next = s.nextOpen;
        if (prev != null) {
            prev.nextOpen = next;
        } else if (openStatements == s) {
            openStatements = next;
        } else {
            return;
        }
        if (next != null) {
            next.prevOpen = prev;
        }
        s.prevOpen = null;
        s.nextOpen = null;
    }

    void checkOpen() throws SQLException {
        if (closed) {
            String reason = closedReason;
            throw new SQLNonTransientConnectionException(reason != null ? reason : "This connection has been closed.",
                    SQLSTATE_CONNECTION_DOES_NOT_EXIST);
        }
    }

    static SQLException transactionsNotAllowed() {
        return new SQLFeatureNotSupportedException("transaction blocks not allowed in statement pooling mode",
                SQLSTATE_FEATURE_NOT_SUPPORTED);
    }

    /** The server connection held right now, or null. */
    PhysicalConnection currentPhysical() {
        return physical;
    }

    /** The backend pid of the server connection held right now, or -1; for tests and diagnostics. */
    public int currentBackendPid() {
        PhysicalConnection p = physical;
        return p == null ? -1 : p.backendPid();
    }

    /** Whether this logical connection holds a server connection right now. */
    public boolean holdsServerConnection() {
        return physical != null;
    }

    /** Runs a call that needs a server connection, borrowing one just for it if none is held. */
    <T> T withServer(ServerCall<T> call) throws SQLException {
        lock();
        try {
            PhysicalConnection p = attach();
            try {
                return call.run(p);
            } catch (SQLException e) {
                throw failed(e);
            } finally {
                releaseIfIdle();
            }
        } finally {
            unlock();
        }
    }

    /** A call on a server connection. */
    @FunctionalInterface
    interface ServerCall<T> {
        T run(PhysicalConnection p) throws SQLException;
    }

    /** Closes; a reason makes every later call fail with it instead of the usual message. */
    void closeWith(String reason) {
        boolean closing = false;
        lock();
        try {
            if (closed) {
                return;
            }
            closedReason = reason;
            if (!closeOnce()) {
                return;
            }
            closing = true;
            // The list stays whole meanwhile: a statement's close may give the server connection back, which
            // drops every listed statement's pgjdbc statement while the connection is still ours.
            for (LogicalStatement s = openStatements; s != null; s = s.nextOpen) {
                s.closeQuietly();
            }
            openStatements = null;
            holds = 0;
            returnServerConnection();
        } finally {
            unlock();
            if (closing) {
                leavePool();
            }
        }
    }

    /** Marks this connection closed; true for the one caller, of close() and abort(), that did it. */
    boolean closeOnce() {
        return CLOSED.compareAndSet(this, false, true);
    }

    /** Gives the server connection back clean: no transaction, no session state of ours. */
    private void returnServerConnection() {
        Loan l = loan;
        physical = null;
        loan = null;
        if (l == null) {
            return;
        }
        // A hint of state that was never checked (the transaction did not end before close): reset instead.
        boolean dirty = sessionDirty || checkBeforeRelease;
        if (resetQueryAlways != null && l.pin == null && !dirty) {
            // reset() rolls back an open transaction first.
            releaseReset(l, l.connection());
        } else {
            l.giveBack(this, dirty);
        }
    }

    void leavePool() {
        pool.clientLeft(admission);
    }

    /**
     * The reclaimer's round, on its own thread. Outside a transaction, a connection unused since the last round
     * that still holds its server for results has its unread results buffered, so the server can go back.
     * Inside one, idle_transaction_timeout (none if {@code timeoutNanos} is 0): a connection that has held its
     * server connection inside a transaction without using it for {@code timeoutNanos} is closed, and its
     * transaction rolled back. One in use at this moment (its lock taken) is left for the next round.
     */
    void reclaimIfIdle(long nowNanos, long timeoutNanos) {
        if (!tryLock()) {
            return;
        }
        try {
            Loan l = loan;
            PhysicalConnection p = physical;
            if (l == null) {
                return;
            }
            boolean idle = p.transactionState() == TransactionState.IDLE;
            if (closed || idle || l.uses != l.usesSeen) {
                if (!closed && idle && l.uses == l.usesSeen && holds > 0 && l.pin == null
                        && mode != PoolMode.SESSION) {
                    bufferUnreadResults();
                }
                l.usesSeen = l.uses;
                l.unchangedSinceNanos = nowNanos;
                return;
            }
            if (timeoutNanos <= 0 || nowNanos - l.unchangedSinceNanos < timeoutNanos) {
                return;
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
            log.warn("pool {}: backend {} was idle in a transaction for more than idleTransactionTimeout ({} ms);"
                    + " rolling back and closing its logical connection", pool, p.backendPid(), millis);
            closeWith("idle transaction timeout: the connection was idle in a transaction for more than"
                    + " idleTransactionTimeout (" + millis + " ms), so the pool rolled the transaction back and"
                    + " closed the connection");
        } finally {
            unlock();
        }
    }

    /**
     * Outside a transaction, the server connection is held only for results: those nobody has read are copied
     * (see {@link LogicalStatement#bufferUnreadResult}); once none needs it, the server goes back to the pool.
     */
    private void bufferUnreadResults() {
        for (LogicalStatement s = openStatements; s != null && physical != null; s = s.nextOpen) {
            try {
                s.bufferUnreadResult();
            } catch (SQLException e) {
                log.debug("pool {}: could not buffer an unread result of backend {}", pool, currentBackendPid(), e);
            }
        }
    }
}
