package io.pgmux.jdbc.logical;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.Date;
import java.sql.JDBCType;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.ShardingKey;
import java.sql.Struct;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import java.util.concurrent.Executor;
import javax.sql.rowset.serial.SerialBlob;
import javax.sql.rowset.serial.SerialClob;

/**
 * The argument lists a JDBC method is called with: one value per parameter type, unless the interface's
 * fixture chooses values for that method's parameter ({@link Choice}), e.g. every column of its result set.
 * A method with several values for a parameter is called once per combination. Each value is made anew for
 * each side, from that side's connection, since streams are consumed and arrays belong to a connection.
 */
final class ArgumentValues {
    private ArgumentValues() {
    }

    /** One argument value, made on the side's connection. */
    interface Value {
        Object make(Connection c) throws SQLException;
    }

    /** A fixture's values for one parameter of a method, or null to take the type's default. */
    interface Choice {
        List<Value> values(Method m, int parameter);
    }

    static Value constant(Object v) {
        return c -> v;
    }

    static List<Value> constants(Object... vs) {
        List<Value> values = new ArrayList<>();
        for (Object v : vs) {
            values.add(constant(v));
        }
        return values;
    }

    /** Every combination of the values of each parameter; fails for a parameter type without a value. */
    static List<List<Value>> argumentLists(Class<?> iface, Method m, Choice choice) {
        List<List<Value>> lists = new ArrayList<>();
        lists.add(List.of());
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            List<Value> values = choice.values(m, i);
            if (values == null) {
                values = List.of(byType(iface, m, types[i]));
            }
            List<List<Value>> longer = new ArrayList<>();
            for (List<Value> prefix : lists) {
                for (Value v : values) {
                    List<Value> l = new ArrayList<>(prefix);
                    l.add(v);
                    longer.add(l);
                }
            }
            lists = longer;
        }
        return lists;
    }

    static Object[] make(List<Value> values, Connection c) throws SQLException {
        Object[] args = new Object[values.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = values.get(i).make(c);
        }
        return args;
    }

    private static Value byType(Class<?> iface, Method m, Class<?> type) {
        if (type == int.class) {
            return constant(1);
        }
        if (type == long.class) {
            return constant(1L);
        }
        if (type == short.class) {
            return constant((short) 1);
        }
        if (type == byte.class) {
            return constant((byte) 1);
        }
        if (type == boolean.class) {
            return constant(true);
        }
        if (type == float.class) {
            return constant(1.5f);
        }
        if (type == double.class) {
            return constant(1.5d);
        }
        if (type == String.class) {
            return constant("1");
        }
        if (type == Object.class) {
            return constant("1");
        }
        if (type == BigDecimal.class) {
            return constant(new BigDecimal("1.50"));
        }
        if (type == byte[].class) {
            return c -> new byte[] {1, 2, 3};
        }
        if (type == Date.class) {
            return constant(Date.valueOf("2024-01-02"));
        }
        if (type == Time.class) {
            return constant(Time.valueOf("03:04:05"));
        }
        if (type == Timestamp.class) {
            return constant(Timestamp.valueOf("2024-01-02 03:04:05"));
        }
        if (type == Calendar.class) {
            return c -> Calendar.getInstance(TimeZone.getTimeZone("UTC"));
        }
        if (type == InputStream.class) {
            return c -> new ByteArrayInputStream(new byte[] {1, 2, 3});
        }
        if (type == Reader.class) {
            return c -> new StringReader("abc");
        }
        if (type == URL.class) {
            return c -> {
                try {
                    return URI.create("http://localhost/").toURL();
                } catch (java.net.MalformedURLException e) {
                    throw new SQLException(e);
                }
            };
        }
        if (type == Array.class) {
            return c -> c.createArrayOf("int4", new Object[] {1, 2});
        }
        if (type == Blob.class) {
            return c -> new SerialBlob(new byte[] {1, 2, 3});
        }
        if (type == Clob.class) {
            return c -> new SerialClob("abc".toCharArray());
        }
        if (type == SQLXML.class) {
            return c -> {
                SQLXML x = c.createSQLXML();
                x.setString("<a/>");
                return x;
            };
        }
        if (type == Savepoint.class) {
            return c -> {
                c.setAutoCommit(false);
                return c.setSavepoint("surface");
            };
        }
        // pgjdbc implements none of these: null reaches its refusal as well as a value would
        if (type == NClob.class || type == Ref.class || type == RowId.class || type == Struct.class
                || type == ShardingKey.class) {
            return constant(null);
        }
        if (type == SQLType.class) {
            return constant(JDBCType.VARCHAR);
        }
        if (type == Object[].class) {
            return c -> new Object[] {1, 2};
        }
        if (type == String[].class) {
            return c -> new String[] {"id"};
        }
        if (type == int[].class) {
            return c -> new int[] {1};
        }
        if (type == Map.class) {
            return c -> new HashMap<String, Class<?>>();
        }
        if (type == Properties.class) {
            return c -> {
                Properties p = new Properties();
                p.setProperty("ApplicationName", "surface");
                return p;
            };
        }
        if (type == Executor.class) {
            return constant((Executor) Runnable::run);
        }
        if (type == Class.class) {
            // unwrap and isWrapperFor are asked for the interface under test, getObject(…, Class) for a String
            return constant(m.getDeclaringClass() == java.sql.Wrapper.class ? iface : String.class);
        }
        throw new AssertionError("no argument value for a " + type.getName() + " parameter of " + m
                + ": give ArgumentValues one, or the method's fixture a Choice");
    }
}
