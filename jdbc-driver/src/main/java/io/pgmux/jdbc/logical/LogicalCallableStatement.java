package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.Date;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A callable statement: parameters, OUT registrations and named bindings are recorded like a prepared
 * statement's; after an execution the server connection stays held until the OUT values have been read
 * (the statement runs again or closes).
 */
final class LogicalCallableStatement extends LogicalPreparedStatement implements CallableStatement {
    /** OUT registrations and by-name bindings, keyed so that repeating one replaces it. */
    private final Map<String, ParamSetter> outAndNamed = new LinkedHashMap<>();
    private boolean outputsAvailable;

    LogicalCallableStatement(LogicalConnection conn, ResultSetType type, String sql) {
        super(conn, type, sql, GeneratedKeys.NONE);
    }

    @Override
    Statement createPhysical(PhysicalConnection p) throws SQLException {
        Connection c = p.connection();
        if (type.isDefault()) {
            return c.prepareCall(sql);
        }
        return type.holdability == -1 ? c.prepareCall(sql, type.type, type.concurrency)
                : c.prepareCall(sql, type.type, type.concurrency, type.holdability);
    }

    @Override
    void bindAll(PreparedStatement ps) throws SQLException {
        super.bindAll(ps);
        for (ParamSetter s : outAndNamed.values()) {
            s.apply(ps);
        }
    }

    private void bindOut(int parameterIndex, ParamSetter setter) throws SQLException {
        checkOpen();
        if (parameterIndex < 1) {
            throw new SQLException("The column index is out of range: " + parameterIndex, "22023");
        }
        outAndNamed.put("out#" + parameterIndex, setter);
    }

    private void bindNamed(String parameterName, ParamSetter setter) throws SQLException {
        checkOpen();
        outAndNamed.put("in:" + parameterName, setter);
    }

    private void bindNamedOut(String parameterName, ParamSetter setter) throws SQLException {
        checkOpen();
        outAndNamed.put("out:" + parameterName, setter);
    }

    @Override
    public void clearParameters() throws SQLException {
        super.clearParameters();
        outAndNamed.clear();
    }

    @Override
    void executed() {
        outputsAvailable = true;
    }

    @Override
    boolean holdsOutputs() {
        return outputsAvailable;
    }

    @Override
    void clearOutputs() {
        outputsAvailable = false;
    }

    private CallableStatement outputs() throws SQLException {
        checkOpen();
        if (!outputsAvailable || physical == null) {
            throw new SQLException("No OUT parameter values: execute the statement first", "24000");
        }
        return (CallableStatement) physical;
    }

    /** An OUT value as the application gets it (see {@link LeaseScope#handOut}): this statement holds the loan. */
    private Object handOut(Object value) throws SQLException {
        return LeaseScope.handOut(value, conn, this);
    }

    /** {@link #handOut}, which keeps the JDBC interface of the value. */
    @SuppressWarnings("unchecked")
    private <T> T handedOut(T value) throws SQLException {
        return (T) handOut(value);
    }

    @Override
    public void registerOutParameter(String parameterName, int sqlType) throws SQLException {
        bindNamedOut(parameterName, ps -> ((CallableStatement) ps).registerOutParameter(parameterName, sqlType));
    }

    @Override
    public void registerOutParameter(String parameterName, int sqlType, int scale) throws SQLException {
        bindNamedOut(parameterName, ps -> ((CallableStatement) ps).registerOutParameter(parameterName, sqlType, scale));
    }

    @Override
    public void registerOutParameter(String parameterName, int sqlType, String typeName) throws SQLException {
        bindNamedOut(parameterName, ps -> ((CallableStatement) ps).registerOutParameter(parameterName, sqlType, typeName));
    }

