package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.logical;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.JDBCType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.TimeZone;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A result the pool buffered after it was left unread answers every getter as pgjdbc answers it on a direct
 * connection: the same value, or an error of the same SQLSTATE, column by column over the common types.
 */
@PostgresTest
class BufferedResultAsPgjdbcTest {
    private static final String ROW = "SELECT 42::int2, 2147483647::int4, 9007199254740993::int8, 1.25::numeric(10,3),"
            + " 'NaN'::float8, 2.5::float4, true, 'text ü', ''::text, NULL::int4, DATE '2024-02-29',"
            + " TIME '13:14:15.123456', TIMESTAMP '2024-02-29 13:14:15.5', TIMESTAMPTZ '2024-02-29 13:14:15+05',"
            + " decode('00ff10', 'hex'), '7e0c9d2a-0f5b-4b7e-9c1a-2b3c4d5e6f70'::uuid, '{\"a\": 1}'::jsonb,"
            + " ARRAY['x', NULL, 'z'], INTERVAL '1 day 2 hours', '12.5'::text, ' 7 '::text, 'yes'::text";

    private final TestDatabase db;
    private final TestPools pools;

    BufferedResultAsPgjdbcTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void everyGetterOfABufferedResultAnswersAsPgjdbcDoes() throws SQLException {
        List<String> direct;
        try (Connection c = db.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(ROW)) {
            direct = answers(rs);
        }
        JdbcPool pool = pools.open("buffered", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .poolMode(PoolMode.TRANSACTION));
        try (Connection a = pool.getConnection(); Statement st = a.createStatement()) {
            ResultSet rs = st.executeQuery(ROW);
            Await.until(() -> !logical(a).holdsServerConnection(), Duration.ofSeconds(10),
                    "the unread result buffered and the server given back");
            List<String> buffered = answers(rs);
            for (int i = 0; i < direct.size(); i++) {
                assertEquals(direct.get(i), buffered.get(i));
            }
            assertEquals(direct.size(), buffered.size());
        }
    }

    @Test
    void aBufferedResultIsForwardOnlyAndReadOnlyAsPgjdbcsDefaultOne() throws SQLException {
        JdbcPool pool = pools.open("buffered", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .poolMode(PoolMode.TRANSACTION));
        try (Connection a = pool.getConnection(); Statement st = a.createStatement()) {
            ResultSet rs = st.executeQuery("SELECT 1 AS one");
            Await.until(() -> !logical(a).holdsServerConnection(), Duration.ofSeconds(10), "buffered");
            assertEquals(ResultSet.TYPE_FORWARD_ONLY, rs.getType());
            assertEquals(ResultSet.CONCUR_READ_ONLY, rs.getConcurrency());
            assertEquals("24000", assertThrowsState(() -> rs.getInt(1)));
            assertEquals(1, rs.findColumn("ONE"));
            assertArrayEquals(new boolean[] {true, false}, new boolean[] {rs.next(), rs.next()});
            assertEquals("24000", assertThrowsState(() -> {
                rs.updateInt(1, 2);
                return null;
            }));
            assertEquals("24000", assertThrowsState(() -> {
                rs.updateObject(1, 2, JDBCType.INTEGER);
                return null;
            }), "refused as every other updater, with an SQLSTATE");
            assertEquals(st, rs.getStatement());
            rs.close();
            assertEquals("55000", assertThrowsState(rs::next));
            assertFalse(logical(a).holdsServerConnection());
        }
    }

    private interface Call {
        Object run() throws SQLException;
    }

    private static String assertThrowsState(Call call) {
        try {
            call.run();
            return "no error";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    /** Every getter on every column of the one row, each answer as text: its value, or its SQLSTATE. */
    private static List<String> answers(ResultSet rs) throws SQLException {
        List<String> out = new ArrayList<>();
        out.add("first " + rs.next());
        Calendar utc = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
        int n = rs.getMetaData().getColumnCount();
        for (int i = 1; i <= n; i++) {
            int c = i;
            String col = "column " + c + " (" + rs.getMetaData().getColumnTypeName(c) + ") ";
            List<Call> calls = List.of(() -> rs.getString(c), () -> rs.getObject(c), () -> rs.getInt(c),
                    () -> rs.getLong(c), () -> rs.getShort(c), () -> rs.getByte(c), () -> rs.getDouble(c),
                    () -> rs.getFloat(c), () -> rs.getBigDecimal(c), () -> rs.getBoolean(c), () -> rs.getBytes(c),
                    () -> rs.getDate(c), () -> rs.getTime(c), () -> rs.getTimestamp(c),
                    () -> rs.getDate(c, utc), () -> rs.getTime(c, utc), () -> rs.getTimestamp(c, utc),
                    () -> rs.getObject(c, String.class), () -> rs.getObject(c, Integer.class),
                    () -> rs.getObject(c, Long.class), () -> rs.getObject(c, LocalDate.class),
                    () -> rs.getObject(c, LocalDateTime.class), () -> rs.getObject(c, LocalTime.class),
                    () -> rs.getObject(c, OffsetDateTime.class), () -> rs.getObject(c, OffsetTime.class),
                    () -> rs.getObject(c, Short.class), () -> rs.getObject(c, Double.class),
                    () -> rs.getObject(c, Float.class), () -> rs.getObject(c, BigDecimal.class),
                    () -> rs.getObject(c, Boolean.class), () -> rs.getObject(c, byte[].class),
                    () -> rs.getObject(c, java.sql.Timestamp.class), () -> rs.getObject(c, java.sql.Date.class),
                    () -> rs.getObject(c, java.sql.Time.class), () -> rs.getNString(c),
                    () -> rs.getNCharacterStream(c), () -> rs.getUnicodeStream(c));
            // pgjdbc answers these two with runtime errors on columns of other types, so they are asked only here.
            String typeName = rs.getMetaData().getColumnTypeName(c);
            if (typeName.equals("uuid")) {
                calls = new ArrayList<>(calls);
                calls.add(() -> rs.getObject(c, UUID.class));
            } else if (typeName.startsWith("_")) {
                calls = new ArrayList<>(calls);
                calls.add(() -> rs.getArray(c).getArray());
            }
            for (int k = 0; k < calls.size(); k++) {
                String answer;
                try {
                    Object v = calls.get(k).run();
                    answer = render(v) + " null=" + rs.wasNull();
                } catch (SQLException e) {
                    answer = "error " + e.getSQLState();
                } catch (RuntimeException e) {
                    answer = "error " + e.getClass().getSimpleName();
                }
                out.add(col + "getter " + k + ": " + answer);
            }
        }
        out.add("then " + rs.next());
        return out;
    }

    private static String render(Object v) throws SQLException {
        try {
            if (v instanceof InputStream in) {
                return "InputStream:" + java.util.Arrays.toString(in.readAllBytes());
            }
            if (v instanceof Reader r) {
                StringBuilder text = new StringBuilder();
                for (int ch = r.read(); ch >= 0; ch = r.read()) {
                    text.append((char) ch);
                }
                return "Reader:" + text;
            }
        } catch (IOException e) {
            throw new SQLException(e);
        }
        if (v instanceof byte[] b) {
            return java.util.Arrays.toString(b);
        }
        if (v instanceof Object[] a) {
            return java.util.Arrays.deepToString(a);
        }
        if (v instanceof java.sql.Array a) {
            return "Array:" + a;
        }
        return v == null ? "null" : v.getClass().getSimpleName() + ":" + v;
    }
}
