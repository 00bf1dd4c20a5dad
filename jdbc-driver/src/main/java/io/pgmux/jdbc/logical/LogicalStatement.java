package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.jdbc.sql.Classification;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A statement that keeps its settings and re-creates itself on whichever server connection its logical
 * connection holds when it executes. While one of its results (a result set, generated keys, further
 * results of a multi-statement execute) is still open, it holds the server connection; once they are
 * closed or consumed, the connection can go back to the pool.
 */
class LogicalStatement implements Statement {
    private static final VarHandle EXECUTING;

    static {
        try {
            EXECUTING = MethodHandles.lookup().findVarHandle(LogicalStatement.class, "executing", Statement.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Runs of one execution at most, the first and retries of a transaction's first statement, but for retries after
     * a connection that logged in before the first one was lost: those died with it, and are as many as the pool's.
     */
    private static final int MAX_ATTEMPTS = 3;

    /** What an execution produces, which decides whether the server connection stays held after it. */
    enum Kind { QUERY, UPDATE, EXECUTE, BATCH }

    final LogicalConnection conn;
    final ResultSetType type;
    /** Neighbours in the connection's list of open statements (see LogicalConnection#register). */
    LogicalStatement prevOpen;
    LogicalStatement nextOpen;

    /** The pgjdbc statement on the server connection held now; null between leases. */
    Statement physical;
    private PhysicalConnection physicalOwner;
    /**
     * The pgjdbc statement running now, for cancel() from another thread. Stored with release semantics
     * only: a cancel that reads it a moment late is harmless, since pgjdbc cancels only a statement that
     * is still in its query.
     */
    private volatile Statement executing;

    /** Created by the first option set, batch or warning: most statements use none. */
    private Options options;

    private LogicalResultSet currentResultSet;
    private LogicalResultSet keysResultSet;
    /** execute() or getMoreResults() reported a result set that getResultSet() has not fetched yet. */
    private boolean unfetchedResult;
    /** The text held several statements: the server connection may still have further results. */
    private boolean moreResults;
    private boolean keysPending;
    private boolean holding;
    private long updateCount = -1;
    private boolean closed;

    LogicalStatement(LogicalConnection conn, ResultSetType type) {
        this.conn = conn;
        this.type = type;
    }

    /** What few statements set: JDBC options, a batch of SQL texts, warnings collected from pgjdbc. */
    private static final class Options {
        int fetchSize;
        int maxRows;
        int queryTimeout;
        int maxFieldSize;
        int fetchDirection = ResultSet.FETCH_FORWARD;
        boolean escapeProcessing = true;
        boolean poolable;
        boolean closeOnCompletion;
        String cursorName;
        List<String> batch;
        SQLWarning warnings;
    }

    private Options options() {
        Options o = options;
        if (o == null) {
            o = new Options();
            // JDBC: prepared and callable statements are poolable unless told otherwise, plain ones are not
            o.poolable = this instanceof PreparedStatement;
            options = o;
        }
        return o;
    }

    // ---------------------------------------------------------------- the execution template

    /**
     * A call on the pgjdbc statement. It is given the logical statement too, so that a call needing only
     * that (a prepared statement's) can be one shared object instead of a lambda made per execution.
     */
    @FunctionalInterface
    interface PhysicalCall<T> {
        T run(LogicalStatement self, Statement physical) throws SQLException;
    }

    /**
     * Runs one execution: checks and pins by the SQL's classification (null: checked by the caller),
     * borrows a server connection if none is held, runs the call on the pgjdbc statement, keeps what the
     * results need, and gives the connection back if the pool mode and the server's transaction state allow.
     */
    final <T> T run(Classification classification, Kind kind, GeneratedKeys keys, PhysicalCall<T> call)
            throws SQLException {
        checkOpen();
        conn.lock();
        try {
            closeResults();
            boolean multi = false;
            if (classification != null) {
                conn.beforeExecute(classification);
                warnOfSequenceRead(classification);
                multi = classification.isMultiStatement();
            }
            PhysicalConnection p;
            Statement ps;
            T result;
            long start = conn.statementStart();
            long firstLossNanos = 0;
            for (int attempt = 1; ; attempt++) {
                boolean borrowedNow = conn.currentPhysical() == null;
                p = conn.attach(classification);
                ps = physicalFor(p);
                EXECUTING.setRelease(this, ps);
                try {
                    result = call.run(this, ps);
                    break;
                } catch (SQLException e) {
                    conn.failed(e);
                    if (attempt == 1) {
                        firstLossNanos = System.nanoTime();
                    }
                    if (borrowedNow && (attempt < MAX_ATTEMPTS || conn.lostConnectionOlderThan(firstLossNanos))
                            && conn.restartLostTransaction(e)) {
                        continue;
                    }
                    conn.statementDone(start);
                    try {
                        if (classification != null) {
                            conn.resetReadIntent(classification);
                        }
                        conn.afterExecute();
                    } catch (SQLException secondary) {
                        e.addSuppressed(secondary);
                    }
                    throw e;
                } finally {
                    EXECUTING.setRelease(this, null);
                }
            }
            updateCount = -1;
            executed();
            moreResults = multi;
            switch (kind) {
                case QUERY:
                    currentResultSet = new LogicalResultSet(conn, this, (ResultSet) result, p);
                    break;
                case UPDATE:
                    updateCount = ((Number) result).longValue();
                    keysPending = keys.requested;
                    break;
                case EXECUTE:
                    if ((Boolean) result) {
                        unfetchedResult = true;
                    } else {
                        updateCount = ps.getLargeUpdateCount();
                        keysPending = keys.requested;
                    }
                    break;
                default:
                    keysPending = keys.requested;
                    break;
            }
            updateHolding();
            conn.statementDone(start);
            if (classification != null) {
                conn.readIntentDeclared(classification);
            }
            conn.afterExecute();
            return kind == Kind.QUERY ? type(currentResultSet) : result;
        } finally {
            conn.unlock();
        }
    }

    private void warnOfSequenceRead(Classification c) {
        SQLWarning w = conn.sequenceWarning(c);
        if (w != null) {
            Options o = options();
            if (o.warnings == null) {
                o.warnings = w;
            } else {
                o.warnings.setNextWarning(w);
            }
        }
    }

    /** The classification of a text given to execute; null for null, which pgjdbc then refuses. */
    final Classification classified(String sql) {
        return sql == null ? null : conn.classify(sql);
    }

    @SuppressWarnings("unchecked")
    private static <T> T type(Object o) {
        return (T) o;
    }

    /** The pgjdbc statement for this server connection, created with this statement's settings. */
    final Statement physicalFor(PhysicalConnection p) throws SQLException {
        if (physical != null && physicalOwner == p) {
            return physical;
        }
        dropPhysical();
        Statement ps = createPhysical(p);
        applySettings(ps);
        physical = ps;
        physicalOwner = p;
        return ps;
    }

    Statement createPhysical(PhysicalConnection p) throws SQLException {
        Connection c = p.connection();
        if (type.isDefault()) {
            return c.createStatement();
        }
        return type.holdability == -1 ? c.createStatement(type.type, type.concurrency)
                : c.createStatement(type.type, type.concurrency, type.holdability);
    }

    private void applySettings(Statement ps) throws SQLException {
        Options o = options;
        if (o == null) {
            return;
        }
        if (o.fetchSize != 0) {
            ps.setFetchSize(o.fetchSize);
        }
        if (o.maxRows != 0) {
            ps.setMaxRows(o.maxRows);
        }
        if (o.queryTimeout != 0) {
            ps.setQueryTimeout(o.queryTimeout);
        }
        if (o.maxFieldSize != 0) {
            ps.setMaxFieldSize(o.maxFieldSize);
        }
        if (o.fetchDirection != ResultSet.FETCH_FORWARD) {
            ps.setFetchDirection(o.fetchDirection);
        }
        if (!o.escapeProcessing) {
            ps.setEscapeProcessing(false);
        }
        if (o.poolable != ps.isPoolable()) {
            ps.setPoolable(o.poolable);
        }
        if (o.cursorName != null) {
            ps.setCursorName(o.cursorName);
        }
    }

    /** The lease ends: close the pgjdbc statement while the connection is still ours. */
    final void dropPhysical() {
        Statement ps = physical;
        physical = null;
        physicalOwner = null;
        if (ps != null) {
            collectWarnings(ps);
            try {
                ps.close();
            } catch (SQLException ignored) {
                // The connection goes back to the pool either way; a failed close leaves nothing of ours on it.
            }
        }
    }

    /** The server connection died: its statements are gone with it. */
    final void forgetPhysical() {
        physical = null;
        physicalOwner = null;
        if (currentResultSet != null) {
            currentResultSet.markClosed();
            currentResultSet = null;
        }
        if (keysResultSet != null) {
            keysResultSet.markClosed();
            keysResultSet = null;
        }
        unfetchedResult = false;
        moreResults = false;
        keysPending = false;
        holding = false;
    }

    private void collectWarnings(Statement ps) {
        try {
            SQLWarning w = ps.getWarnings();
            if (w != null) {
                Options o = options();
                if (o.warnings == null) {
                    o.warnings = w;
                } else {
                    o.warnings.setNextWarning(w);
                }
            }
        } catch (SQLException ignored) {
            // Warnings are advisory; losing them must not fail the release.
        }
    }

    private void updateHolding() throws SQLException {
        boolean need = currentResultSet != null && !currentResultSet.isBuffered() || keysResultSet != null
                || unfetchedResult || moreResults || keysPending || holdsOutputs();
        if (need != holding) {
            holding = need;
            if (need) {
                conn.hold();
            } else {
                conn.unhold();
            }
        }
    }

    /**
     * The pool's, holding the connection's lock while the connection is otherwise idle: the one result of a
     * single statement that nobody has read (nor fetched, after execute) is copied, so that this statement no
     * longer holds the server connection, which an application that forgets to close statements would
     * otherwise keep from every other client.
     */
    final void bufferUnreadResult() throws SQLException {
        if (moreResults || keysPending || keysResultSet != null || holdsOutputs()) {
            return;
        }
        if (unfetchedResult && physical != null) {
            ResultSet rs = physical.getResultSet();
            if (rs == null) {
                return;
            }
            unfetchedResult = false;
            currentResultSet = new LogicalResultSet(conn, this, rs, physicalOwner);
        }
        if (currentResultSet != null && currentResultSet.buffer()) {
            updateHolding();
        }
    }

    /** Called after every successful execution, before the hold on the server connection is decided. */
    void executed() {
    }

    /** Whether OUT parameters of the last execution are still to be read (callable statements). */
    boolean holdsOutputs() {
        return false;
    }

    /** Closes the previous execution's results, as JDBC requires before a statement runs again. */
    void closeResults() throws SQLException {
        if (currentResultSet != null) {
            LogicalResultSet rs = currentResultSet;
            currentResultSet = null;
            rs.closeFromStatement();
        }
        if (keysResultSet != null) {
            LogicalResultSet rs = keysResultSet;
            keysResultSet = null;
            rs.closeFromStatement();
        }
        unfetchedResult = false;
        moreResults = false;
        keysPending = false;
        clearOutputs();
        updateHolding();
    }

    void clearOutputs() {
    }

    /** A result set of this statement was closed by the application. */
    final void resultSetClosed(LogicalResultSet rs) throws SQLException {
        if (rs == currentResultSet) {
            currentResultSet = null;
        } else if (rs == keysResultSet) {
            keysResultSet = null;
            keysPending = false;
        }
        conn.lock();
        try {
            updateHolding();
        } finally {
            conn.unlock();
        }
        if (options != null && options.closeOnCompletion && currentResultSet == null && keysResultSet == null) {
            close();
        }
    }

    final void checkOpen() throws SQLException {
        if (closed) {
            throw new SQLException("This statement has been closed.", "55000");
        }
        conn.checkOpen();
    }

    // ---------------------------------------------------------------- Statement

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        return run(classified(sql), Kind.QUERY, GeneratedKeys.NONE, (self, ps) -> ps.executeQuery(sql));
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.NONE, (self, ps) -> ps.executeUpdate(sql));
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        GeneratedKeys keys = GeneratedKeys.of(autoGeneratedKeys);
        return run(classified(sql), Kind.UPDATE, keys, (self, ps) -> ps.executeUpdate(sql, autoGeneratedKeys));
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.of(columnIndexes),
                (self, ps) -> ps.executeUpdate(sql, columnIndexes));
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.of(columnNames),
                (self, ps) -> ps.executeUpdate(sql, columnNames));
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.NONE, (self, ps) -> ps.executeLargeUpdate(sql));
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.of(autoGeneratedKeys),
                (self, ps) -> ps.executeLargeUpdate(sql, autoGeneratedKeys));
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.of(columnIndexes),
                (self, ps) -> ps.executeLargeUpdate(sql, columnIndexes));
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return run(classified(sql), Kind.UPDATE, GeneratedKeys.of(columnNames),
                (self, ps) -> ps.executeLargeUpdate(sql, columnNames));
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        return run(classified(sql), Kind.EXECUTE, GeneratedKeys.NONE, (self, ps) -> ps.execute(sql));
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        return run(classified(sql), Kind.EXECUTE, GeneratedKeys.of(autoGeneratedKeys),
                (self, ps) -> ps.execute(sql, autoGeneratedKeys));
    }

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        return run(classified(sql), Kind.EXECUTE, GeneratedKeys.of(columnIndexes),
                (self, ps) -> ps.execute(sql, columnIndexes));
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
        return run(classified(sql), Kind.EXECUTE, GeneratedKeys.of(columnNames),
                (self, ps) -> ps.execute(sql, columnNames));
    }

    @Override
    public void addBatch(String sql) throws SQLException {
        checkOpen();
        Options o = options();
        if (o.batch == null) {
            o.batch = new ArrayList<>();
        }
        o.batch.add(sql);
    }

    @Override
    public void clearBatch() throws SQLException {
        checkOpen();
        if (options != null) {
            options.batch = null;
        }
    }

    @Override
    public int[] executeBatch() throws SQLException {
        long[] counts = executeLargeBatch();
        int[] result = new int[counts.length];
        for (int i = 0; i < counts.length; i++) {
            result[i] = (int) counts[i];
        }
        return result;
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        List<String> sqls = options == null || options.batch == null ? List.of() : options.batch;
        if (options != null) {
            options.batch = null;
        }
        if (sqls.isEmpty()) {
            return new long[0];
        }
        conn.lock();
        try {
            for (String sql : sqls) {
                Classification c = conn.classifyInBatch(sql);
                conn.beforeExecute(c);
                warnOfSequenceRead(c);
            }
        } finally {
            conn.unlock();
        }
        return run(null, Kind.BATCH, GeneratedKeys.NONE, (self, ps) -> {
            for (String sql : sqls) {
                ps.addBatch(sql);
            }
            return ps.executeLargeBatch();
        });
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        checkOpen();
        // Under the lock: the pool may be buffering the unfetched result meanwhile.
        conn.lock();
        try {
            if (currentResultSet != null) {
                return currentResultSet;
            }
            if (unfetchedResult && physical != null) {
                unfetchedResult = false;
                ResultSet rs = physical.getResultSet();
                if (rs != null) {
                    currentResultSet = new LogicalResultSet(conn, this, rs, physicalOwner);
                    return currentResultSet;
                }
            }
            return null;
        } finally {
            conn.unlock();
        }
    }

    @Override
    public int getUpdateCount() throws SQLException {
        long c = getLargeUpdateCount();
        return c > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) c;
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        checkOpen();
        return currentResultSet != null || unfetchedResult ? -1 : updateCount;
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        return getMoreResults(Statement.CLOSE_CURRENT_RESULT);
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
        checkOpen();
        conn.lock();
        try {
            if (!moreResults || physical == null) {
                if (currentResultSet != null) {
                    LogicalResultSet rs = currentResultSet;
                    currentResultSet = null;
                    rs.closeFromStatement();
                }
                unfetchedResult = false;
                updateCount = -1;
                updateHolding();
                conn.afterExecute();
                return false;
            }
            if (currentResultSet != null) {
                currentResultSet.markClosed();
                currentResultSet = null;
            }
            boolean more = physical.getMoreResults(current);
            unfetchedResult = more;
            updateCount = more ? -1 : physical.getLargeUpdateCount();
            if (!more && updateCount == -1) {
                moreResults = false;
            }
            updateHolding();
            conn.afterExecute();
            return more;
        } finally {
            conn.unlock();
        }
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        checkOpen();
        if (keysResultSet != null) {
            return keysResultSet;
        }
        if (!keysPending || physical == null) {
            // pgjdbc answers no keys with an empty result set, never an error.
            return new EmptyResultSet(this);
        }
        keysResultSet = new LogicalResultSet(conn, this, physical.getGeneratedKeys(), physicalOwner);
        keysPending = false;
        return keysResultSet;
    }

    @Override
    public void cancel() throws SQLException {
        checkOpen();
        // Only the execution running right now can be cancelled; pgjdbc makes execute() wait for an
        // in-flight cancel, so this can never reach a later user of the same server connection.
        Statement running = executing;
        if (running != null) {
            running.cancel();
        }
    }

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        conn.lock();
        try {
            closeQuietly();
            conn.unregister(this);
        } finally {
            conn.unlock();
        }
    }

    /** Closes results and the pgjdbc statement; a closed logical connection calls this for each statement. */
    final void closeQuietly() {
        if (closed) {
            return;
        }
        try {
            closeResults();
        } catch (SQLException ignored) {
            // Closing must not fail half-way; the results are marked closed regardless.
        }
        closed = true;
        dropPhysical();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public Connection getConnection() throws SQLException {
        checkOpen();
        return conn;
    }

    // Like pgjdbc's, the getters of options (fetch size and direction, field size, result set type, close on
    // completion) answer on a closed statement too; the others refuse it with 55000.
    @Override
    public int getMaxFieldSize() throws SQLException {
        return options == null ? 0 : options.maxFieldSize;
    }

    @Override
    public void setMaxFieldSize(int max) throws SQLException {
        checkOpen();
        if (max < 0) {
            throw new SQLException("The maximum field size must be a value greater than or equal to 0.", "22023");
        }
        options().maxFieldSize = max;
        if (physical != null) {
            physical.setMaxFieldSize(max);
        }
    }

    @Override
    public int getMaxRows() throws SQLException {
        checkOpen();
        return options == null ? 0 : options.maxRows;
    }

    @Override
    public void setMaxRows(int max) throws SQLException {
        checkOpen();
        if (max < 0) {
            throw new SQLException("Maximum number of rows must be a value greater than or equal to 0.", "22023");
        }
        options().maxRows = max;
        if (physical != null) {
            physical.setMaxRows(max);
        }
    }

    /** pgjdbc implements neither large variant; a statement it refuses is refused here alike. */
    @Override
    public long getLargeMaxRows() throws SQLException {
        throw new SQLFeatureNotSupportedException("Method getLargeMaxRows is not yet implemented.", "0A000");
    }

    @Override
    public void setLargeMaxRows(long max) throws SQLException {
        throw new SQLFeatureNotSupportedException("Method setLargeMaxRows is not yet implemented.", "0A000");
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
        checkOpen();
        options().escapeProcessing = enable;
        if (physical != null) {
            physical.setEscapeProcessing(enable);
        }
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        checkOpen();
        return options == null ? 0 : options.queryTimeout;
    }

    @Override
    public void setQueryTimeout(int seconds) throws SQLException {
        checkOpen();
        if (seconds < 0) {
            throw new SQLException("Query timeout must be a value greater than or equals to 0.", "22023");
        }
        options().queryTimeout = seconds;
        if (physical != null) {
            physical.setQueryTimeout(seconds);
        }
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        if (physical != null) {
            collectWarnings(physical);
            physical.clearWarnings();
        }
        return options == null ? null : options.warnings;
    }

    @Override
    public void clearWarnings() throws SQLException {
        checkOpen();
        if (options != null) {
            options.warnings = null;
        }
        if (physical != null) {
            physical.clearWarnings();
        }
    }

    @Override
    public void setCursorName(String name) throws SQLException {
        checkOpen();
        options().cursorName = name;
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        checkOpen();
        switch (direction) {
            case ResultSet.FETCH_FORWARD:
            case ResultSet.FETCH_REVERSE:
            case ResultSet.FETCH_UNKNOWN:
                options().fetchDirection = direction;
                break;
            default:
                throw new SQLException("Invalid fetch direction constant: " + direction + ".", "22023");
        }
        if (physical != null) {
            physical.setFetchDirection(direction);
        }
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return options == null ? ResultSet.FETCH_FORWARD : options.fetchDirection;
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        checkOpen();
        if (rows < 0) {
            throw new SQLException("Fetch size must be a value greater than or equal to 0.", "22023");
        }
        options().fetchSize = rows;
        if (physical != null) {
            physical.setFetchSize(rows);
        }
    }

    @Override
    public int getFetchSize() throws SQLException {
        return options == null ? 0 : options.fetchSize;
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        return type.concurrency;
    }

    @Override
    public int getResultSetType() throws SQLException {
        return type.type;
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        return type.holdability != -1 ? type.holdability : conn.getHoldability();
    }

    @Override
    public void setPoolable(boolean value) throws SQLException {
        checkOpen();
        options().poolable = value;
    }

    @Override
    public boolean isPoolable() throws SQLException {
        checkOpen();
        return options == null ? this instanceof PreparedStatement : options.poolable;
    }

    @Override
    public void closeOnCompletion() throws SQLException {
        checkOpen();
        options().closeOnCompletion = true;
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        return options != null && options.closeOnCompletion;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("Cannot unwrap to " + iface.getName()
                + ": a logical statement has no fixed server connection", "HY000");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
