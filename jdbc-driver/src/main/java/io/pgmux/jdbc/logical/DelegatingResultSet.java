package io.pgmux.jdbc.logical;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;
import java.util.Map;

/**
 * Forwards every {@link ResultSet} call to the pgjdbc result set after {@link #check()}, a subclass saying
 * when that is safe. Values that pgjdbc binds to its server connection (arrays, large objects, refcursor
 * results) go through {@link #handOut}: the application never gets one of pgjdbc's as it is.
 */
abstract class DelegatingResultSet implements ResultSet {
    /**
     * pgjdbc's result set, or the copy that replaced it ({@link #redirect}). Not volatile: a subclass that
     * redirects reads a volatile field of its own in {@link #check()}, written after this one.
     */
    ResultSet delegate;
    private ResultSetMetaData metaData;

    DelegatingResultSet(ResultSet delegate) {
        this.delegate = delegate;
    }

    /** From now on every call goes to {@code copy}. */
    final void redirect(ResultSet copy) {
        delegate = copy;
    }

    /** Throws if this result set may no longer be used. */
    abstract void check() throws SQLException;

    /** What the application gets for a value pgjdbc returned (see {@link LeaseScope#handOut}). */
    abstract Object handOut(Object value) throws SQLException;

    /** {@link #handOut}, which keeps the JDBC interface of the value (Array, Blob, Clob, NClob, ResultSet). */
    @SuppressWarnings("unchecked")
    private <T> T handedOut(T value) throws SQLException {
        return (T) handOut(value);
    }

    @Override
    public boolean wasNull() throws SQLException {
        check();
        return delegate.wasNull();
    }

    @Override
    public String getString(int columnIndex) throws SQLException {
        check();
        return delegate.getString(columnIndex);
    }

    @Override
    public boolean getBoolean(int columnIndex) throws SQLException {
        check();
        return delegate.getBoolean(columnIndex);
    }

    @Override
    public byte getByte(int columnIndex) throws SQLException {
        check();
        return delegate.getByte(columnIndex);
    }

    @Override
    public short getShort(int columnIndex) throws SQLException {
        check();
        return delegate.getShort(columnIndex);
    }

    @Override
    public int getInt(int columnIndex) throws SQLException {
        check();
        return delegate.getInt(columnIndex);
    }

    @Override
    public long getLong(int columnIndex) throws SQLException {
        check();
        return delegate.getLong(columnIndex);
    }

    @Override
    public float getFloat(int columnIndex) throws SQLException {
        check();
        return delegate.getFloat(columnIndex);
    }

    @Override
    public double getDouble(int columnIndex) throws SQLException {
        check();
        return delegate.getDouble(columnIndex);
    }

    @Override
    @SuppressWarnings("deprecation")
    public BigDecimal getBigDecimal(int columnIndex, int x) throws SQLException {
        check();
        return delegate.getBigDecimal(columnIndex, x);
    }

    @Override
    public byte[] getBytes(int columnIndex) throws SQLException {
        check();
        return delegate.getBytes(columnIndex);
    }

    @Override
    public Date getDate(int columnIndex) throws SQLException {
        check();
        return delegate.getDate(columnIndex);
    }

    @Override
    public Time getTime(int columnIndex) throws SQLException {
        check();
        return delegate.getTime(columnIndex);
    }

    @Override
    public Timestamp getTimestamp(int columnIndex) throws SQLException {
        check();
        return delegate.getTimestamp(columnIndex);
    }

    @Override
    public InputStream getAsciiStream(int columnIndex) throws SQLException {
        check();
        return delegate.getAsciiStream(columnIndex);
    }

    @Override
    @SuppressWarnings("deprecation")
    public InputStream getUnicodeStream(int columnIndex) throws SQLException {
        check();
        return delegate.getUnicodeStream(columnIndex);
    }

    @Override
    public InputStream getBinaryStream(int columnIndex) throws SQLException {
        check();
        return delegate.getBinaryStream(columnIndex);
    }

    @Override
    public String getString(String columnLabel) throws SQLException {
        check();
        return delegate.getString(columnLabel);
    }

