package io.pgmux.jdbc.logical;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

/**
 * A result set of no columns and no rows, which pgjdbc's getGeneratedKeys answers for a statement that did not
 * ask for keys. It needs no server connection; every call that would read a row finds no row to read.
 */
final class EmptyResultSet extends DelegatingResultSet {
    private final LogicalStatement owner;
    private final int type;
    private final int concurrency;
    private final int holdability;
    private int fetchSize;
    private boolean closed;

    EmptyResultSet(LogicalStatement owner) throws SQLException {
        super(null);
        this.owner = owner;
        this.type = owner.getResultSetType();
        this.concurrency = owner.getResultSetConcurrency();
        this.holdability = owner.getResultSetHoldability();
        this.fetchSize = owner.getFetchSize();
    }

    @Override
    void check() throws SQLException {
        checkOpen();
        throw new SQLException("ResultSet not positioned properly, perhaps you need to call next.", "24000");
    }

    private void checkOpen() throws SQLException {
        if (closed) {
            throw new SQLException("This ResultSet is closed.", "55000");
        }
    }

    /** Never reached: check() refuses every getter. */
    @Override
    Object handOut(Object value) {
        return value;
    }

    @Override
    public boolean next() throws SQLException {
        checkOpen();
        return false;
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        checkOpen();
        return DetachedResultSetMetaData.noColumns();
    }

    @Override
    public Statement getStatement() throws SQLException {
        checkOpen();
        return owner;
    }

    @Override
    public int getType() throws SQLException {
        checkOpen();
        return type;
    }

    @Override
    public int getConcurrency() throws SQLException {
        checkOpen();
        return concurrency;
    }

    @Override
    public int getHoldability() throws SQLException {
        checkOpen();
        return holdability;
    }

    @Override
    public int getFetchDirection() throws SQLException {
        checkOpen();
        return ResultSet.FETCH_FORWARD;
    }

    @Override
    public int getFetchSize() throws SQLException {
        checkOpen();
        return fetchSize;
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        checkOpen();
        if (rows < 0) {
            throw new SQLException("Fetch size must be a value greater to or equal to 0.", "22023");
        }
        fetchSize = rows;
    }

    @Override
    public boolean isBeforeFirst() throws SQLException {
        checkOpen();
        return false;
    }

    @Override
    public boolean isAfterLast() throws SQLException {
        checkOpen();
        return false;
    }

    @Override
    public boolean isFirst() throws SQLException {
        checkOpen();
        return false;
    }

    @Override
    public boolean isLast() throws SQLException {
        checkOpen();
        return false;
    }

    @Override
    public int getRow() throws SQLException {
        checkOpen();
        return 0;
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        return null;
    }

    @Override
    public void clearWarnings() throws SQLException {
        checkOpen();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
