package io.pgmux.jdbc.logical;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one JDBC call did, as text two drivers can be compared by: the value it returned, or the exception
 * it threw. The rules that make the two sides comparable:
 * <ul>
 *   <li>an SQLException is its SQLSTATE (its message and subclass are not compared), any other exception its
 *       class;</li>
 *   <li>a JDBC object (a connection, statement, metadata) or an output stream is an identity neither side
 *       can share with the other, so it compares by the most specific interface or class it is of, of those
 *       listed in {@link #IDENTITIES};</li>
 *   <li>a result set, its metadata, an array, a LOB, a stream or a warning compares by its content, read
 *       whole;</li>
 *   <li>any other value by its class and text.</li>
 * </ul>
 */
final class Outcome {
    /** Most specific first: an object is described by the first of these it implements. */
    private static final List<Class<?>> IDENTITIES = List.of(Connection.class, CallableStatement.class,
            PreparedStatement.class, Statement.class, DatabaseMetaData.class, OutputStream.class, Writer.class);

    private Outcome() {
    }

    /** A call that may throw, described by what it returned or threw; an AssertionError is the test's own. */
    interface Call {
        Object run() throws Throwable;
    }

    static String of(Call call) {
        try {
            return describe(call.run());
        } catch (AssertionError e) {
            throw e;
        } catch (Throwable t) {
            return thrown(t);
        }
    }

    static String thrown(Throwable t) {
        Throwable cause = t instanceof InvocationTargetException ? t.getCause() : t;
        if (cause instanceof SQLException e) {
            return "threw SQLException " + e.getSQLState();
        }
        return "threw " + cause.getClass().getName();
    }

    static String describe(Object v) throws SQLException, IOException {
        if (v == null) {
            return "null";
        }
        if (v instanceof ResultSet rs) {
            return "ResultSet " + rows(rs);
        }
        if (v instanceof ResultSetMetaData md) {
            return "ResultSetMetaData " + columns(md);
        }
        if (v instanceof ParameterMetaData md) {
            return "ParameterMetaData " + parameters(md);
        }
        if (v instanceof Array a) {
            return "Array " + a.getBaseTypeName() + " " + a.getBaseType() + " " + describe(a.getArray());
        }
        if (v instanceof Blob b) {
            return "Blob " + Arrays.toString(b.getBytes(1, (int) b.length()));
        }
        if (v instanceof Clob c) {
            return "Clob " + c.getSubString(1, (int) c.length());
        }
        if (v instanceof SQLXML x) {
            return "SQLXML " + x.getString();
        }
        if (v instanceof SQLWarning w) {
            StringBuilder s = new StringBuilder("SQLWarning");
            for (SQLWarning each = w; each != null; each = each.getNextWarning()) {
                s.append(' ').append(each.getSQLState()).append(' ').append(each.getMessage());
            }
            return s.toString();
        }
        if (v instanceof InputStream in) {
            return "InputStream " + Arrays.toString(in.readAllBytes());
        }
        if (v instanceof Reader r) {
            StringBuilder s = new StringBuilder("Reader ");
            for (int c = r.read(); c >= 0; c = r.read()) {
                s.append((char) c);
            }
            return s.toString();
        }
        for (Class<?> identity : IDENTITIES) {
            if (identity.isInstance(v)) {
                return "a " + identity.getSimpleName();
            }
        }
        if (v instanceof byte[] bytes) {
            return "byte[] " + Arrays.toString(bytes);
        }
        if (v.getClass().isArray() && v.getClass().getComponentType().isPrimitive()) {
            List<Object> each = new ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) {
                each.add(java.lang.reflect.Array.get(v, i));
            }
            return v.getClass().getComponentType() + "[] " + each;
        }
        if (v instanceof Object[] elements) {
            List<String> each = new ArrayList<>();
            for (Object e : elements) {
                each.add(describe(e));
            }
            return v.getClass().getComponentType().getSimpleName() + "[] " + each;
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, String> sorted = new TreeMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sorted.put(String.valueOf(e.getKey()), describe(e.getValue()));
            }
            return "Map " + sorted;
        }
        if (v instanceof Class<?> c) {
            return "Class " + c.getName();
        }
        return v.getClass().getName() + " " + v;
    }

    /** The labels and every row of a result set, each value as getString and getObject give it. */
    private static String rows(ResultSet rs) throws SQLException, IOException {
        StringBuilder s = new StringBuilder(columns(rs.getMetaData()));
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            s.append(" | row");
            for (int i = 1; i <= n; i++) {
                int column = i;
                s.append(' ').append(rs.getString(i)).append('/').append(of(() -> rs.getObject(column)));
            }
        }
        return s.toString();
    }

    private static String columns(ResultSetMetaData md) throws SQLException {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            s.append(md.getColumnLabel(i)).append(':').append(md.getColumnTypeName(i)).append(':')
                    .append(md.getColumnType(i)).append(':').append(md.getColumnClassName(i)).append(' ');
        }
        return "[" + s.toString().trim() + "]";
    }

    private static String parameters(ParameterMetaData md) throws SQLException {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i <= md.getParameterCount(); i++) {
            s.append(md.getParameterTypeName(i)).append(':').append(md.getParameterType(i)).append(':')
                    .append(md.getParameterMode(i)).append(' ');
        }
        return "[" + s.toString().trim() + "]";
    }
}