    @Override
    public boolean getBoolean(String columnLabel) throws SQLException {
        check();
        return delegate.getBoolean(columnLabel);
    }

    @Override
    public byte getByte(String columnLabel) throws SQLException {
        check();
        return delegate.getByte(columnLabel);
    }

    @Override
    public short getShort(String columnLabel) throws SQLException {
        check();
        return delegate.getShort(columnLabel);
    }

    @Override
    public int getInt(String columnLabel) throws SQLException {
        check();
        return delegate.getInt(columnLabel);
    }

    @Override
    public long getLong(String columnLabel) throws SQLException {
        check();
        return delegate.getLong(columnLabel);
    }

    @Override
    public float getFloat(String columnLabel) throws SQLException {
        check();
        return delegate.getFloat(columnLabel);
    }

    @Override
    public double getDouble(String columnLabel) throws SQLException {
        check();
        return delegate.getDouble(columnLabel);
    }

    @Override
    @SuppressWarnings("deprecation")
    public BigDecimal getBigDecimal(String columnLabel, int x) throws SQLException {
        check();
        return delegate.getBigDecimal(columnLabel, x);
    }

    @Override
    public byte[] getBytes(String columnLabel) throws SQLException {
        check();
        return delegate.getBytes(columnLabel);
    }

    @Override
    public Date getDate(String columnLabel) throws SQLException {
        check();
        return delegate.getDate(columnLabel);
    }

    @Override
    public Time getTime(String columnLabel) throws SQLException {
        check();
        return delegate.getTime(columnLabel);
    }

    @Override
    public Timestamp getTimestamp(String columnLabel) throws SQLException {
        check();
        return delegate.getTimestamp(columnLabel);
    }

    @Override
    public InputStream getAsciiStream(String columnLabel) throws SQLException {
        check();
        return delegate.getAsciiStream(columnLabel);
    }

    @Override
    @SuppressWarnings("deprecation")
    public InputStream getUnicodeStream(String columnLabel) throws SQLException {
        check();
        return delegate.getUnicodeStream(columnLabel);
    }

    @Override
    public InputStream getBinaryStream(String columnLabel) throws SQLException {
        check();
        return delegate.getBinaryStream(columnLabel);
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        check();
        return delegate.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
        check();
        delegate.clearWarnings();
    }

    @Override
    public String getCursorName() throws SQLException {
        check();
        return delegate.getCursorName();
    }

