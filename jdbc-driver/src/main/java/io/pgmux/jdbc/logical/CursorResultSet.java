package io.pgmux.jdbc.logical;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The result set pgjdbc returns for a refcursor value: its rows are read already, but pgjdbc reaches its
 * server connection for metadata, for some values, and through its own statement. So it is usable only
 * while the loan it was read in lasts (see {@link LeaseScope}), and names the logical statement of the
 * result it came from as its statement.
 */
final class CursorResultSet extends DelegatingResultSet {
    private static final String INVALID_CURSOR_STATE = "24000";

    private final LeaseScope scope;
    private final Statement statement;
    private boolean closed;

    CursorResultSet(LeaseScope scope, Statement statement, ResultSet delegate) {
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
            throw LeaseScope.ended("This ResultSet of a refcursor", INVALID_CURSOR_STATE);
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
            // Reads from the server only with a defaultRowFetchSize: pgjdbc then fetches the cursor in batches.
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

    /** pgjdbc closed the cursor on the server when it read it; its result set is let go while the loan lasts. */
    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        if (scope.lasts()) {
            scope.call("This ResultSet of a refcursor", () -> {
                delegate.close();
                return null;
            });
        }
    }
}
