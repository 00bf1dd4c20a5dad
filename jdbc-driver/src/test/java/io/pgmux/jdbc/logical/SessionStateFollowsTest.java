package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.hold;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JDBC session state of a logical connection is its own: it is applied to whichever server connection
 * the logical connection gets next, and never seen by another logical connection that gets one of those
 * server connections afterwards.
 *
 * <p>Each test runs one scenario on a pool of two server connections, P and Q. The subject changes the
 * property while it holds Q; it then sees the change on Q, and again on P once Q is taken by someone else;
 * another logical connection then sees its own, unchanged value on P and on Q.
 */
@PostgresTest
class SessionStateFollowsTest {
    private static final String APP = "state-follows";

    private final TestDatabase db;
    private final TestPools pools;

    SessionStateFollowsTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void createProbeObjects() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS state_probe (id int)");
            st.execute("CREATE SCHEMA IF NOT EXISTS follow_schema");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    /** What a property looks like from a server connection, and which backend that was. */
    record Observation(int pid, String value) {
    }

    @FunctionalInterface
    interface Change {
        void apply(Connection c) throws SQLException;
    }

    @FunctionalInterface
    interface Observer {
        /** Looks at the property on a server connection; leaves the logical connection holding none. */
        Observation observe(Connection c) throws SQLException;
    }

    /** What a direct connection of the pool's user (the superuser) to the test database reads. */
    private String serverValue(String sql) throws SQLException {
        try (Connection direct = db.connect()) {
            return TestPools.one(direct, sql);
        }
    }

