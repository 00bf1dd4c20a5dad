package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set whose logical connection holds the server connection it came from until it is closed, so
 * every call (cursor fetches, metadata, updates) can go straight to pgjdbc.
 */
final class LogicalResultSet extends DelegatingResultSet {
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LogicalResultSet.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Not touched by the application yet: the pool may still copy it and give the server back. */
    private static final int UNREAD = 0;
    private static final int READ = 1;
    /** The pool is copying it, holding the connection's lock. */
    private static final int BUFFERING = 2;
    /** Read from a copy: no server connection needed. */
    private static final int BUFFERED = 3;

    private final LogicalConnection conn;
    /** null for result sets of DatabaseMetaData calls, which hold the connection themselves. */
    private final LogicalStatement owner;
    private final PhysicalConnection origin;
    private boolean closed;
    /** Who reads it first, the application or the pool's copy: decided by one CAS from {@link #UNREAD}. */
    private volatile int state;

    LogicalResultSet(LogicalConnection conn, LogicalStatement owner, ResultSet delegate, PhysicalConnection origin) {
        super(delegate);
        this.conn = conn;
        this.owner = owner;
        this.origin = origin;
        if (owner == null) {
            conn.hold();
        }
    }

    /** Every call of the application's but close() and isClosed(), so that none reaches pgjdbc's during a copy. */
    @Override
    void check() throws SQLException {
        reading();
        // The volatile state first: it orders what the pool's thread wrote before it (the copy, a failed copy's close).
        int st = state;
        if (closed || st != BUFFERED && conn.currentPhysical() != origin) {
            throw new SQLException("This ResultSet is closed.", "55000");
        }
    }

    /** The application reads: from now on the pool leaves it alone, or, if the pool is copying it, waits for the copy. */
    private void reading() {
        if (state == UNREAD && !STATE.compareAndSet(this, UNREAD, READ) && state == BUFFERING) {
            // The pool copies it while it holds the connection's lock.
            conn.lock();
            conn.unlock();
        }
    }

    /**
     * The pool's, holding the connection's lock while the connection is otherwise idle: copies a result set
     * nobody has read yet, if it can be copied, so that it no longer needs the server connection. Whether it
     * did.
     */
    boolean buffer() {
        if (!STATE.compareAndSet(this, UNREAD, BUFFERING)) {
            return false;
        }
        ResultSetMetaData md;
        try {
            if (closed || !BufferedResultSet.copyable(delegate)) {
                state = READ;
                return false;
            }
            md = new DetachedResultSetMetaData(delegate.getMetaData());
        } catch (SQLException | RuntimeException e) {
            // Left as it was: the application reads it from pgjdbc, the server connection held as before.
            state = READ;
            return false;
        }
        try {
            BufferedResultSet copy = BufferedResultSet.copy(delegate, md, LeaseScope.current(conn));
            closeDelegate();
            redirect(copy);
            state = BUFFERED;
            return true;
        } catch (SQLException | RuntimeException e) {
            // Rows were consumed: what is left of pgjdbc's result set would read wrong, so it ends here.
            closed = true;
            closeDelegate();
            state = READ;
            return false;
        }
    }

    boolean isBuffered() {
        return state == BUFFERED;
    }

    @Override
    public boolean next() throws SQLException {
        check();
        conn.used();
        try {
            return delegate.next();
        } catch (SQLException e) {
            throw conn.failed(e);
        }
    }

    @Override
    Object handOut(Object value) throws SQLException {
        // A copy's arrays are bound already to the loan they were copied in, which has ended.
        return state == BUFFERED ? value : LeaseScope.handOut(value, conn, owner);
    }

    @Override
    public Statement getStatement() throws SQLException {
        check();
        return owner;
    }

    @Override
    public boolean isClosed() {
        int st = state;
        return closed || st != BUFFERED && conn.currentPhysical() != origin;
    }

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        conn.lock();
        try {
            boolean stillOurs = conn.currentPhysical() == origin;
            closeDelegate();
            if (owner != null) {
                owner.resultSetClosed(this);
            } else if (stillOurs) {
                // A metadata result set counted itself as a hold; if its connection died meanwhile the
                // holds were reset already and must not be counted down again.
                conn.unhold();
            }
        } finally {
            conn.unlock();
        }
    }

    /** The statement closes its results (it runs again, or closes): no notification back. */
    void closeFromStatement() {
        if (!closed) {
            closed = true;
            closeDelegate();
        }
    }

    /** The server connection is gone or moved on: nothing may touch the pgjdbc object any more. */
    void markClosed() {
        closed = true;
    }

    private void closeDelegate() {
        // Touch pgjdbc only while its connection is still ours: closing updates per-connection caches.
        if (conn.currentPhysical() == origin) {
            try {
                delegate.close();
            } catch (SQLException ignored) {
                // Nothing of ours stays open on the server when a close fails; the lease decides the rest.
            }
        }
    }
}