    @Override
    public void setURL(String parameterName, URL x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setURL(parameterName, x));
    }

    @Override
    public void setNull(String parameterName, int sqlType) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNull(parameterName, sqlType));
    }

    @Override
    public void setBoolean(String parameterName, boolean x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBoolean(parameterName, x));
    }

    @Override
    public void setByte(String parameterName, byte x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setByte(parameterName, x));
    }

    @Override
    public void setShort(String parameterName, short x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setShort(parameterName, x));
    }

    @Override
    public void setInt(String parameterName, int x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setInt(parameterName, x));
    }

    @Override
    public void setLong(String parameterName, long x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setLong(parameterName, x));
    }

    @Override
    public void setFloat(String parameterName, float x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setFloat(parameterName, x));
    }

    @Override
    public void setDouble(String parameterName, double x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setDouble(parameterName, x));
    }

    @Override
    public void setBigDecimal(String parameterName, BigDecimal x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBigDecimal(parameterName, x));
    }

    @Override
    public void setString(String parameterName, String x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setString(parameterName, x));
    }

    @Override
    public void setBytes(String parameterName, byte[] x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBytes(parameterName, x));
    }

    @Override
    public void setDate(String parameterName, Date x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setDate(parameterName, x));
    }

    @Override
    public void setTime(String parameterName, Time x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setTime(parameterName, x));
    }

    @Override
    public void setTimestamp(String parameterName, Timestamp x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setTimestamp(parameterName, x));
    }

    @Override
    public void setAsciiStream(String parameterName, InputStream x, int length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setAsciiStream(parameterName, x, length));
    }

    @Override
    public void setBinaryStream(String parameterName, InputStream x, int length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBinaryStream(parameterName, x, length));
    }

    @Override
    public void setObject(String parameterName, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setObject(parameterName, x, targetSqlType, scaleOrLength));
    }

    @Override
    public void setObject(String parameterName, Object x, int targetSqlType) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setObject(parameterName, x, targetSqlType));
    }

    @Override
    public void setObject(String parameterName, Object x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setObject(parameterName, x));
    }

    @Override
    public void setCharacterStream(String parameterName, Reader x, int length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setCharacterStream(parameterName, x, length));
    }

    @Override
    public void setDate(String parameterName, Date x, Calendar cal) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setDate(parameterName, x, cal));
    }

    @Override
    public void setTime(String parameterName, Time x, Calendar cal) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setTime(parameterName, x, cal));
    }

    @Override
    public void setTimestamp(String parameterName, Timestamp x, Calendar cal) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setTimestamp(parameterName, x, cal));
    }

    @Override
    public void setNull(String parameterName, int sqlType, String typeName) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNull(parameterName, sqlType, typeName));
    }

    @Override
    public void setRowId(String parameterName, RowId x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setRowId(parameterName, x));
    }

    @Override
    public void setNString(String parameterName, String x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNString(parameterName, x));
    }

    @Override
    public void setNCharacterStream(String parameterName, Reader x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNCharacterStream(parameterName, x, length));
    }

    @Override
    public void setNClob(String parameterName, NClob x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNClob(parameterName, x));
    }

    @Override
    public void setClob(String parameterName, Reader x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setClob(parameterName, x, length));
    }

    @Override
    public void setBlob(String parameterName, InputStream x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBlob(parameterName, x, length));
    }

    @Override
    public void setNClob(String parameterName, Reader x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNClob(parameterName, x, length));
    }

    @Override
    public void setSQLXML(String parameterName, SQLXML x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setSQLXML(parameterName, x));
    }

    @Override
    public void setBlob(String parameterName, Blob x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBlob(parameterName, x));
    }

    @Override
    public void setClob(String parameterName, Clob x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setClob(parameterName, x));
    }

    @Override
    public void setAsciiStream(String parameterName, InputStream x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setAsciiStream(parameterName, x, length));
    }

    @Override
    public void setBinaryStream(String parameterName, InputStream x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBinaryStream(parameterName, x, length));
    }

    @Override
    public void setCharacterStream(String parameterName, Reader x, long length) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setCharacterStream(parameterName, x, length));
    }

    @Override
    public void setAsciiStream(String parameterName, InputStream x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setAsciiStream(parameterName, x));
    }

    @Override
    public void setBinaryStream(String parameterName, InputStream x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBinaryStream(parameterName, x));
    }

    @Override
    public void setCharacterStream(String parameterName, Reader x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setCharacterStream(parameterName, x));
    }

    @Override
    public void setNCharacterStream(String parameterName, Reader x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNCharacterStream(parameterName, x));
    }

    @Override
    public void setClob(String parameterName, Reader x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setClob(parameterName, x));
    }

    @Override
    public void setBlob(String parameterName, InputStream x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setBlob(parameterName, x));
    }

    @Override
    public void setNClob(String parameterName, Reader x) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setNClob(parameterName, x));
    }

    @Override
    public void setObject(String parameterName, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setObject(parameterName, x, targetSqlType, scaleOrLength));
    }

    @Override
    public void setObject(String parameterName, Object x, SQLType targetSqlType) throws SQLException {
        bindNamed(parameterName, ps -> ((CallableStatement) ps).setObject(parameterName, x, targetSqlType));
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType) throws SQLException {
        bindNamedOut(parameterName, ps -> ((CallableStatement) ps).registerOutParameter(parameterName, sqlType));
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType, int scale) throws SQLException {
        bindNamedOut(parameterName, ps -> ((CallableStatement) ps).registerOutParameter(parameterName, sqlType, scale));
    }

    @Override
    public void registerOutParameter(String parameterName, SQLType sqlType, String typeName) throws SQLException {
        bindNamedOut(parameterName, ps -> ((CallableStatement) ps).registerOutParameter(parameterName, sqlType, typeName));
    }

    @Override
    public void registerOutParameter(int parameterIndex, int sqlType) throws SQLException {
        bindOut(parameterIndex, ps -> ((CallableStatement) ps).registerOutParameter(parameterIndex, sqlType));
    }

    @Override
    public void registerOutParameter(int parameterIndex, int sqlType, int scale) throws SQLException {
        bindOut(parameterIndex, ps -> ((CallableStatement) ps).registerOutParameter(parameterIndex, sqlType, scale));
    }

    @Override
    public void registerOutParameter(int parameterIndex, int sqlType, String typeName) throws SQLException {
        bindOut(parameterIndex, ps -> ((CallableStatement) ps).registerOutParameter(parameterIndex, sqlType, typeName));
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType) throws SQLException {
        bindOut(parameterIndex, ps -> ((CallableStatement) ps).registerOutParameter(parameterIndex, sqlType));
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType, int scale) throws SQLException {
        bindOut(parameterIndex, ps -> ((CallableStatement) ps).registerOutParameter(parameterIndex, sqlType, scale));
    }

    @Override
    public void registerOutParameter(int parameterIndex, SQLType sqlType, String typeName) throws SQLException {
        bindOut(parameterIndex, ps -> ((CallableStatement) ps).registerOutParameter(parameterIndex, sqlType, typeName));
    }

    @Override
    public boolean wasNull() throws SQLException {
        return outputs().wasNull();
    }

    @Override
    public String getString(int parameterIndex) throws SQLException {
        return outputs().getString(parameterIndex);
    }

    @Override
    public boolean getBoolean(int parameterIndex) throws SQLException {
        return outputs().getBoolean(parameterIndex);
    }

    @Override
    public byte getByte(int parameterIndex) throws SQLException {
        return outputs().getByte(parameterIndex);
    }

    @Override
    public short getShort(int parameterIndex) throws SQLException {
        return outputs().getShort(parameterIndex);
    }

    @Override
    public int getInt(int parameterIndex) throws SQLException {
        return outputs().getInt(parameterIndex);
    }

    @Override
    public long getLong(int parameterIndex) throws SQLException {
        return outputs().getLong(parameterIndex);
    }

    @Override
    public float getFloat(int parameterIndex) throws SQLException {
        return outputs().getFloat(parameterIndex);
    }

    @Override
    public double getDouble(int parameterIndex) throws SQLException {
        return outputs().getDouble(parameterIndex);
    }

    @Override
    @SuppressWarnings("deprecation")
    public BigDecimal getBigDecimal(int parameterIndex, int scale) throws SQLException {
        return outputs().getBigDecimal(parameterIndex, scale);
    }

    @Override
    public byte[] getBytes(int parameterIndex) throws SQLException {
        return outputs().getBytes(parameterIndex);
    }

    @Override
    public Date getDate(int parameterIndex) throws SQLException {
        return outputs().getDate(parameterIndex);
    }

    @Override
    public Time getTime(int parameterIndex) throws SQLException {
        return outputs().getTime(parameterIndex);
    }

    @Override
    public Timestamp getTimestamp(int parameterIndex) throws SQLException {
        return outputs().getTimestamp(parameterIndex);
    }

    @Override
    public Object getObject(int parameterIndex) throws SQLException {
        return handedOut(outputs().getObject(parameterIndex));
    }

    @Override
    public BigDecimal getBigDecimal(int parameterIndex) throws SQLException {
        return outputs().getBigDecimal(parameterIndex);
    }

    @Override
    public Object getObject(int parameterIndex, Map<String, Class<?>> map) throws SQLException {
        return handedOut(outputs().getObject(parameterIndex, map));
    }

    @Override
    public Ref getRef(int parameterIndex) throws SQLException {
        return handedOut(outputs().getRef(parameterIndex));
    }

    @Override
    public Blob getBlob(int parameterIndex) throws SQLException {
        return handedOut(outputs().getBlob(parameterIndex));
    }

    @Override
    public Clob getClob(int parameterIndex) throws SQLException {
        return handedOut(outputs().getClob(parameterIndex));
    }

    @Override
    public Array getArray(int parameterIndex) throws SQLException {
        return handedOut(outputs().getArray(parameterIndex));
    }

    @Override
    public Date getDate(int parameterIndex, Calendar cal) throws SQLException {
        return outputs().getDate(parameterIndex, cal);
    }

    @Override
    public Time getTime(int parameterIndex, Calendar cal) throws SQLException {
        return outputs().getTime(parameterIndex, cal);
    }

    @Override
    public Timestamp getTimestamp(int parameterIndex, Calendar cal) throws SQLException {
        return outputs().getTimestamp(parameterIndex, cal);
    }

    @Override
    public URL getURL(int parameterIndex) throws SQLException {
        return outputs().getURL(parameterIndex);
    }

    @Override
    public String getString(String parameterName) throws SQLException {
        return outputs().getString(parameterName);
    }

    @Override
    public boolean getBoolean(String parameterName) throws SQLException {
        return outputs().getBoolean(parameterName);
    }

    @Override
    public byte getByte(String parameterName) throws SQLException {
        return outputs().getByte(parameterName);
    }

    @Override
    public short getShort(String parameterName) throws SQLException {
        return outputs().getShort(parameterName);
    }

    @Override
    public int getInt(String parameterName) throws SQLException {
        return outputs().getInt(parameterName);
    }

    @Override
    public long getLong(String parameterName) throws SQLException {
        return outputs().getLong(parameterName);
    }

    @Override
    public float getFloat(String parameterName) throws SQLException {
        return outputs().getFloat(parameterName);
    }

    @Override
    public double getDouble(String parameterName) throws SQLException {
        return outputs().getDouble(parameterName);
    }

    @Override
    public byte[] getBytes(String parameterName) throws SQLException {
        return outputs().getBytes(parameterName);
    }

    @Override
    public Date getDate(String parameterName) throws SQLException {
        return outputs().getDate(parameterName);
    }

    @Override
    public Time getTime(String parameterName) throws SQLException {
        return outputs().getTime(parameterName);
    }

    @Override
    public Timestamp getTimestamp(String parameterName) throws SQLException {
        return outputs().getTimestamp(parameterName);
    }

    @Override
    public Object getObject(String parameterName) throws SQLException {
        return handedOut(outputs().getObject(parameterName));
    }

    @Override
    public BigDecimal getBigDecimal(String parameterName) throws SQLException {
        return outputs().getBigDecimal(parameterName);
    }

    @Override
    public Object getObject(String parameterName, Map<String, Class<?>> map) throws SQLException {
        return handedOut(outputs().getObject(parameterName, map));
    }

    @Override
    public Ref getRef(String parameterName) throws SQLException {
        return handedOut(outputs().getRef(parameterName));
    }

    @Override
    public Blob getBlob(String parameterName) throws SQLException {
        return handedOut(outputs().getBlob(parameterName));
    }

    @Override
    public Clob getClob(String parameterName) throws SQLException {
        return handedOut(outputs().getClob(parameterName));
    }

    @Override
    public Array getArray(String parameterName) throws SQLException {
        return handedOut(outputs().getArray(parameterName));
    }

    @Override
    public Date getDate(String parameterName, Calendar cal) throws SQLException {
        return outputs().getDate(parameterName, cal);
    }

    @Override
    public Time getTime(String parameterName, Calendar cal) throws SQLException {
        return outputs().getTime(parameterName, cal);
    }

    @Override
    public Timestamp getTimestamp(String parameterName, Calendar cal) throws SQLException {
        return outputs().getTimestamp(parameterName, cal);
    }

    @Override
    public URL getURL(String parameterName) throws SQLException {
        return outputs().getURL(parameterName);
    }

    @Override
    public RowId getRowId(int parameterIndex) throws SQLException {
        return outputs().getRowId(parameterIndex);
    }

    @Override
    public RowId getRowId(String parameterName) throws SQLException {
        return outputs().getRowId(parameterName);
    }

    @Override
    public NClob getNClob(int parameterIndex) throws SQLException {
        return handedOut(outputs().getNClob(parameterIndex));
    }

    @Override
    public NClob getNClob(String parameterName) throws SQLException {
        return handedOut(outputs().getNClob(parameterName));
    }

    @Override
    public SQLXML getSQLXML(int parameterIndex) throws SQLException {
        return outputs().getSQLXML(parameterIndex);
    }

    @Override
    public SQLXML getSQLXML(String parameterName) throws SQLException {
        return outputs().getSQLXML(parameterName);
    }

    @Override
    public String getNString(int parameterIndex) throws SQLException {
        return outputs().getNString(parameterIndex);
    }

    @Override
    public String getNString(String parameterName) throws SQLException {
        return outputs().getNString(parameterName);
    }

    @Override
    public Reader getNCharacterStream(int parameterIndex) throws SQLException {
        return outputs().getNCharacterStream(parameterIndex);
    }

    @Override
    public Reader getNCharacterStream(String parameterName) throws SQLException {
        return outputs().getNCharacterStream(parameterName);
    }

    @Override
    public Reader getCharacterStream(int parameterIndex) throws SQLException {
        return outputs().getCharacterStream(parameterIndex);
    }

    @Override
    public Reader getCharacterStream(String parameterName) throws SQLException {
        return outputs().getCharacterStream(parameterName);
    }

    @Override
    public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
        return type.cast(handOut(outputs().getObject(parameterIndex, type)));
    }

    @Override
    public <T> T getObject(String parameterName, Class<T> type) throws SQLException {
        return type.cast(handOut(outputs().getObject(parameterName, type)));
    }
}
