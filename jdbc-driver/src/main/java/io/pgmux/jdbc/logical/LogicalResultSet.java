package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set whose logical connection holds the server connection it came from until it is closed, so
 * every call (cursor fetches, metadata, updates) can go straight to pgjdbc.
 */
final class LogicalResultSet extends DelegatingResultSet {
    private final LogicalConnection conn;
    /** null for result sets of DatabaseMetaData calls, which hold the connection themselves. */
    private final LogicalStatement owner;
    private final PhysicalConnection origin;
    private boolean closed;

    LogicalResultSet(LogicalConnection conn, LogicalStatement owner, ResultSet delegate, PhysicalConnection origin) {
        super(delegate);
        this.conn = conn;
        this.owner = owner;
        this.origin = origin;
        if (owner == null) {
            conn.hold();
        }
    }

    @Override
    void check() throws SQLException {
        if (closed || conn.currentPhysical() != origin) {
            throw new SQLException("This ResultSet is closed.", "24000");
        }
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
        return LeaseScope.handOut(value, conn, owner);
    }

    @Override
    public Statement getStatement() throws SQLException {
        check();
        return owner;
    }

    @Override
    public boolean isClosed() {
        return closed || conn.currentPhysical() != origin;
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
