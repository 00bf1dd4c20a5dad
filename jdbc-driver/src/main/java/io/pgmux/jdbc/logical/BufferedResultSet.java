package io.pgmux.jdbc.logical;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URL;
import java.nio.charset.StandardCharsets;
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
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import org.postgresql.jdbc.TimestampUtils;

/**
 * A result set copied whole out of pgjdbc's while the server connection was still held, so that reading it
 * needs none: what a result the application left unread becomes once its logical connection is otherwise idle,
 * so that the server can serve others. Each value is kept as pgjdbc's {@code getString} and {@code getObject}
 * gave it (arrays detached); the other getters convert from those the way pgjdbc converts the text format,
 * dates and times with a {@link TimestampUtils} of its own. Forward-only and never updatable; refuses the getters whose values
 * live on the server (Blob, Clob, SQLXML), whose columns are never copied.
 */
final class BufferedResultSet extends LabelledResultSet {
    private static final String NOT_POSITIONED = "ResultSet not positioned properly, perhaps you need to call next.";

    private final ResultSetMetaData metaData;
    private final int columns;
    private final int[] sqlTypes;
    private final List<String[]> texts;
    private final List<Object[]> values;
    private int fetchSize;
    private int fetchDirection = FETCH_FORWARD;
    private SQLWarning warnings;
    /** 0 before the first row, rows + 1 after the last. */
    private int row;
    private boolean wasNull;
    private boolean closed;
    private TimestampUtils timestamps;

    private BufferedResultSet(ResultSetMetaData metaData, int[] sqlTypes, List<String[]> texts, List<Object[]> values,
                              int fetchSize, SQLWarning warnings) {
        this.metaData = metaData;
        this.columns = sqlTypes.length;
        this.sqlTypes = sqlTypes;
        this.texts = texts;
        this.values = values;
        this.fetchSize = fetchSize;
        this.warnings = warnings;
    }

