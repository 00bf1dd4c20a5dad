package io.pgmux.jdbc.logical;

import java.math.BigDecimal;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Arrays;

/**
 * The parameters set on a prepared statement, bound on whichever pgjdbc statement executes it. The
 * common forms are kept as values in typed slots, so setting them allocates nothing once the slots exist
 * (a statement run in a loop with new values each time); the rare ones (streams, calendars, SQLType, type
 * names) keep a {@link ParamSetter}. Bound in index order, as they would be replayed by hand.
 */
final class Parameters {
    private static final byte UNSET = 0;
    private static final byte NULL = 1;
    private static final byte BOOLEAN = 2;
    private static final byte BYTE = 3;
    private static final byte SHORT = 4;
    private static final byte INT = 5;
    private static final byte LONG = 6;
    private static final byte FLOAT = 7;
    private static final byte DOUBLE = 8;
    private static final byte BIG_DECIMAL = 9;
    private static final byte STRING = 10;
    private static final byte BYTES = 11;
    private static final byte DATE = 12;
    private static final byte TIME = 13;
    private static final byte TIMESTAMP = 14;
    private static final byte OBJECT = 15;
    /** setObject with a target SQL type in the number slot. */
    private static final byte OBJECT_TYPED = 16;
    /** setObject with a target SQL type (high half) and a scale or length (low half) in the number slot. */
    private static final byte OBJECT_SCALED = 17;
    private static final byte SETTER = 18;

    private static final int INITIAL_SLOTS = 4;

    /** What each slot holds, by 0-based index; UNSET for a parameter not set (or cleared). */
    private byte[] kinds;
    /** Primitive values (floating point as raw bits) and SQL types. */
    private long[] numbers;
    /** Object values and setters. */
    private Object[] objects;

    Parameters() {
        this(new byte[INITIAL_SLOTS], new long[INITIAL_SLOTS], new Object[INITIAL_SLOTS]);
    }

    private Parameters(byte[] kinds, long[] numbers, Object[] objects) {
        this.kinds = kinds;
        this.numbers = numbers;
        this.objects = objects;
    }

    /** The values as set now, for a batch row: later sets do not change it. */
    Parameters copy() {
        return new Parameters(kinds.clone(), numbers.clone(), objects.clone());
    }

    void clear() {
        Arrays.fill(kinds, UNSET);
        Arrays.fill(objects, null);
    }

    void setNull(int index, int sqlType) {
        put(index, NULL, sqlType, null);
    }

    void setBoolean(int index, boolean x) {
        put(index, BOOLEAN, x ? 1 : 0, null);
    }

    void setByte(int index, byte x) {
        put(index, BYTE, x, null);
    }

    void setShort(int index, short x) {
        put(index, SHORT, x, null);
    }

    void setInt(int index, int x) {
        put(index, INT, x, null);
    }

    void setLong(int index, long x) {
        put(index, LONG, x, null);
    }

    void setFloat(int index, float x) {
        put(index, FLOAT, Float.floatToRawIntBits(x), null);
    }

    void setDouble(int index, double x) {
        put(index, DOUBLE, Double.doubleToRawLongBits(x), null);
    }

    void setBigDecimal(int index, BigDecimal x) {
        put(index, BIG_DECIMAL, 0, x);
    }

    void setString(int index, String x) {
        put(index, STRING, 0, x);
    }

    void setBytes(int index, byte[] x) {
        put(index, BYTES, 0, x);
    }

    void setDate(int index, Date x) {
        put(index, DATE, 0, x);
    }

    void setTime(int index, Time x) {
        put(index, TIME, 0, x);
    }

    void setTimestamp(int index, Timestamp x) {
        put(index, TIMESTAMP, 0, x);
    }

    void setObject(int index, Object x) {
        put(index, OBJECT, 0, x);
    }

    void setObject(int index, Object x, int targetSqlType) {
        put(index, OBJECT_TYPED, targetSqlType, x);
    }

    void setObject(int index, Object x, int targetSqlType, int scaleOrLength) {
        put(index, OBJECT_SCALED, ((long) targetSqlType << 32) | (scaleOrLength & 0xFFFF_FFFFL), x);
    }

    /** Any other form: the setter is replayed as recorded. */
    void set(int index, ParamSetter setter) {
        put(index, SETTER, 0, setter);
    }

    private void put(int index, byte kind, long number, Object object) {
        int i = index - 1;
        if (i >= kinds.length) {
            int size = Math.max(index, kinds.length * 2);
            kinds = Arrays.copyOf(kinds, size);
            numbers = Arrays.copyOf(numbers, size);
            objects = Arrays.copyOf(objects, size);
        }
        kinds[i] = kind;
        numbers[i] = number;
        objects[i] = object;
    }

    /** Sets every parameter that is set here on {@code ps}, in index order. */
    void bind(PreparedStatement ps) throws SQLException {
        byte[] k = kinds;
        for (int i = 0; i < k.length; i++) {
            if (k[i] != UNSET) {
                bindOne(ps, i);
            }
        }
    }

    private void bindOne(PreparedStatement ps, int i) throws SQLException {
        int index = i + 1;
        long n = numbers[i];
        Object o = objects[i];
        switch (kinds[i]) {
            case NULL:
                ps.setNull(index, (int) n);
                break;
            case BOOLEAN:
                ps.setBoolean(index, n != 0);
                break;
            case BYTE:
                ps.setByte(index, (byte) n);
                break;
            case SHORT:
                ps.setShort(index, (short) n);
                break;
            case INT:
                ps.setInt(index, (int) n);
                break;
            case LONG:
                ps.setLong(index, n);
                break;
            case FLOAT:
                ps.setFloat(index, Float.intBitsToFloat((int) n));
                break;
            case DOUBLE:
                ps.setDouble(index, Double.longBitsToDouble(n));
                break;
            case BIG_DECIMAL:
                ps.setBigDecimal(index, (BigDecimal) o);
                break;
            case STRING:
                ps.setString(index, (String) o);
                break;
            case BYTES:
                ps.setBytes(index, (byte[]) o);
                break;
            case DATE:
                ps.setDate(index, (Date) o);
                break;
            case TIME:
                ps.setTime(index, (Time) o);
                break;
            case TIMESTAMP:
                ps.setTimestamp(index, (Timestamp) o);
                break;
            case OBJECT:
                ps.setObject(index, o);
                break;
            case OBJECT_TYPED:
                ps.setObject(index, o, (int) n);
                break;
            case OBJECT_SCALED:
                ps.setObject(index, o, (int) (n >>> 32), (int) n);
                break;
            default:
                ((ParamSetter) o).apply(ps);
                break;
        }
    }
}
