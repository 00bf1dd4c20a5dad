package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.jdbc.sql.Classification;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.Date;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;

/**
 * A prepared statement that records its parameters and batches and binds them on the pgjdbc statement of
 * whichever server connection executes it. Repeated executions stay cheap: pgjdbc keeps a per-connection
 * cache of server-prepared statements keyed by SQL text, so each server connection prepares once.
 */
class LogicalPreparedStatement extends LogicalStatement implements PreparedStatement {
    /** The executions, shared by every prepared statement: each binds its parameters, then runs. */
    private static final PhysicalCall<ResultSet> EXECUTE_QUERY = (self, ps) -> bound(self, ps).executeQuery();
    private static final PhysicalCall<Integer> EXECUTE_UPDATE = (self, ps) -> bound(self, ps).executeUpdate();
    private static final PhysicalCall<Long> EXECUTE_LARGE_UPDATE = (self, ps) -> bound(self, ps).executeLargeUpdate();
    private static final PhysicalCall<Boolean> EXECUTE = (self, ps) -> bound(self, ps).execute();

    final String sql;
    /** Classified once: the text never changes. */
    final Classification classification;
    final GeneratedKeys keys;
    /** Created by the first parameter set. */
    private Parameters params;
    private List<Parameters> batches;

    LogicalPreparedStatement(LogicalConnection conn, ResultSetType type, String sql, GeneratedKeys keys) {
        super(conn, type);
        this.sql = sql;
        this.classification = conn.classify(sql);
        this.keys = keys;
    }