    /**
     * Whether pgjdbc's unread result can be copied: forward-only, not updatable, and no column whose value would
     * still read the server (large objects, XML, refcursors, composite or Java objects).
     */
    static boolean copyable(ResultSet rs) throws SQLException {
        if (rs.getConcurrency() != CONCUR_READ_ONLY || rs.getType() != TYPE_FORWARD_ONLY) {
            return false;
        }
        ResultSetMetaData md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            switch (md.getColumnType(i)) {
                case Types.BLOB, Types.CLOB, Types.NCLOB, Types.REF, Types.REF_CURSOR, Types.STRUCT,
                        Types.JAVA_OBJECT, Types.SQLXML, Types.DATALINK:
                    return false;
                default:
                    if ("refcursor".equals(md.getColumnTypeName(i))) {
                        return false;
                    }
            }
        }
        return true;
    }

    /**
     * Reads every row of pgjdbc's result set, positioned before its first row, into a copy; {@code md} is its
     * metadata, detached, and {@code scope} the loan it is read in, to which its arrays stay bound.
     */
    static BufferedResultSet copy(ResultSet rs, ResultSetMetaData md, LeaseScope scope) throws SQLException {
        int n = md.getColumnCount();
        int[] sqlTypes = new int[n];
        for (int i = 0; i < n; i++) {
            sqlTypes[i] = md.getColumnType(i + 1);
        }
        List<String[]> texts = new ArrayList<>();
        List<Object[]> values = new ArrayList<>();
        while (rs.next()) {
            String[] t = new String[n];
            Object[] v = new Object[n];
            for (int i = 0; i < n; i++) {
                Object value = rs.getObject(i + 1);
                v[i] = value instanceof Array ? new DetachedArray((Array) value, scope) : value;
                t[i] = rs.getString(i + 1);
            }
            texts.add(t);
            values.add(v);
        }
        return new BufferedResultSet(md, sqlTypes, texts, values,
                rs.getFetchSize(), rs.getWarnings());
    }

    // ---------------------------------------------------------------- cells

    /** The 0-based index of a column of the current row, checking that there is one. */
    private int cell(int columnIndex) throws SQLException {
        checkOpen();
        if (row < 1 || row > texts.size()) {
            throw new SQLException(NOT_POSITIONED, "24000");
        }
        if (columnIndex < 1 || columnIndex > columns) {
            throw new SQLException("The column index is out of range: " + columnIndex + ", number of columns: "
                    + columns + ".", "22023");
        }
        return columnIndex - 1;
    }

    private String text(int columnIndex) throws SQLException {
        int c = cell(columnIndex);
        String s = texts.get(row - 1)[c];
        wasNull = s == null;
        return s;
    }

    private Object value(int columnIndex) throws SQLException {
        int c = cell(columnIndex);
        Object v = values.get(row - 1)[c];
        wasNull = v == null;
        return v;
    }

    private void checkOpen() throws SQLException {
        if (closed) {
            throw new SQLException("This ResultSet is closed.", "55000");
        }
    }

    private static SQLException badValue(String type, String s) {
        return new SQLException("Bad value for type " + type + " : " + s, "22003");
    }

    /** What pgjdbc answers for the getters it does not implement, whatever the column: so does its copy. */
    private static SQLException notImplemented(String method) {
        return new SQLFeatureNotSupportedException("Method " + method + " is not yet implemented.", "0A000");
    }

    private static SQLException notAvailable(String what) {
        return new SQLFeatureNotSupportedException(what + " is not available on a result set the pool buffered"
                + " after it was left unread", "0A000");
    }

    private TimestampUtils timestamps() {
        if (timestamps == null) {
            timestamps = new TimestampUtils(false, TimeZone::getDefault);
        }
        return timestamps;
    }

    private long whole(int columnIndex, String typeName, long min, long max) throws SQLException {
        String s = text(columnIndex);
        if (s == null) {
            return 0;
        }
        String t = s.trim();
        long v;
        try {
            v = Long.parseLong(t);
        } catch (NumberFormatException e) {
            try {
                BigDecimal d = new BigDecimal(t);
                if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
                    throw badValue(typeName, s);
                }
                v = d.longValue();
            } catch (NumberFormatException notNumeric) {
                throw badValue(typeName, s);
            }
        }
        if (v < min || v > max) {
            throw badValue(typeName, s);
        }
        return v;
    }

    private static boolean is(int sqlType, int... any) {
        for (int t : any) {
            if (sqlType == t) {
                return true;
            }
        }
        return false;
    }

    private boolean isTimestamp(int columnIndex) {
        int t = sqlTypes[columnIndex - 1];
        return t == Types.TIMESTAMP || t == Types.TIMESTAMP_WITH_TIMEZONE;
    }

    // ---------------------------------------------------------------- getters by index

    @Override
    public boolean wasNull() throws SQLException {
        checkOpen();
        return wasNull;
    }

    @Override
    public String getString(int columnIndex) throws SQLException {
        return text(columnIndex);
    }

    @Override
    public String getNString(int columnIndex) throws SQLException {
        throw notImplemented("getNString(int)");
    }

    @Override
    public boolean getBoolean(int columnIndex) throws SQLException {
        Object v = value(columnIndex);
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        String s = texts.get(row - 1)[columnIndex - 1].trim();
        switch (s.toLowerCase(Locale.ROOT)) {
            case "1", "true", "t", "yes", "y", "on":
                return true;
            case "0", "false", "f", "no", "n", "off":
                return false;
            default:
                try {
                    double d = Double.parseDouble(s);
                    if (d == 1) {
                        return true;
                    }
                    if (d == 0) {
                        return false;
                    }
                } catch (NumberFormatException e) {
                    // refused below
                }
                throw new SQLException("Cannot cast to boolean: \"" + s + "\"", "42846");
        }
    }

    @Override
    public byte getByte(int columnIndex) throws SQLException {
        String s = text(columnIndex);
        if (s != null && s.trim().isEmpty()) {
            // pgjdbc reads an empty text as 0 here, unlike in the other whole-number getters.
            return 0;
        }
        return (byte) whole(columnIndex, "byte", Byte.MIN_VALUE, Byte.MAX_VALUE);
    }

    @Override
    public short getShort(int columnIndex) throws SQLException {
        return (short) whole(columnIndex, "short", Short.MIN_VALUE, Short.MAX_VALUE);
    }

    @Override
    public int getInt(int columnIndex) throws SQLException {
        return (int) whole(columnIndex, "int", Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    @Override
    public long getLong(int columnIndex) throws SQLException {
        return whole(columnIndex, "long", Long.MIN_VALUE, Long.MAX_VALUE);
    }

    @Override
    public float getFloat(int columnIndex) throws SQLException {
        return (float) fractional(columnIndex, "float");
    }

    @Override
    public double getDouble(int columnIndex) throws SQLException {
        return fractional(columnIndex, "double");
    }

    private double fractional(int columnIndex, String typeName) throws SQLException {
        String s = text(columnIndex);
        if (s == null) {
            return 0;
        }
        try {
            return Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw badValue(typeName, s);
        }
    }

    @Override
    public BigDecimal getBigDecimal(int columnIndex) throws SQLException {
        Object v = value(columnIndex);
        if (v == null || v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        String s = texts.get(row - 1)[columnIndex - 1];
        try {
            return new BigDecimal(s.trim());
        } catch (NumberFormatException e) {
            throw badValue("BigDecimal", s);
        }
    }

    @Override
    @Deprecated
    public BigDecimal getBigDecimal(int columnIndex, int scale) throws SQLException {
        BigDecimal d = getBigDecimal(columnIndex);
        return d == null ? null : d.setScale(scale, RoundingMode.HALF_UP);
    }

    @Override
    public byte[] getBytes(int columnIndex) throws SQLException {
        Object v = value(columnIndex);
        if (v == null) {
            return null;
        }
        if (v instanceof byte[]) {
            return ((byte[]) v).clone();
        }
        return texts.get(row - 1)[columnIndex - 1].getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Date getDate(int columnIndex) throws SQLException {
        return getDate(columnIndex, null);
    }

    @Override
    public Date getDate(int columnIndex, Calendar cal) throws SQLException {
        String s = text(columnIndex);
        if (s == null) {
            return null;
        }
        if (isTimestamp(columnIndex)) {
            TimeZone tz = cal == null ? TimeZone.getDefault() : cal.getTimeZone();
            return timestamps().convertToDate(timestamps().toTimestamp(cal, s).getTime(), tz);
        }
        return timestamps().toDate(cal, s);
    }

    @Override
    public Time getTime(int columnIndex) throws SQLException {
        return getTime(columnIndex, null);
    }

    @Override
    public Time getTime(int columnIndex, Calendar cal) throws SQLException {
        String s = text(columnIndex);
        if (s == null) {
            return null;
        }
        if (isTimestamp(columnIndex)) {
            TimeZone tz = cal == null ? TimeZone.getDefault() : cal.getTimeZone();
            return timestamps().convertToTime(timestamps().toTimestamp(cal, s).getTime(), tz);
        }
        return timestamps().toTime(cal, s);
    }

    @Override
    public Timestamp getTimestamp(int columnIndex) throws SQLException {
        return getTimestamp(columnIndex, null);
    }

    @Override
    public Timestamp getTimestamp(int columnIndex, Calendar cal) throws SQLException {
        String s = text(columnIndex);
        return s == null ? null : timestamps().toTimestamp(cal, s);
    }

    @Override
    public Object getObject(int columnIndex) throws SQLException {
        Object v = value(columnIndex);
        if (v instanceof Timestamp) {
            return ((Timestamp) v).clone();
        }
        if (v instanceof java.util.Date) {
            return ((java.util.Date) v).clone();
        }
        return v instanceof byte[] ? ((byte[]) v).clone() : v;
    }

    @Override
    public Object getObject(int columnIndex, Map<String, Class<?>> map) throws SQLException {
        if (map != null && !map.isEmpty()) {
            throw notAvailable("getObject with a type map");
        }
        return getObject(columnIndex);
    }

    @Override
    public <T> T getObject(int columnIndex, Class<T> type) throws SQLException {
        if (type == null) {
            throw new SQLException("Invalid class null", "22023");
        }
        Object v = value(columnIndex);
        int t = sqlTypes[columnIndex - 1];
        String name = metaData.getColumnTypeName(columnIndex);
        boolean javaTime = type.getPackageName().equals("java.time");
        if (v == null && javaTime) {
            return null;
        }
        if (!converts(type, t, name, v)) {
            // As pgjdbc: the column's type decides, whether or not this value is NULL (but for java.time types).
            if (javaTime) {
                throw new SQLException("Cannot convert the column of type " + name + " to requested type "
                        + type.getName() + ".", "42821");
            }
            throw new SQLException("conversion to " + type + " from " + name + " not supported", "22023");
        }
        if (v == null) {
            return null;
        }
        String s = texts.get(row - 1)[columnIndex - 1];
        Object converted;
        if (type == String.class) {
            converted = s;
        } else if (type == Integer.class) {
            converted = getInt(columnIndex);
        } else if (type == Short.class) {
            converted = getShort(columnIndex);
        } else if (type == Long.class) {
            converted = getLong(columnIndex);
        } else if (type == Float.class) {
            converted = getFloat(columnIndex);
        } else if (type == Double.class) {
            converted = getDouble(columnIndex);
        } else if (type == BigDecimal.class) {
            converted = getBigDecimal(columnIndex);
        } else if (type == Boolean.class) {
            converted = getBoolean(columnIndex);
        } else if (type == byte[].class) {
            converted = getBytes(columnIndex);
        } else if (type == Date.class) {
            converted = getDate(columnIndex);
        } else if (type == Time.class) {
            converted = getTime(columnIndex);
        } else if (type == Timestamp.class) {
            converted = getTimestamp(columnIndex);
        } else if (type == LocalDate.class) {
            converted = timestamps().toLocalDateTime(s).toLocalDate();
        } else if (type == LocalDateTime.class) {
            converted = timestamps().toLocalDateTime(s);
        } else if (type == LocalTime.class) {
            converted = timestamps().toLocalTime(s);
        } else if (type == OffsetDateTime.class) {
            converted = timestamps().toOffsetDateTime(s);
        } else if (type == OffsetTime.class) {
            converted = timestamps().toOffsetTime(s);
        } else {
            converted = getObject(columnIndex);
        }
        return type.cast(converted);
    }

    /**
     * Whether pgjdbc's getObject(column, type) converts a column of this SQL type (and, for the java.time types,
     * which pgjdbc tells apart by the PostgreSQL type, of this type name) to {@code type}.
     */
    private static boolean converts(Class<?> type, int t, String typeName, Object value) {
        if (type == String.class) {
            return is(t, Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR);
        } else if (type == Integer.class) {
            return is(t, Types.SMALLINT, Types.INTEGER);
        } else if (type == Short.class) {
            return is(t, Types.SMALLINT);
        } else if (type == Long.class) {
            return is(t, Types.BIGINT);
        } else if (type == Float.class) {
            return is(t, Types.REAL);
        } else if (type == Double.class) {
            return is(t, Types.DOUBLE, Types.FLOAT);
        } else if (type == BigDecimal.class) {
            return is(t, Types.NUMERIC, Types.DECIMAL);
        } else if (type == Boolean.class) {
            return is(t, Types.BOOLEAN, Types.BIT);
        } else if (type == byte[].class) {
            return is(t, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY);
        } else if (type == Date.class) {
            return is(t, Types.DATE);
        } else if (type == Time.class) {
            return is(t, Types.TIME);
        } else if (type == Timestamp.class || type == OffsetDateTime.class) {
            return is(t, Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE);
        } else if (type == LocalDate.class) {
            return typeName.equals("date") || typeName.equals("timestamp");
        } else if (type == LocalDateTime.class) {
            return typeName.equals("timestamp");
        } else if (type == LocalTime.class) {
            return typeName.equals("time");
        } else if (type == OffsetTime.class) {
            return typeName.equals("timetz");
        }
        return value == null || type.isInstance(value);
    }

    @Override
    public Array getArray(int columnIndex) throws SQLException {
        Object v = value(columnIndex);
        if (v == null || v instanceof Array) {
            return (Array) v;
        }
        throw new SQLException("conversion to java.sql.Array from " + metaData.getColumnTypeName(columnIndex)
                + " not supported", "22023");
    }

    @Override
    public InputStream getAsciiStream(int columnIndex) throws SQLException {
        String s = text(columnIndex);
        return s == null ? null : new ByteArrayInputStream(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    @Deprecated
    public InputStream getUnicodeStream(int columnIndex) throws SQLException {
        String s = text(columnIndex);
        return s == null ? null : new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public InputStream getBinaryStream(int columnIndex) throws SQLException {
        byte[] b = getBytes(columnIndex);
        return b == null ? null : new ByteArrayInputStream(b);
    }

    @Override
    public Reader getCharacterStream(int columnIndex) throws SQLException {
        String s = text(columnIndex);
        return s == null ? null : new StringReader(s);
    }

    @Override
    public Reader getNCharacterStream(int columnIndex) throws SQLException {
        throw notImplemented("getNCharacterStream(int)");
    }

    @Override
    public Ref getRef(int columnIndex) throws SQLException {
        throw notAvailable("getRef");
    }

    @Override
    public Blob getBlob(int columnIndex) throws SQLException {
        throw notAvailable("getBlob");
    }

    @Override
    public Clob getClob(int columnIndex) throws SQLException {
        throw notAvailable("getClob");
    }

    @Override
    public NClob getNClob(int columnIndex) throws SQLException {
        throw notAvailable("getNClob");
    }

    @Override
    public SQLXML getSQLXML(int columnIndex) throws SQLException {
        throw notAvailable("getSQLXML");
    }

    @Override
    public RowId getRowId(int columnIndex) throws SQLException {
        throw notAvailable("getRowId");
    }

    @Override
    public URL getURL(int columnIndex) throws SQLException {
        throw notAvailable("getURL");
    }

    // ---------------------------------------------------------------- columns by label

    @Override
    public int findColumn(String columnLabel) throws SQLException {
        checkOpen();
        for (int i = 1; i <= columns; i++) {
            if (metaData.getColumnLabel(i).equalsIgnoreCase(columnLabel)) {
                return i;
            }
        }
        throw new SQLException("The column name " + columnLabel + " was not found in this ResultSet.", "42703");
    }

    // ---------------------------------------------------------------- position

    @Override
    public boolean next() throws SQLException {
        checkOpen();
        if (row <= texts.size()) {
            row++;
        }
        return row <= texts.size();
    }

    /** Only forward-only results are copied: another position could have moved before the copy. */
    private SQLException forwardOnly() throws SQLException {
        checkOpen();
        return new SQLException("Operation requires a scrollable ResultSet, but this ResultSet is FORWARD_ONLY.",
                "24000");
    }

    @Override
    public boolean previous() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean absolute(int position) throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean relative(int rows) throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean first() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean last() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public void beforeFirst() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public void afterLast() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean isBeforeFirst() throws SQLException {
        checkOpen();
        return row == 0 && !texts.isEmpty();
    }

    @Override
    public boolean isAfterLast() throws SQLException {
        checkOpen();
        return row > texts.size() && !texts.isEmpty();
    }

    @Override
    public boolean isFirst() throws SQLException {
        checkOpen();
        return row == 1 && !texts.isEmpty();
    }

    @Override
    public boolean isLast() throws SQLException {
        checkOpen();
        return row == texts.size() && !texts.isEmpty();
    }

    @Override
    public int getRow() throws SQLException {
        checkOpen();
        return row >= 1 && row <= texts.size() ? row : 0;
    }

    // ---------------------------------------------------------------- the rest

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        checkOpen();
        return metaData;
    }

    /** Answered by the logical result set that wraps this one. */
    @Override
    public Statement getStatement() {
        return null;
    }

    @Override
    public String getCursorName() throws SQLException {
        checkOpen();
        return null;
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        return warnings;
    }

    @Override
    public void clearWarnings() throws SQLException {
        checkOpen();
        warnings = null;
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        checkOpen();
        if (direction != FETCH_FORWARD && direction != FETCH_REVERSE && direction != FETCH_UNKNOWN) {
            throw new SQLException("Invalid fetch direction constant: " + direction + ".", "22023");
        }
        if (direction != FETCH_FORWARD) {
            throw forwardOnly();
        }
        fetchDirection = direction;
    }

    @Override
    public int getFetchDirection() throws SQLException {
        checkOpen();
        return fetchDirection;
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
    public int getFetchSize() throws SQLException {
        checkOpen();
        return fetchSize;
    }

    @Override
    public int getType() throws SQLException {
        checkOpen();
        return TYPE_FORWARD_ONLY;
    }

    @Override
    public int getConcurrency() throws SQLException {
        checkOpen();
        return CONCUR_READ_ONLY;
    }

    @Override
    public int getHoldability() throws SQLException {
        checkOpen();
        // As pgjdbc's result sets, which do not implement it either.
        throw new SQLFeatureNotSupportedException("Method getHoldability() is not yet implemented.", "0A000");
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("Cannot unwrap to " + iface.getName(), "22023");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