    @Test
    void autoCommitFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setAutoCommit(false), SessionStateFollowsTest::transactionScope,
                "one transaction", "a transaction per statement");
    }

    @Test
    void transactionIsolationFollowsTheLogicalConnection() throws SQLException {
        // Another level than the server's default_transaction_isolation, so that the change shows.
        String serverDefault = serverValue("SHOW default_transaction_isolation");
        boolean serializableByDefault = serverDefault.equals("serializable");
        int level = serializableByDefault ? Connection.TRANSACTION_READ_COMMITTED : Connection.TRANSACTION_SERIALIZABLE;
        assertFollowsAndStaysPrivate(c -> c.setTransactionIsolation(level), c -> {
            try (Statement st = c.createStatement()) {
                st.execute("BEGIN");
                int pid = TestPools.pid(c);
                String isolation = TestPools.one(c, "SHOW transaction_isolation");
                st.execute("COMMIT");
                return new Observation(pid, isolation);
            }
        }, serializableByDefault ? "read committed" : "serializable", serverDefault);
    }

    @Test
    void readOnlyFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setReadOnly(true), c -> {
            c.setAutoCommit(false);
            try {
                int pid = TestPools.pid(c);
                String outcome;
                try {
                    TestPools.execute(c, "INSERT INTO state_probe VALUES (1)");
                    outcome = "writable";
                } catch (SQLException e) {
                    outcome = e.getSQLState();
                }
                return new Observation(pid, outcome);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }, "25006", "writable");
    }

    @Test
    void schemaFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setSchema("follow_schema"),
                c -> observeQuery(c, "SELECT pg_backend_pid(), current_schema()"), "follow_schema",
                serverValue("SELECT current_schema()"));
    }

    @Test
    void catalogFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setCatalog("follow_catalog"),
                c -> new Observation(TestPools.pid(c), c.getCatalog()), "follow_catalog", db.name());
    }

    @Test
    void networkTimeoutFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setNetworkTimeout(Runnable::run, 7_000),
                // The socket timeout has no server-side trace: read it off the pgjdbc connection in use.
                c -> whileInTransaction(c, p -> Integer.toString(p.getNetworkTimeout())), "7000", "0");
    }

    @Test
    void applicationNameFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setClientInfo("ApplicationName", "follow-app"), c -> {
            Observation shown = observeQuery(c, "SELECT pg_backend_pid(), current_setting('application_name')");
            return new Observation(shown.pid(), shown.value() + " / " + activityApplicationName(shown.pid()));
        }, "follow-app / follow-app", APP + " / " + APP);
    }

    @Test
    void holdabilityFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setHoldability(ResultSet.HOLD_CURSORS_OVER_COMMIT),
                SessionStateFollowsTest::resultSetAfterCommit, "readable after commit", "closed by commit");
    }

    @Test
    void typeMapFollowsTheLogicalConnection() throws SQLException {
        assertFollowsAndStaysPrivate(c -> c.setTypeMap(Map.of("follow_type", String.class)),
                // pgjdbc keeps the type map client-side only: read it off the pgjdbc connection in use.
                c -> whileInTransaction(c, p -> new TreeMap<>(p.getTypeMap() == null ? Map.of() : p.getTypeMap())
                        .keySet().toString()), "[follow_type]", "[]");
    }

    /**
     * The schema is set while a transaction is open on the server connection, so the server undoes its
     * SET when that transaction rolls back; the logical connection still reports the schema, so the next
     * transaction, on the same server connection, must use it.
     */
    @Test
    void aSchemaSetInsideATransactionThatRollsBackStillApplies() throws SQLException {
        JdbcPool pool = pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            int backend = TestPools.pid(c);
            c.setSchema("follow_schema");
            c.rollback();
            assertEquals("follow_schema", c.getSchema());
            assertEquals(backend, TestPools.pid(c), "a pool of one: the same server connection");
            assertEquals(c.getSchema(), TestPools.one(c, "SELECT current_schema()"),
                    "what the connection reports is what the server uses");
            c.commit();
        }
    }

    // ---------------------------------------------------------------- the scenario

    private void assertFollowsAndStaysPrivate(Change change, Observer observer, String changed, String unchanged)
            throws SQLException {
        JdbcPool pool = pools.open(APP, PoolConfig.jdbcDefaults().defaultPoolSize(2).poolMode(PoolMode.TRANSACTION));
        try (Connection subject = pool.getConnection()) {
            TestPools.Held onP = hold(pool);
            int q;
            try (Statement st = subject.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                q = rs.getInt(1);
                // The open result set keeps Q: the change goes to the server connection in use.
                change.apply(subject);
            }
            assertNotEquals(onP.pid(), q);

            Observation subjectOnQ = observer.observe(subject);
            assertEquals(q, subjectOnQ.pid(), "P is held, so the subject is on Q again");
            assertEquals(changed, subjectOnQ.value(), "the change applies to the server connection it was made on");
            assertFalse(logical(subject).holdsServerConnection(), "the observation gave Q back");

            TestPools.Held onQ = hold(pool);
            assertEquals(q, onQ.pid());
            onP.close();
            Observation subjectOnP = observer.observe(subject);
            assertEquals(onP.pid(), subjectOnP.pid(), "Q is held, so the subject moved to P");
            assertEquals(changed, subjectOnP.value(), "the change followed the subject to P");

            try (Connection other = pool.getConnection()) {
                Observation otherOnP = observer.observe(other);
                assertEquals(onP.pid(), otherOnP.pid());
                assertEquals(unchanged, otherOnP.value(), "another logical connection on P has its own state");
                TestPools.Held onPAgain = hold(pool);
                onQ.close();
                Observation otherOnQ = observer.observe(other);
                assertEquals(q, otherOnQ.pid());
                assertEquals(unchanged, otherOnQ.value(), "another logical connection on Q has its own state");
                onPAgain.close();
            }
        }
    }

    // ---------------------------------------------------------------- observers

    /** Two statements in a row: in one transaction they share a transaction id, in autocommit they do not. */
    private static Observation transactionScope(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            int pid;
            long first;
            try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid(), txid_current()")) {
                rs.next();
                pid = rs.getInt(1);
                first = rs.getLong(2);
            }
            long second = Long.parseLong(TestPools.one(c, "SELECT txid_current()"));
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            return new Observation(pid, first == second ? "one transaction" : "a transaction per statement");
        }
    }

    /** A cursor-fetched result set survives the commit of its transaction only if it is holdable. */
    private static Observation resultSetAfterCommit(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.setFetchSize(1);
            try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid() FROM generate_series(1, 3)")) {
                rs.next();
                int pid = rs.getInt(1);
                c.commit();
                try {
                    int rows = 1;
                    while (rs.next()) {
                        rows++;
                    }
                    return new Observation(pid, rows == 3 ? "readable after commit" : rows + " rows after commit");
                } catch (SQLException e) {
                    return new Observation(pid, "closed by commit");
                }
            }
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    private static Observation observeQuery(Connection c, String pidAndValue) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(pidAndValue)) {
            rs.next();
            return new Observation(rs.getInt(1), rs.getString(2));
        }
    }

    @FunctionalInterface
    interface PgjdbcRead {
        String read(Connection pgjdbc) throws SQLException;
    }

    /** Reads pgjdbc-side state off the server connection the logical connection holds inside a transaction. */
    private static Observation whileInTransaction(Connection c, PgjdbcRead read) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("BEGIN");
            int pid = TestPools.pid(c);
            String value = read.read(logical(c).currentPhysical().connection());
            st.execute("COMMIT");
            return new Observation(pid, value);
        }
    }

    private String activityApplicationName(int pid) throws SQLException {
        try (Connection admin = db.connect();
             PreparedStatement ps = admin.prepareStatement(
                     "SELECT application_name FROM pg_stat_activity WHERE pid = ?")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "no backend " + pid;
            }
        }
    }
}
