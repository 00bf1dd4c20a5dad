package io.pgmux.jdbc.logical;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;

/**
 * The part of {@link ResultSet} that changes rows, refused as pgjdbc refuses it on a
 * {@code CONCUR_READ_ONLY} result set: for result sets that pgmux holds itself, which are never updatable.
 */
abstract class ReadOnlyResultSet implements ResultSet {

    static SQLException readOnly() {
        return new SQLException("ResultSets with concurrency CONCUR_READ_ONLY cannot be updated.", "24000");
    }

    @Override
    public final boolean rowUpdated() {
        return false;
    }

    @Override
    public final boolean rowInserted() {
        return false;
    }

    @Override
    public final boolean rowDeleted() {
        return false;
    }

    @Override
    public final void updateNull(int column) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBoolean(int column, boolean value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateByte(int column, byte value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateShort(int column, short value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateInt(int column, int value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateLong(int column, long value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateFloat(int column, float value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateDouble(int column, double value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBigDecimal(int column, BigDecimal value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateString(int column, String value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBytes(int column, byte[] value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateDate(int column, Date value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateTime(int column, Time value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateTimestamp(int column, Timestamp value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateAsciiStream(int column, InputStream value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBinaryStream(int column, InputStream value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateCharacterStream(int column, Reader value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(int column, Object value, int length) throws SQLException {
        throw readOnly();
    }

    // The interface's defaults would throw without an SQLSTATE.
    @Override
    public final void updateObject(int column, Object value, SQLType type, int scaleOrLength) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(int column, Object value, SQLType type) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(String column, Object value, SQLType type, int scaleOrLength)
            throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(String column, Object value, SQLType type) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(int column, Object value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNull(String column) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBoolean(String column, boolean value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateByte(String column, byte value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateShort(String column, short value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateInt(String column, int value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateLong(String column, long value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateFloat(String column, float value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateDouble(String column, double value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBigDecimal(String column, BigDecimal value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateString(String column, String value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBytes(String column, byte[] value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateDate(String column, Date value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateTime(String column, Time value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateTimestamp(String column, Timestamp value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateAsciiStream(String column, InputStream value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBinaryStream(String column, InputStream value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateCharacterStream(String column, Reader value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(String column, Object value, int length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateObject(String column, Object value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void insertRow() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateRow() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void deleteRow() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void refreshRow() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void cancelRowUpdates() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void moveToInsertRow() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void moveToCurrentRow() throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateRef(int column, Ref value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateRef(String column, Ref value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBlob(int column, Blob value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBlob(String column, Blob value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateClob(int column, Clob value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateClob(String column, Clob value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateArray(int column, Array value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateArray(String column, Array value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateRowId(int column, RowId value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateRowId(String column, RowId value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNString(int column, String value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNString(String column, String value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNClob(int column, NClob value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNClob(String column, NClob value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateSQLXML(int column, SQLXML value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateSQLXML(String column, SQLXML value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNCharacterStream(int column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNCharacterStream(String column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateAsciiStream(int column, InputStream value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBinaryStream(int column, InputStream value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateCharacterStream(int column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateAsciiStream(String column, InputStream value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBinaryStream(String column, InputStream value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateCharacterStream(String column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBlob(int column, InputStream value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBlob(String column, InputStream value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateClob(int column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateClob(String column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNClob(int column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNClob(String column, Reader value, long length) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNCharacterStream(int column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNCharacterStream(String column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateAsciiStream(int column, InputStream value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBinaryStream(int column, InputStream value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateCharacterStream(int column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateAsciiStream(String column, InputStream value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBinaryStream(String column, InputStream value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateCharacterStream(String column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBlob(int column, InputStream value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateBlob(String column, InputStream value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateClob(int column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateClob(String column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNClob(int column, Reader value) throws SQLException {
        throw readOnly();
    }

    @Override
    public final void updateNClob(String column, Reader value) throws SQLException {
        throw readOnly();
    }
}
