package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * currval() and lastval() read the session's last nextval(), which under transaction pooling may be another
 * client's: with logical connections A and B on one server connection, A's currval after B's insert is B's
 * id. pgmux cannot fix that, so it says it: the statement gets an SQLWarning (and the pool logs it once)
 * when its transaction has called no nextval() (nor an INSERT, which may call one) on that server
 * connection. Within a transaction that did, the value is the client's own and nothing is said.
 */
@PostgresTest
class SequenceValueWarningTest {
    private static final String LOG_LINE = "currval()/lastval() in a transaction that called no nextval()";

    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;

    SequenceValueWarningTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createTable() throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS seq_items");
            st.execute("CREATE TABLE seq_items (id serial PRIMARY KEY, v text)");
        }
        pool = pools.open("sequence", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void currvalAfterAnotherClientsInsertWarnsOnTheStatement() throws SQLException {
        try (Connection a = pool.getConnection(); Connection b = pool.getConnection()) {
            execute(a, "INSERT INTO seq_items (v) VALUES ('a')");
            execute(b, "INSERT INTO seq_items (v) VALUES ('b')");
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT currval('seq_items_id_seq')")) {
                rs.next();
                assertEquals(2, rs.getInt(1), "B's id, where a direct connection gives A's own 1");
                SQLWarning w = st.getWarnings();
                assertNotNull(w, "the statement warns");
                assertTrue(w.getMessage().contains("currval()/lastval()") && w.getMessage().contains("RETURNING"),
                        w.getMessage());
            }
        }
    }

    @Test
    void lastvalOfANewClientWarnsOnTheStatement() throws SQLException {
        try (Connection direct = db.connect()) {
            SQLException e = assertThrows(SQLException.class, () -> execute(direct, "SELECT lastval()"));
            assertEquals("55000", e.getSQLState(), "directly, a new session has no lastval");
        }
        try (Connection b = pool.getConnection()) {
            execute(b, "INSERT INTO seq_items (v) VALUES ('b')");
        }
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT lastval()")) {
            rs.next();
            assertEquals(1, rs.getInt(1), "B's id, where a direct connection fails with 55000");
            assertNotNull(st.getWarnings(), "the statement warns");
        }
    }

    @Test
    void currvalAfterAnInsertInTheSameTransactionDoesNotWarn() throws SQLException {
        try (Connection a = pool.getConnection()) {
            a.setAutoCommit(false);
            execute(a, "INSERT INTO seq_items (v) VALUES ('a')");
            try (Statement st = a.createStatement(); ResultSet rs = st.executeQuery("SELECT currval('seq_items_id_seq')")) {
                rs.next();
                assertEquals(1, rs.getInt(1));
                assertNull(st.getWarnings());
            }
            a.commit();
        }
    }

    @Test
    void currvalAfterNextvalInTheSameStatementDoesNotWarn() throws SQLException {
        try (Connection a = pool.getConnection(); Statement st = a.createStatement();
             ResultSet rs = st.executeQuery("SELECT nextval('seq_items_id_seq'), currval('seq_items_id_seq')")) {
            rs.next();
            assertEquals(rs.getInt(1), rs.getInt(2));
            assertNull(st.getWarnings());
        }
    }

    @Test
    void thePoolLogsTheWarningOnce() throws SQLException {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (Connection a = pool.getConnection()) {
            execute(a, "INSERT INTO seq_items (v) VALUES ('a')");
            execute(a, "SELECT currval('seq_items_id_seq')");
            execute(a, "SELECT lastval()");
        } finally {
            System.setErr(stderr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertEquals(1, log.split(java.util.regex.Pattern.quote(LOG_LINE), -1).length - 1, log);
    }
}
