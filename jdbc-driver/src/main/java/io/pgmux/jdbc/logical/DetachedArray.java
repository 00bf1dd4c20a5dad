package io.pgmux.jdbc.logical;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;

/**
 * An array value read completely while its server connection was held: pgjdbc's own Array looks up its
 * element type later through the connection it came from, which by then may serve another client. Only
 * getResultSet() still needs pgjdbc's array, so it works while the loan it was read in lasts (see
 * {@link LeaseScope}).
 */
final class DetachedArray implements Array {
    private final Array source;
    private final LeaseScope scope;
    private final String baseTypeName;
    private final int baseType;
    private final Object elements;
    private final String text;
    private boolean freed;

    DetachedArray(Array array, LeaseScope scope) throws SQLException {
        this.source = array;
        this.scope = scope;
        this.baseTypeName = array.getBaseTypeName();
        this.baseType = array.getBaseType();
        this.elements = array.getArray();
        this.text = array.toString();
    }

    private void check() throws SQLException {
        if (freed) {
            throw new SQLException("This Array has been freed.", "HY010");
        }
    }

    @Override
    public String getBaseTypeName() throws SQLException {
        check();
        return baseTypeName;
    }

    @Override
    public int getBaseType() throws SQLException {
        check();
        return baseType;
    }

    @Override
    public Object getArray() throws SQLException {
        check();
        return copy(0, elements == null ? 0 : java.lang.reflect.Array.getLength(elements));
    }

    @Override
    public Object getArray(Map<String, Class<?>> map) throws SQLException {
        if (map != null && !map.isEmpty()) {
            throw new SQLFeatureNotSupportedException("Array.getArray with a type map is not supported", "0A000");
        }
        return getArray();
    }

    @Override
    public Object getArray(long index, int count) throws SQLException {
        check();
        int length = elements == null ? 0 : java.lang.reflect.Array.getLength(elements);
        if (index < 1 || count < 0 || index - 1 + count > length) {
            throw new SQLException("The array index is out of range: " + index + ", number of elements: " + length
                    + ".", "22000");
        }
        return copy((int) index - 1, count);
    }

    @Override
    public Object getArray(long index, int count, Map<String, Class<?>> map) throws SQLException {
        if (map != null && !map.isEmpty()) {
            throw new SQLFeatureNotSupportedException("Array.getArray with a type map is not supported", "0A000");
        }
        return getArray(index, count);
    }

    private Object copy(int from, int count) {
        if (elements == null) {
            return null;
        }
        Object out = java.lang.reflect.Array.newInstance(elements.getClass().getComponentType(), count);
        System.arraycopy(elements, from, out, 0, count);
        return out;
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return resultSet(source::getResultSet);
    }

    @Override
    public ResultSet getResultSet(Map<String, Class<?>> map) throws SQLException {
        return resultSet(() -> source.getResultSet(map));
    }

    @Override
    public ResultSet getResultSet(long index, int count) throws SQLException {
        return resultSet(() -> source.getResultSet(index, count));
    }

    @Override
    public ResultSet getResultSet(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return resultSet(() -> source.getResultSet(index, count, map));
    }

    private ResultSet resultSet(LeaseScope.Call<ResultSet> call) throws SQLException {
        check();
        if (!scope.lasts()) {
            throw new SQLException("Array.getResultSet() works only in the transaction that read the array;"
                    + " getArray() works at any time", LeaseScope.OBJECT_NOT_IN_STATE);
        }
        return new LeaseBoundResultSet(scope, null, scope.call("This Array", call));
    }

    @Override
    public void free() {
        freed = true;
    }

    @Override
    public String toString() {
        return text;
    }
}
