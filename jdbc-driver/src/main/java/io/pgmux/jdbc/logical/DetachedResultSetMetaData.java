package io.pgmux.jdbc.logical;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;

/**
 * Result set metadata read completely while a server connection was held, because pgjdbc's own object
 * may query the catalog later through a connection that by then serves someone else.
 */
final class DetachedResultSetMetaData implements ResultSetMetaData {
    private final int count;
    private final boolean[] autoIncrement;
    private final boolean[] caseSensitive;
    private final boolean[] searchable;
    private final boolean[] currency;
    private final int[] nullable;
    private final boolean[] signed;
    private final int[] displaySize;
    private final String[] label;
    private final String[] name;
    private final String[] schema;
    private final int[] precision;
    private final int[] scale;
    private final String[] table;
    private final String[] catalog;
    private final int[] type;
    private final String[] typeName;
    private final boolean[] readOnly;
    private final boolean[] writable;
    private final boolean[] definitelyWritable;
    private final String[] className;
    /**
     * pgjdbc answers nullability, auto-increment and the base table and schema from a catalog query; if
     * that fails (for example inside an aborted transaction) the error is kept for those questions only.
     */
    private final SQLException catalogFailure;

    DetachedResultSetMetaData(ResultSetMetaData md) throws SQLException {
        this(md.getColumnCount(), md);
    }

    /** The metadata of a result set without columns, such as the generated keys nobody asked for. */
    static DetachedResultSetMetaData noColumns() throws SQLException {
        return new DetachedResultSetMetaData(0, null);
    }

    private DetachedResultSetMetaData(int count, ResultSetMetaData md) throws SQLException {
        this.count = count;
        autoIncrement = new boolean[count];
        caseSensitive = new boolean[count];
        searchable = new boolean[count];
        currency = new boolean[count];
        nullable = new int[count];
        signed = new boolean[count];
        displaySize = new int[count];
        label = new String[count];
        name = new String[count];
        schema = new String[count];
        precision = new int[count];
        scale = new int[count];
        table = new String[count];
        catalog = new String[count];
        type = new int[count];
        typeName = new String[count];
        readOnly = new boolean[count];
        writable = new boolean[count];
        definitelyWritable = new boolean[count];
        className = new String[count];
        for (int i = 0; i < count; i++) {
            int c = i + 1;
            caseSensitive[i] = md.isCaseSensitive(c);
            searchable[i] = md.isSearchable(c);
            currency[i] = md.isCurrency(c);
            signed[i] = md.isSigned(c);
            displaySize[i] = md.getColumnDisplaySize(c);
            label[i] = md.getColumnLabel(c);
            name[i] = md.getColumnName(c);
            precision[i] = md.getPrecision(c);
            scale[i] = md.getScale(c);
            catalog[i] = md.getCatalogName(c);
            type[i] = md.getColumnType(c);
            typeName[i] = md.getColumnTypeName(c);
            readOnly[i] = md.isReadOnly(c);
            writable[i] = md.isWritable(c);
            definitelyWritable[i] = md.isDefinitelyWritable(c);
            className[i] = md.getColumnClassName(c);
        }
        SQLException failure = null;
        try {
            for (int i = 0; i < count; i++) {
                int c = i + 1;
                autoIncrement[i] = md.isAutoIncrement(c);
                nullable[i] = md.isNullable(c);
                schema[i] = md.getSchemaName(c);
                table[i] = md.getTableName(c);
            }
        } catch (SQLException e) {
            failure = e;
        }
        catalogFailure = failure;
    }

    private int catalogAt(int column) throws SQLException {
        int i = at(column);
        if (catalogFailure != null) {
            throw new SQLException(catalogFailure.getMessage(), catalogFailure.getSQLState(), catalogFailure);
        }
        return i;
    }

    /**
     * pgjdbc answers the catalog, schema, searchable and writable questions for any index, the others only
     * for a column of the result: so do these.
     */
    private boolean inRange(int column) {
        return column >= 1 && column <= count;
    }

    private int at(int column) throws SQLException {
        if (column < 1 || column > count) {
            throw new SQLException("The column index is out of range: " + column + ", number of columns: " + count
                    + ".", "22023");
        }
        return column - 1;
    }

    @Override
    public int getColumnCount() {
        return count;
    }

    @Override
    public boolean isAutoIncrement(int column) throws SQLException {
        return autoIncrement[catalogAt(column)];
    }

    @Override
    public boolean isCaseSensitive(int column) throws SQLException {
        return caseSensitive[at(column)];
    }

    @Override
    public boolean isSearchable(int column) throws SQLException {
        return !inRange(column) || searchable[column - 1];
    }

    @Override
    public boolean isCurrency(int column) throws SQLException {
        return currency[at(column)];
    }

    @Override
    public int isNullable(int column) throws SQLException {
        return nullable[catalogAt(column)];
    }

    @Override
    public boolean isSigned(int column) throws SQLException {
        return signed[at(column)];
    }

    @Override
    public int getColumnDisplaySize(int column) throws SQLException {
        return displaySize[at(column)];
    }

    @Override
    public String getColumnLabel(int column) throws SQLException {
        return label[at(column)];
    }

    @Override
    public String getColumnName(int column) throws SQLException {
        return name[at(column)];
    }

    @Override
    public String getSchemaName(int column) throws SQLException {
        return inRange(column) ? schema[catalogAt(column)] : "";
    }

    @Override
    public int getPrecision(int column) throws SQLException {
        return precision[at(column)];
    }

    @Override
    public int getScale(int column) throws SQLException {
        return scale[at(column)];
    }

    @Override
    public String getTableName(int column) throws SQLException {
        return table[catalogAt(column)];
    }

    @Override
    public String getCatalogName(int column) throws SQLException {
        return inRange(column) ? catalog[column - 1] : "";
    }

    @Override
    public int getColumnType(int column) throws SQLException {
        return type[at(column)];
    }

    @Override
    public String getColumnTypeName(int column) throws SQLException {
        return typeName[at(column)];
    }

    @Override
    public boolean isReadOnly(int column) throws SQLException {
        return inRange(column) && readOnly[column - 1];
    }

    @Override
    public boolean isWritable(int column) throws SQLException {
        return !inRange(column) || writable[column - 1];
    }

    @Override
    public boolean isDefinitelyWritable(int column) throws SQLException {
        return inRange(column) && definitelyWritable[column - 1];
    }

    @Override
    public String getColumnClassName(int column) throws SQLException {
        return className[at(column)];
    }

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