    /** Read completely now: pgjdbc's object would query the catalog later on a connection no longer ours. */
    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        check();
        if (metaData == null) {
            metaData = new DetachedResultSetMetaData(delegate.getMetaData());
        }
        return metaData;
    }

    @Override
    public Object getObject(int columnIndex) throws SQLException {
        check();
        return handedOut(delegate.getObject(columnIndex));
    }

    @Override
    public Object getObject(String columnLabel) throws SQLException {
        check();
        return handedOut(delegate.getObject(columnLabel));
    }

    @Override
    public int findColumn(String columnLabel) throws SQLException {
        check();
        return delegate.findColumn(columnLabel);
    }

    @Override
    public Reader getCharacterStream(int columnIndex) throws SQLException {
        check();
        return delegate.getCharacterStream(columnIndex);
    }

    @Override
    public Reader getCharacterStream(String columnLabel) throws SQLException {
        check();
        return delegate.getCharacterStream(columnLabel);
    }

    @Override
    public BigDecimal getBigDecimal(int columnIndex) throws SQLException {
        check();
        return delegate.getBigDecimal(columnIndex);
    }

    @Override
    public BigDecimal getBigDecimal(String columnLabel) throws SQLException {
        check();
        return delegate.getBigDecimal(columnLabel);
    }

    @Override
    public boolean isBeforeFirst() throws SQLException {
        check();
        return delegate.isBeforeFirst();
    }

    @Override
    public boolean isAfterLast() throws SQLException {
        check();
        return delegate.isAfterLast();
    }

    @Override
    public boolean isFirst() throws SQLException {
        check();
        return delegate.isFirst();
    }

    @Override
    public boolean isLast() throws SQLException {
        check();
        return delegate.isLast();
    }

    @Override
    public void beforeFirst() throws SQLException {
        check();
        delegate.beforeFirst();
    }

    @Override
    public void afterLast() throws SQLException {
        check();
        delegate.afterLast();
    }

    @Override
    public boolean first() throws SQLException {
        check();
        return delegate.first();
    }

    @Override
    public boolean last() throws SQLException {
        check();
        return delegate.last();
    }

    @Override
    public int getRow() throws SQLException {
        check();
        return delegate.getRow();
    }

    @Override
    public boolean absolute(int row) throws SQLException {
        check();
        return delegate.absolute(row);
    }

    @Override
    public boolean relative(int rows) throws SQLException {
        check();
        return delegate.relative(rows);
    }

    @Override
    public boolean previous() throws SQLException {
        check();
        return delegate.previous();
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        check();
        delegate.setFetchDirection(direction);
    }

    @Override
    public int getFetchDirection() throws SQLException {
        check();
        return delegate.getFetchDirection();
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        check();
        delegate.setFetchSize(rows);
    }

    @Override
    public int getFetchSize() throws SQLException {
        check();
        return delegate.getFetchSize();
    }

    @Override
    public int getType() throws SQLException {
        check();
        return delegate.getType();
    }

    @Override
    public int getConcurrency() throws SQLException {
        check();
        return delegate.getConcurrency();
    }

    @Override
    public boolean rowUpdated() throws SQLException {
        check();
        return delegate.rowUpdated();
    }

    @Override
    public boolean rowInserted() throws SQLException {
        check();
        return delegate.rowInserted();
    }

    @Override
    public boolean rowDeleted() throws SQLException {
        check();
        return delegate.rowDeleted();
    }

    @Override
    public void updateNull(int columnIndex) throws SQLException {
        check();
        delegate.updateNull(columnIndex);
    }

    @Override
    public void updateBoolean(int columnIndex, boolean x) throws SQLException {
        check();
        delegate.updateBoolean(columnIndex, x);
    }

    @Override
    public void updateByte(int columnIndex, byte x) throws SQLException {
        check();
        delegate.updateByte(columnIndex, x);
    }

    @Override
    public void updateShort(int columnIndex, short x) throws SQLException {
        check();
        delegate.updateShort(columnIndex, x);
    }

    @Override
    public void updateInt(int columnIndex, int x) throws SQLException {
        check();
        delegate.updateInt(columnIndex, x);
    }

    @Override
    public void updateLong(int columnIndex, long x) throws SQLException {
        check();
        delegate.updateLong(columnIndex, x);
    }

    @Override
    public void updateFloat(int columnIndex, float x) throws SQLException {
        check();
        delegate.updateFloat(columnIndex, x);
    }

    @Override
    public void updateDouble(int columnIndex, double x) throws SQLException {
        check();
        delegate.updateDouble(columnIndex, x);
    }

    @Override
    public void updateBigDecimal(int columnIndex, BigDecimal x) throws SQLException {
        check();
        delegate.updateBigDecimal(columnIndex, x);
    }

    @Override
    public void updateString(int columnIndex, String x) throws SQLException {
        check();
        delegate.updateString(columnIndex, x);
    }

    @Override
    public void updateBytes(int columnIndex, byte[] x) throws SQLException {
        check();
        delegate.updateBytes(columnIndex, x);
    }

    @Override
    public void updateDate(int columnIndex, Date x) throws SQLException {
        check();
        delegate.updateDate(columnIndex, x);
    }

    @Override
    public void updateTime(int columnIndex, Time x) throws SQLException {
        check();
        delegate.updateTime(columnIndex, x);
    }

    @Override
    public void updateTimestamp(int columnIndex, Timestamp x) throws SQLException {
        check();
        delegate.updateTimestamp(columnIndex, x);
    }

    @Override
    public void updateAsciiStream(int columnIndex, InputStream x, int arg2) throws SQLException {
        check();
        delegate.updateAsciiStream(columnIndex, x, arg2);
    }

    @Override
    public void updateBinaryStream(int columnIndex, InputStream x, int arg2) throws SQLException {
        check();
        delegate.updateBinaryStream(columnIndex, x, arg2);
    }

    @Override
    public void updateCharacterStream(int columnIndex, Reader x, int arg2) throws SQLException {
        check();
        delegate.updateCharacterStream(columnIndex, x, arg2);
    }

    @Override
    public void updateObject(int columnIndex, Object x, int arg2) throws SQLException {
        check();
        delegate.updateObject(columnIndex, x, arg2);
    }

    @Override
    public void updateObject(int columnIndex, Object x) throws SQLException {
        check();
        delegate.updateObject(columnIndex, x);
    }

    @Override
    public void updateNull(String columnLabel) throws SQLException {
        check();
        delegate.updateNull(columnLabel);
    }

    @Override
    public void updateBoolean(String columnLabel, boolean x) throws SQLException {
        check();
        delegate.updateBoolean(columnLabel, x);
    }

    @Override
    public void updateByte(String columnLabel, byte x) throws SQLException {
        check();
        delegate.updateByte(columnLabel, x);
    }

    @Override
    public void updateShort(String columnLabel, short x) throws SQLException {
        check();
        delegate.updateShort(columnLabel, x);
    }

    @Override
    public void updateInt(String columnLabel, int x) throws SQLException {
        check();
        delegate.updateInt(columnLabel, x);
    }

    @Override
    public void updateLong(String columnLabel, long x) throws SQLException {
        check();
        delegate.updateLong(columnLabel, x);
    }

    @Override
    public void updateFloat(String columnLabel, float x) throws SQLException {
        check();
        delegate.updateFloat(columnLabel, x);
    }

    @Override
    public void updateDouble(String columnLabel, double x) throws SQLException {
        check();
        delegate.updateDouble(columnLabel, x);
    }

    @Override
    public void updateBigDecimal(String columnLabel, BigDecimal x) throws SQLException {
        check();
        delegate.updateBigDecimal(columnLabel, x);
    }

    @Override
    public void updateString(String columnLabel, String x) throws SQLException {
        check();
        delegate.updateString(columnLabel, x);
    }

    @Override
    public void updateBytes(String columnLabel, byte[] x) throws SQLException {
        check();
        delegate.updateBytes(columnLabel, x);
    }

    @Override
    public void updateDate(String columnLabel, Date x) throws SQLException {
        check();
        delegate.updateDate(columnLabel, x);
    }

    @Override
    public void updateTime(String columnLabel, Time x) throws SQLException {
        check();
        delegate.updateTime(columnLabel, x);
    }

    @Override
    public void updateTimestamp(String columnLabel, Timestamp x) throws SQLException {
        check();
        delegate.updateTimestamp(columnLabel, x);
    }

    @Override
    public void updateAsciiStream(String columnLabel, InputStream x, int arg2) throws SQLException {
        check();
        delegate.updateAsciiStream(columnLabel, x, arg2);
    }

    @Override
    public void updateBinaryStream(String columnLabel, InputStream x, int arg2) throws SQLException {
        check();
        delegate.updateBinaryStream(columnLabel, x, arg2);
    }

    @Override
    public void updateCharacterStream(String columnLabel, Reader x, int arg2) throws SQLException {
        check();
        delegate.updateCharacterStream(columnLabel, x, arg2);
    }

    @Override
    public void updateObject(String columnLabel, Object x, int arg2) throws SQLException {
        check();
        delegate.updateObject(columnLabel, x, arg2);
    }

    @Override
    public void updateObject(String columnLabel, Object x) throws SQLException {
        check();
        delegate.updateObject(columnLabel, x);
    }

    @Override
    public void insertRow() throws SQLException {
        check();
        delegate.insertRow();
    }

    @Override
    public void updateRow() throws SQLException {
        check();
        delegate.updateRow();
    }

    @Override
    public void deleteRow() throws SQLException {
        check();
        delegate.deleteRow();
    }

    @Override
    public void refreshRow() throws SQLException {
        check();
        delegate.refreshRow();
    }

    @Override
    public void cancelRowUpdates() throws SQLException {
        check();
        delegate.cancelRowUpdates();
    }

    @Override
    public void moveToInsertRow() throws SQLException {
        check();
        delegate.moveToInsertRow();
    }

    @Override
    public void moveToCurrentRow() throws SQLException {
        check();
        delegate.moveToCurrentRow();
    }

    @Override
    public Object getObject(int columnIndex, Map<String, Class<?>> x) throws SQLException {
        check();
        return handedOut(delegate.getObject(columnIndex, x));
    }

    @Override
    public Ref getRef(int columnIndex) throws SQLException {
        check();
        return handedOut(delegate.getRef(columnIndex));
    }

    @Override
    public Blob getBlob(int columnIndex) throws SQLException {
        check();
        return handedOut(delegate.getBlob(columnIndex));
    }

    @Override
    public Clob getClob(int columnIndex) throws SQLException {
        check();
        return handedOut(delegate.getClob(columnIndex));
    }

    @Override
    public Array getArray(int columnIndex) throws SQLException {
        check();
        return handedOut(delegate.getArray(columnIndex));
    }

    @Override
    public Object getObject(String columnLabel, Map<String, Class<?>> x) throws SQLException {
        check();
        return handedOut(delegate.getObject(columnLabel, x));
    }

    @Override
    public Ref getRef(String columnLabel) throws SQLException {
        check();
        return handedOut(delegate.getRef(columnLabel));
    }

    @Override
    public Blob getBlob(String columnLabel) throws SQLException {
        check();
        return handedOut(delegate.getBlob(columnLabel));
    }

    @Override
    public Clob getClob(String columnLabel) throws SQLException {
        check();
        return handedOut(delegate.getClob(columnLabel));
    }

    @Override
    public Array getArray(String columnLabel) throws SQLException {
        check();
        return handedOut(delegate.getArray(columnLabel));
    }

    @Override
    public Date getDate(int columnIndex, Calendar x) throws SQLException {
        check();
        return delegate.getDate(columnIndex, x);
    }

    @Override
    public Date getDate(String columnLabel, Calendar x) throws SQLException {
        check();
        return delegate.getDate(columnLabel, x);
    }

    @Override
    public Time getTime(int columnIndex, Calendar x) throws SQLException {
        check();
        return delegate.getTime(columnIndex, x);
    }

    @Override
    public Time getTime(String columnLabel, Calendar x) throws SQLException {
        check();
        return delegate.getTime(columnLabel, x);
    }

    @Override
    public Timestamp getTimestamp(int columnIndex, Calendar x) throws SQLException {
        check();
        return delegate.getTimestamp(columnIndex, x);
    }

    @Override
    public Timestamp getTimestamp(String columnLabel, Calendar x) throws SQLException {
        check();
        return delegate.getTimestamp(columnLabel, x);
    }

    @Override
    public URL getURL(int columnIndex) throws SQLException {
        check();
        return delegate.getURL(columnIndex);
    }

    @Override
    public URL getURL(String columnLabel) throws SQLException {
        check();
        return delegate.getURL(columnLabel);
    }

    @Override
    public void updateRef(int columnIndex, Ref x) throws SQLException {
        check();
        delegate.updateRef(columnIndex, x);
    }

    @Override
    public void updateRef(String columnLabel, Ref x) throws SQLException {
        check();
        delegate.updateRef(columnLabel, x);
    }

    @Override
    public void updateBlob(int columnIndex, Blob x) throws SQLException {
        check();
        delegate.updateBlob(columnIndex, x);
    }

    @Override
    public void updateBlob(String columnLabel, Blob x) throws SQLException {
        check();
        delegate.updateBlob(columnLabel, x);
    }

    @Override
    public void updateClob(int columnIndex, Clob x) throws SQLException {
        check();
        delegate.updateClob(columnIndex, x);
    }

    @Override
    public void updateClob(String columnLabel, Clob x) throws SQLException {
        check();
        delegate.updateClob(columnLabel, x);
    }

    @Override
    public void updateArray(int columnIndex, Array x) throws SQLException {
        check();
        delegate.updateArray(columnIndex, x);
    }

    @Override
    public void updateArray(String columnLabel, Array x) throws SQLException {
        check();
        delegate.updateArray(columnLabel, x);
    }

    @Override
    public RowId getRowId(int columnIndex) throws SQLException {
        check();
        return delegate.getRowId(columnIndex);
    }

    @Override
    public RowId getRowId(String columnLabel) throws SQLException {
        check();
        return delegate.getRowId(columnLabel);
    }

    @Override
    public void updateRowId(int columnIndex, RowId x) throws SQLException {
        check();
        delegate.updateRowId(columnIndex, x);
    }

    @Override
    public void updateRowId(String columnLabel, RowId x) throws SQLException {
        check();
        delegate.updateRowId(columnLabel, x);
    }

    @Override
    public int getHoldability() throws SQLException {
        check();
        return delegate.getHoldability();
    }

    @Override
    public void updateNString(int columnIndex, String x) throws SQLException {
        check();
        delegate.updateNString(columnIndex, x);
    }

    @Override
    public void updateNString(String columnLabel, String x) throws SQLException {
        check();
        delegate.updateNString(columnLabel, x);
    }

    @Override
    public void updateNClob(int columnIndex, NClob x) throws SQLException {
        check();
        delegate.updateNClob(columnIndex, x);
    }

    @Override
    public void updateNClob(String columnLabel, NClob x) throws SQLException {
        check();
        delegate.updateNClob(columnLabel, x);
    }

    @Override
    public NClob getNClob(int columnIndex) throws SQLException {
        check();
        return handedOut(delegate.getNClob(columnIndex));
    }

    @Override
    public NClob getNClob(String columnLabel) throws SQLException {
        check();
        return handedOut(delegate.getNClob(columnLabel));
    }

    @Override
    public SQLXML getSQLXML(int columnIndex) throws SQLException {
        check();
        return delegate.getSQLXML(columnIndex);
    }

    @Override
    public SQLXML getSQLXML(String columnLabel) throws SQLException {
        check();
        return delegate.getSQLXML(columnLabel);
    }

    @Override
    public void updateSQLXML(int columnIndex, SQLXML x) throws SQLException {
        check();
        delegate.updateSQLXML(columnIndex, x);
    }

    @Override
    public void updateSQLXML(String columnLabel, SQLXML x) throws SQLException {
        check();
        delegate.updateSQLXML(columnLabel, x);
    }

    @Override
    public String getNString(int columnIndex) throws SQLException {
        check();
        return delegate.getNString(columnIndex);
    }

    @Override
    public String getNString(String columnLabel) throws SQLException {
        check();
        return delegate.getNString(columnLabel);
    }

    @Override
    public Reader getNCharacterStream(int columnIndex) throws SQLException {
        check();
        return delegate.getNCharacterStream(columnIndex);
    }

    @Override
    public Reader getNCharacterStream(String columnLabel) throws SQLException {
        check();
        return delegate.getNCharacterStream(columnLabel);
    }

    @Override
    public void updateNCharacterStream(int columnIndex, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateNCharacterStream(columnIndex, x, arg2);
    }

    @Override
    public void updateNCharacterStream(String columnLabel, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateNCharacterStream(columnLabel, x, arg2);
    }

    @Override
    public void updateAsciiStream(int columnIndex, InputStream x, long arg2) throws SQLException {
        check();
        delegate.updateAsciiStream(columnIndex, x, arg2);
    }

    @Override
    public void updateBinaryStream(int columnIndex, InputStream x, long arg2) throws SQLException {
        check();
        delegate.updateBinaryStream(columnIndex, x, arg2);
    }

    @Override
    public void updateCharacterStream(int columnIndex, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateCharacterStream(columnIndex, x, arg2);
    }

    @Override
    public void updateAsciiStream(String columnLabel, InputStream x, long arg2) throws SQLException {
        check();
        delegate.updateAsciiStream(columnLabel, x, arg2);
    }

    @Override
    public void updateBinaryStream(String columnLabel, InputStream x, long arg2) throws SQLException {
        check();
        delegate.updateBinaryStream(columnLabel, x, arg2);
    }

    @Override
    public void updateCharacterStream(String columnLabel, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateCharacterStream(columnLabel, x, arg2);
    }

    @Override
    public void updateBlob(int columnIndex, InputStream x, long arg2) throws SQLException {
        check();
        delegate.updateBlob(columnIndex, x, arg2);
    }

    @Override
    public void updateBlob(String columnLabel, InputStream x, long arg2) throws SQLException {
        check();
        delegate.updateBlob(columnLabel, x, arg2);
    }

    @Override
    public void updateClob(int columnIndex, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateClob(columnIndex, x, arg2);
    }

    @Override
    public void updateClob(String columnLabel, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateClob(columnLabel, x, arg2);
    }

    @Override
    public void updateNClob(int columnIndex, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateNClob(columnIndex, x, arg2);
    }

    @Override
    public void updateNClob(String columnLabel, Reader x, long arg2) throws SQLException {
        check();
        delegate.updateNClob(columnLabel, x, arg2);
    }

    @Override
    public void updateNCharacterStream(int columnIndex, Reader x) throws SQLException {
        check();
        delegate.updateNCharacterStream(columnIndex, x);
    }

    @Override
    public void updateNCharacterStream(String columnLabel, Reader x) throws SQLException {
        check();
        delegate.updateNCharacterStream(columnLabel, x);
    }

    @Override
    public void updateAsciiStream(int columnIndex, InputStream x) throws SQLException {
        check();
        delegate.updateAsciiStream(columnIndex, x);
    }

    @Override
    public void updateBinaryStream(int columnIndex, InputStream x) throws SQLException {
        check();
        delegate.updateBinaryStream(columnIndex, x);
    }

    @Override
    public void updateCharacterStream(int columnIndex, Reader x) throws SQLException {
        check();
        delegate.updateCharacterStream(columnIndex, x);
    }

    @Override
    public void updateAsciiStream(String columnLabel, InputStream x) throws SQLException {
        check();
        delegate.updateAsciiStream(columnLabel, x);
    }

    @Override
    public void updateBinaryStream(String columnLabel, InputStream x) throws SQLException {
        check();
        delegate.updateBinaryStream(columnLabel, x);
    }

    @Override
    public void updateCharacterStream(String columnLabel, Reader x) throws SQLException {
        check();
        delegate.updateCharacterStream(columnLabel, x);
    }

    @Override
    public void updateBlob(int columnIndex, InputStream x) throws SQLException {
        check();
        delegate.updateBlob(columnIndex, x);
    }

    @Override
    public void updateBlob(String columnLabel, InputStream x) throws SQLException {
        check();
        delegate.updateBlob(columnLabel, x);
    }

    @Override
    public void updateClob(int columnIndex, Reader x) throws SQLException {
        check();
        delegate.updateClob(columnIndex, x);
    }

    @Override
    public void updateClob(String columnLabel, Reader x) throws SQLException {
        check();
        delegate.updateClob(columnLabel, x);
    }

    @Override
    public void updateNClob(int columnIndex, Reader x) throws SQLException {
        check();
        delegate.updateNClob(columnIndex, x);
    }

    @Override
    public void updateNClob(String columnLabel, Reader x) throws SQLException {
        check();
        delegate.updateNClob(columnLabel, x);
    }

    @Override
    public <T> T getObject(int columnIndex, Class<T> x) throws SQLException {
        check();
        return x.cast(handOut(delegate.getObject(columnIndex, x)));
    }

    @Override
    public <T> T getObject(String columnLabel, Class<T> x) throws SQLException {
        check();
        return x.cast(handOut(delegate.getObject(columnLabel, x)));
    }

    @Override
    public void updateObject(int columnIndex, Object x, SQLType arg2, int arg3) throws SQLException {
        check();
        delegate.updateObject(columnIndex, x, arg2, arg3);
    }

    @Override
    public void updateObject(String columnLabel, Object x, SQLType arg2, int arg3) throws SQLException {
        check();
        delegate.updateObject(columnLabel, x, arg2, arg3);
    }

    @Override
    public void updateObject(int columnIndex, Object x, SQLType arg2) throws SQLException {
        check();
        delegate.updateObject(columnIndex, x, arg2);
    }

    @Override
    public void updateObject(String columnLabel, Object x, SQLType arg2) throws SQLException {
        check();
        delegate.updateObject(columnLabel, x, arg2);
    }

    /** Only to what this object itself is: pgjdbc's result set stays inside. */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("Cannot unwrap to " + iface.getName(), "HY000");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
