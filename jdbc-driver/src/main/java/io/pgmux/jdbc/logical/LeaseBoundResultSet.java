package io.pgmux.jdbc.logical;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set pgjdbc made in memory, of a refcursor value or of an array: its rows are read already, but
 * pgjdbc reaches its server connection for metadata, for some values, and through its own statement. So
 * it is usable only while the loan it was read in lasts (see {@link LeaseScope}), and names as its
 * statement the logical one whose result it came from (none for an array's).
 */
final class LeaseBoundResultSet extends DelegatingResultSet {
    private static final String INVALID_CURSOR_STATE = "24000";
    private static final String WHAT = "This ResultSet of a refcursor or an array";

    private final LeaseScope scope;
    private final Statement statement;
    private boolean closed;

    LeaseBoundResultSet(LeaseScope scope, Statement statement, ResultSet delegate) {
        super(delegate);
        this.scope = scope;
        this.statement = statement;
    }

    @Override
    void check() throws SQLException {
        if (closed) {
            throw new SQLException("This ResultSet is closed.", INVALID_CURSOR_STATE);
        }
        if (!scope.lasts()) {
            throw LeaseScope.ended(WHAT, INVALID_CURSOR_STATE);
        }
    }

    @Override
    Object handOut(Object value) throws SQLException {
        return LeaseScope.handOut(value, scope.connection(), statement);
    }

    @Override
    public boolean next() throws SQLException {
        check();
        LogicalConnection conn = scope.connection();
        conn.used();
        try {
            // Reads from the server only for a refcursor under a defaultRowFetchSize, fetched in batches then.
            return delegate.next();
        } catch (SQLException e) {
            throw conn.failed(e);
        }
    }

    @Override
    public Statement getStatement() throws SQLException {
        check();
        return statement;
    }

    @Override
    public boolean isClosed() {
        return closed || !scope.lasts();
    }

    /** pgjdbc closed a refcursor on the server when it read it; its result set is let go while the loan lasts. */
    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        if (scope.lasts()) {
            scope.call(WHAT, () -> {
                delegate.close();
                return null;
            });
        }
    }
}
