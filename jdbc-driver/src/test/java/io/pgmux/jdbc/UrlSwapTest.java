package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same application code against {@code jdbc:postgresql:} and {@code jdbc:pgmux:postgresql:}: swapping
 * the URL must change nothing the application can observe.
 */
@PostgresTest
class UrlSwapTest {
    private final TestDatabase db;

    UrlSwapTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    private Connection connect(String prefix) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", db.superuser());
        props.setProperty("password", db.superuserPassword());
        String url = db.jdbcUrl().replace("jdbc:postgresql:", prefix);
        return DriverManager.getConnection(url, props);
    }

    private static String table(String prefix, String name) {
        return name + "_" + (prefix.contains("pgmux") ? "pgmux" : "direct");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql:", "jdbc:pgmux:postgresql:"})
    void ddlDmlAndQueriesBehaveTheSame(String prefix) throws SQLException {
        String t = table(prefix, "swap_items");
        try (Connection c = connect(prefix); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + t);
            st.execute("CREATE TABLE " + t + " (id serial PRIMARY KEY, name text NOT NULL, price numeric(10,2),"
                    + " tags text[], born date)");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + t
                    + " (name, price, tags, born) VALUES (?, ?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
                ins.setString(1, "apple");
                ins.setBigDecimal(2, new BigDecimal("1.25"));
                ins.setArray(3, c.createArrayOf("text", new String[] {"red", "fruit"}));
                ins.setObject(4, LocalDate.of(2026, 11, 30));
                assertEquals(1, ins.executeUpdate());
                try (ResultSet keys = ins.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    assertEquals(1, keys.getInt("id"));
                }
                ins.setString(1, "pear");
                ins.setNull(2, Types.NUMERIC);
                ins.setNull(3, Types.ARRAY);
                ins.setNull(4, Types.DATE);
                ins.addBatch();
                ins.setString(1, "plum");
                ins.setBigDecimal(2, new BigDecimal("0.50"));
                ins.addBatch();
                assertArrayEquals(new int[] {1, 1}, ins.executeBatch());
            }
            try (ResultSet rs = st.executeQuery("SELECT id, name, price, tags, born FROM " + t + " ORDER BY id")) {
                ResultSetMetaData md = rs.getMetaData();
                assertEquals(5, md.getColumnCount());
                assertEquals("name", md.getColumnLabel(2));
                assertEquals(ResultSetMetaData.columnNoNulls, md.isNullable(2));
                assertTrue(rs.next());
                assertEquals("apple", rs.getString("name"));
                assertEquals(new BigDecimal("1.25"), rs.getBigDecimal("price"));
                Array tags = rs.getArray("tags");
                assertArrayEquals(new String[] {"red", "fruit"}, (String[]) tags.getArray());
                assertEquals(LocalDate.of(2026, 11, 30), rs.getObject("born", LocalDate.class));
                assertTrue(rs.next());
                assertNull(rs.getBigDecimal("price"));
                assertTrue(rs.wasNull());
                assertTrue(rs.next());
                assertFalse(rs.next());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql:", "jdbc:pgmux:postgresql:"})
    void transactionsSavepointsAndErrorsBehaveTheSame(String prefix) throws SQLException {
        String t = table(prefix, "swap_ledger");
        try (Connection c = connect(prefix); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + t);
            st.execute("CREATE TABLE " + t + " (n int PRIMARY KEY)");
            c.setAutoCommit(false);
            st.executeUpdate("INSERT INTO " + t + " VALUES (1)");
            Savepoint sp = c.setSavepoint();
            st.executeUpdate("INSERT INTO " + t + " VALUES (2)");
            c.rollback(sp);
            SQLException duplicate = assertThrows(SQLException.class,
                    () -> st.executeUpdate("INSERT INTO " + t + " VALUES (1)"));
            assertEquals("23505", duplicate.getSQLState());
            SQLException aborted = assertThrows(SQLException.class, () -> st.executeQuery("SELECT 1"));
            assertEquals("25P02", aborted.getSQLState());
            c.rollback();
            st.executeUpdate("INSERT INTO " + t + " VALUES (3)");
            c.commit();
            c.setAutoCommit(true);
            try (ResultSet rs = st.executeQuery("SELECT array_agg(n ORDER BY n)::text FROM " + t)) {
                rs.next();
                assertEquals("{3}", rs.getString(1));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql:", "jdbc:pgmux:postgresql:"})
    void functionsMetadataAndConnectionPropertiesBehaveTheSame(String prefix) throws SQLException {
        String f = table(prefix, "swap_double");
        try (Connection c = connect(prefix); Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE FUNCTION " + f + "(x int, OUT y int) LANGUAGE sql AS 'SELECT x * 2'");
            try (CallableStatement call = c.prepareCall("{call " + f + "(?, ?)}")) {
                call.setInt(1, 21);
                call.registerOutParameter(2, Types.INTEGER);
                call.execute();
                assertEquals(42, call.getInt(2));
            }
            DatabaseMetaData md = c.getMetaData();
            assertEquals("PostgreSQL", md.getDatabaseProductName());
            try (ResultSet fns = md.getFunctions(null, "public", f)) {
                assertTrue(fns.next());
            }
            assertEquals(c, md.getConnection());
            assertEquals(Connection.TRANSACTION_READ_COMMITTED, c.getTransactionIsolation());
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            try (ResultSet rs = st.executeQuery("SHOW transaction_isolation")) {
                rs.next();
                assertEquals("serializable", rs.getString(1));
            }
            c.setSchema("pg_catalog");
            assertEquals("pg_catalog", c.getSchema());
            try (ResultSet rs = st.executeQuery("SELECT current_schema()")) {
                rs.next();
                assertEquals("pg_catalog", rs.getString(1));
            }
            assertTrue(c.isValid(1));
            c.close();
            assertTrue(c.isClosed());
            assertFalse(c.isValid(1));
            assertEquals("08003", assertThrows(SQLException.class, c::createStatement).getSQLState());
        }
    }
}