    @Override
    Statement createPhysical(PhysicalConnection p) throws SQLException {
        Connection c = p.connection();
        if (keys.requested) {
            if (keys.columnIndexes != null) {
                return c.prepareStatement(sql, keys.columnIndexes);
            }
            if (keys.columnNames != null) {
                return c.prepareStatement(sql, keys.columnNames);
            }
            return c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS);
        }
        if (type.isDefault()) {
            return c.prepareStatement(sql);
        }
        return type.holdability == -1 ? c.prepareStatement(sql, type.type, type.concurrency)
                : c.prepareStatement(sql, type.type, type.concurrency, type.holdability);
    }

    /** Where parameter {@code parameterIndex} is recorded, after checking the statement and the index. */
    final Parameters params(int parameterIndex) throws SQLException {
        checkOpen();
        if (parameterIndex < 1) {
            throw new SQLException("The column index is out of range: " + parameterIndex, "22023");
        }
        Parameters p = params;
        if (p == null) {
            p = new Parameters();
            params = p;
        }
        return p;
    }

    /** Records a parameter form that has no typed slot. */
    final void bind(int parameterIndex, ParamSetter setter) throws SQLException {
        params(parameterIndex).set(parameterIndex, setter);
    }

    private static PreparedStatement bound(LogicalStatement self, Statement physical) throws SQLException {
        PreparedStatement ps = (PreparedStatement) physical;
        ((LogicalPreparedStatement) self).bindAll(ps);
        return ps;
    }

    /** Binds the recorded parameters; cleared first, so a parameter cleared here is not left over there. */
    void bindAll(PreparedStatement ps) throws SQLException {
        ps.clearParameters();
        if (params != null) {
            params.bind(ps);
        }
    }

    @Override
    public void clearParameters() throws SQLException {
        checkOpen();
        if (params != null) {
            params.clear();
        }
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        return run(classification, Kind.QUERY, keys, EXECUTE_QUERY);
    }

    @Override
    public int executeUpdate() throws SQLException {
        return run(classification, Kind.UPDATE, keys, EXECUTE_UPDATE);
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        return run(classification, Kind.UPDATE, keys, EXECUTE_LARGE_UPDATE);
    }

    @Override
    public boolean execute() throws SQLException {
        return run(classification, Kind.EXECUTE, keys, EXECUTE);
    }

    /** A batch of a prepared statement holds its parameters only, as pgjdbc's: SQL text is refused. */
    @Override
    public void addBatch(String sql) throws SQLException {
        checkOpen();
        throw new SQLException("Can''t use query methods that take a query string on a PreparedStatement.",
                "42809");
    }

    @Override
    public void addBatch() throws SQLException {
        checkOpen();
        if (batches == null) {
            batches = new ArrayList<>();
        }
        batches.add(params == null ? new Parameters() : params.copy());
    }

    @Override
    public void clearBatch() throws SQLException {
        checkOpen();
        batches = null;
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        List<Parameters> rows = batches == null ? List.of() : batches;
        batches = null;
        if (rows.isEmpty()) {
            return new long[0];
        }
        return run(classification, Kind.BATCH, keys, (self, s) -> {
            PreparedStatement ps = (PreparedStatement) s;
            for (Parameters row : rows) {
                ps.clearParameters();
                row.bind(ps);
                ps.addBatch();
            }
            return ps.executeLargeBatch();
        });
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        checkOpen();
        return conn.withServer(p -> {
            PreparedStatement ps = (PreparedStatement) physicalFor(p);
            ResultSetMetaData md = ps.getMetaData();
            return md == null ? null : new DetachedResultSetMetaData(md);
        });
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        checkOpen();
        return conn.withServer(p -> new DetachedParameterMetaData(((PreparedStatement) physicalFor(p))
                .getParameterMetaData()));
    }

    @Override
    public String toString() {
        return sql;
    }

    @Override
    public void setNull(int parameterIndex, int sqlType) throws SQLException {
        params(parameterIndex).setNull(parameterIndex, sqlType);
    }

    @Override
    public void setBoolean(int parameterIndex, boolean x) throws SQLException {
        params(parameterIndex).setBoolean(parameterIndex, x);
    }

    @Override
    public void setByte(int parameterIndex, byte x) throws SQLException {
        params(parameterIndex).setByte(parameterIndex, x);
    }

    @Override
    public void setShort(int parameterIndex, short x) throws SQLException {
        params(parameterIndex).setShort(parameterIndex, x);
    }

    @Override
    public void setInt(int parameterIndex, int x) throws SQLException {
        params(parameterIndex).setInt(parameterIndex, x);
    }

    @Override
    public void setLong(int parameterIndex, long x) throws SQLException {
        params(parameterIndex).setLong(parameterIndex, x);
    }

    @Override
    public void setFloat(int parameterIndex, float x) throws SQLException {
        params(parameterIndex).setFloat(parameterIndex, x);
    }

    @Override
    public void setDouble(int parameterIndex, double x) throws SQLException {
        params(parameterIndex).setDouble(parameterIndex, x);
    }

    @Override
    public void setBigDecimal(int parameterIndex, BigDecimal x) throws SQLException {
        params(parameterIndex).setBigDecimal(parameterIndex, x);
    }

    @Override
    public void setString(int parameterIndex, String x) throws SQLException {
        params(parameterIndex).setString(parameterIndex, x);
    }

    @Override
    public void setBytes(int parameterIndex, byte[] x) throws SQLException {
        params(parameterIndex).setBytes(parameterIndex, x);
    }

    @Override
    public void setDate(int parameterIndex, Date x) throws SQLException {
        params(parameterIndex).setDate(parameterIndex, x);
    }

    @Override
    public void setTime(int parameterIndex, Time x) throws SQLException {
        params(parameterIndex).setTime(parameterIndex, x);
    }

    @Override
    public void setTimestamp(int parameterIndex, Timestamp x) throws SQLException {
        params(parameterIndex).setTimestamp(parameterIndex, x);
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, int length) throws SQLException {
        bind(parameterIndex, ps -> ps.setAsciiStream(parameterIndex, x, length));
    }

    @Override
    @SuppressWarnings("deprecation")
    public void setUnicodeStream(int parameterIndex, InputStream x, int length) throws SQLException {
        bind(parameterIndex, ps -> ps.setUnicodeStream(parameterIndex, x, length));
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, int length) throws SQLException {
        bind(parameterIndex, ps -> ps.setBinaryStream(parameterIndex, x, length));
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType) throws SQLException {
        params(parameterIndex).setObject(parameterIndex, x, targetSqlType);
    }

    @Override
    public void setObject(int parameterIndex, Object x) throws SQLException {
        params(parameterIndex).setObject(parameterIndex, x);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader x, int length) throws SQLException {
        bind(parameterIndex, ps -> ps.setCharacterStream(parameterIndex, x, length));
    }

    @Override
    public void setRef(int parameterIndex, Ref x) throws SQLException {
        bind(parameterIndex, ps -> ps.setRef(parameterIndex, x));
    }

    @Override
    public void setBlob(int parameterIndex, Blob x) throws SQLException {
        bind(parameterIndex, ps -> ps.setBlob(parameterIndex, x));
    }

    @Override
    public void setClob(int parameterIndex, Clob x) throws SQLException {
        bind(parameterIndex, ps -> ps.setClob(parameterIndex, x));
    }

    @Override
    public void setArray(int parameterIndex, Array x) throws SQLException {
        bind(parameterIndex, ps -> ps.setArray(parameterIndex, x));
    }

    @Override
    public void setDate(int parameterIndex, Date x, Calendar cal) throws SQLException {
        bind(parameterIndex, ps -> ps.setDate(parameterIndex, x, cal));
    }

    @Override
    public void setTime(int parameterIndex, Time x, Calendar cal) throws SQLException {
        bind(parameterIndex, ps -> ps.setTime(parameterIndex, x, cal));
    }

    @Override
    public void setTimestamp(int parameterIndex, Timestamp x, Calendar cal) throws SQLException {
        bind(parameterIndex, ps -> ps.setTimestamp(parameterIndex, x, cal));
    }

    @Override
    public void setNull(int parameterIndex, int sqlType, String typeName) throws SQLException {
        bind(parameterIndex, ps -> ps.setNull(parameterIndex, sqlType, typeName));
    }

    @Override
    public void setURL(int parameterIndex, URL x) throws SQLException {
        bind(parameterIndex, ps -> ps.setURL(parameterIndex, x));
    }

    @Override
    public void setRowId(int parameterIndex, RowId x) throws SQLException {
        bind(parameterIndex, ps -> ps.setRowId(parameterIndex, x));
    }

    @Override
    public void setNString(int parameterIndex, String x) throws SQLException {
        bind(parameterIndex, ps -> ps.setNString(parameterIndex, x));
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setNCharacterStream(parameterIndex, x, length));
    }

    @Override
    public void setNClob(int parameterIndex, NClob x) throws SQLException {
        bind(parameterIndex, ps -> ps.setNClob(parameterIndex, x));
    }

    @Override
    public void setClob(int parameterIndex, Reader x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setClob(parameterIndex, x, length));
    }

    @Override
    public void setBlob(int parameterIndex, InputStream x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setBlob(parameterIndex, x, length));
    }

    @Override
    public void setNClob(int parameterIndex, Reader x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setNClob(parameterIndex, x, length));
    }

    @Override
    public void setSQLXML(int parameterIndex, SQLXML x) throws SQLException {
        bind(parameterIndex, ps -> ps.setSQLXML(parameterIndex, x));
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        params(parameterIndex).setObject(parameterIndex, x, targetSqlType, scaleOrLength);
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setAsciiStream(parameterIndex, x, length));
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setBinaryStream(parameterIndex, x, length));
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader x, long length) throws SQLException {
        bind(parameterIndex, ps -> ps.setCharacterStream(parameterIndex, x, length));
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x) throws SQLException {
        bind(parameterIndex, ps -> ps.setAsciiStream(parameterIndex, x));
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x) throws SQLException {
        bind(parameterIndex, ps -> ps.setBinaryStream(parameterIndex, x));
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader x) throws SQLException {
        bind(parameterIndex, ps -> ps.setCharacterStream(parameterIndex, x));
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader x) throws SQLException {
        bind(parameterIndex, ps -> ps.setNCharacterStream(parameterIndex, x));
    }

    @Override
    public void setClob(int parameterIndex, Reader x) throws SQLException {
        bind(parameterIndex, ps -> ps.setClob(parameterIndex, x));
    }

    @Override
    public void setBlob(int parameterIndex, InputStream x) throws SQLException {
        bind(parameterIndex, ps -> ps.setBlob(parameterIndex, x));
    }

    @Override
    public void setNClob(int parameterIndex, Reader x) throws SQLException {
        bind(parameterIndex, ps -> ps.setNClob(parameterIndex, x));
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        bind(parameterIndex, ps -> ps.setObject(parameterIndex, x, targetSqlType, scaleOrLength));
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType) throws SQLException {
        bind(parameterIndex, ps -> ps.setObject(parameterIndex, x, targetSqlType));
    }
}
