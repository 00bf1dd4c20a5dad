package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.count;
import static io.pgmux.jdbc.logical.TestPools.execute;
import static io.pgmux.jdbc.logical.TestPools.hold;
import static io.pgmux.jdbc.logical.TestPools.logical;
import static io.pgmux.jdbc.logical.TestPools.pid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Prepared and callable statements are logical: they are re-created on whichever server connection runs
 * them, where pgjdbc's per-connection cache of server-prepared statements keeps repeated executions cheap
 * and collision-free; what they return (rows, counts, generated keys, OUT values, metadata) is right.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreparedStatementTest {
    private static final int THREADS = 50;
    private static final int EXECUTIONS = 200;

    private final TestDatabase db;
    private final TestPools pools;

    PreparedStatementTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeAll
    void createObjects() throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("CREATE TABLE keyed (id serial PRIMARY KEY, name text)");
            st.execute("CREATE TABLE batched (id int, name text)");
            st.execute("CREATE TABLE meta (id int PRIMARY KEY, name text)");
            st.execute("INSERT INTO meta VALUES (1, 'one'), (2, NULL)");
            st.execute("CREATE FUNCTION add_one(x int, OUT y int) LANGUAGE sql AS $$ SELECT x + 1 $$");
            st.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')");
            st.execute("CREATE PROCEDURE double_it(INOUT x int) LANGUAGE plpgsql AS $$ BEGIN x := x * 2; END $$");
        }
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    private JdbcPool pool(int size, String... driverProperties) {
        Properties props = new Properties();
        for (int i = 0; i < driverProperties.length; i += 2) {
            props.setProperty(driverProperties[i], driverProperties[i + 1]);
        }
        return pools.open("prepared", PoolConfig.jdbcDefaults().defaultPoolSize(size).poolMode(PoolMode.TRANSACTION),
                props);
    }

    // ---------------------------------------------------------------- server-prepared statements under load

    /** One SQL text, its parameter and the result it must give. */
    private record Query(String sql, int parameters) {
        long expected(int x) {
            return switch (sql.charAt(sql.length() - 1)) {
                case '2' -> x * 2L;
                case '7' -> x + 7L;
                case ')' -> (long) x;
                default -> x - 1L;
            };
        }
    }

    private static final Query DOUBLE = new Query("SELECT ?::int * 2", 1);
    private static final List<Query> SEVERAL = List.of(DOUBLE,
            new Query("SELECT ?::int + 7", 1),
            new Query("SELECT count(*) FROM generate_series(1, ?::int)", 1),
            new Query("SELECT ?::bigint - 1", 1));

    @Test
    void fiftyThreadsExecutingTheSameServerPreparedSqlNeverCollide() throws Exception {
        assertNoCollisions(List.of(DOUBLE));
    }

    @Test
    void fiftyThreadsExecutingSeveralServerPreparedSqlsNeverCollide() throws Exception {
        assertNoCollisions(SEVERAL);
    }

    private void assertNoCollisions(List<Query> queries) throws Exception {
        JdbcPool pool = pool(5, "prepareThreshold", "1");
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicInteger correct = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try (Connection c = pool.getConnection()) {
                    PreparedStatement[] statements = new PreparedStatement[queries.size()];
                    for (int i = 0; i < statements.length; i++) {
                        statements[i] = c.prepareStatement(queries.get(i).sql());
                    }
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int n = 0; n < EXECUTIONS; n++) {
                        int which = n % statements.length;
                        int x = random.nextInt(1, 1_000);
                        statements[which].setInt(1, x);
                        try (ResultSet rs = statements[which].executeQuery()) {
                            rs.next();
                            if (rs.getLong(1) == queries.get(which).expected(x)) {
                                correct.incrementAndGet();
                            } else {
                                errors.add(new AssertionError(queries.get(which).sql() + " with " + x + " gave "
                                        + rs.getLong(1)));
                            }
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    done.countDown();
                }
            }, "prepared-" + t);
            thread.start();
        }
        assertTrue(done.await(60, TimeUnit.SECONDS));
        assertTrue(errors.isEmpty(), () -> errors.size() + " failures (S_n does not exist / already exists?), first: "
                + errors.peek());
        assertEquals(THREADS * EXECUTIONS, correct.get());
        try (Connection c = pool.getConnection()) {
            assertTrue(count(c, "SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql") > 0,
                    "prepareThreshold=1 made pgjdbc prepare the statements on the server");
        }
    }

    @Test
    void serverPreparedStatementsSurviveDiscardAllOfAPinnedNeighbourOnTheSameBackend() throws SQLException {
        JdbcPool pool = pool(1, "prepareThreshold", "1");
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT ?::int * 3")) {
            int backend = 0;
            for (int i = 1; i <= 3; i++) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertEquals(i * 3, rs.getInt(1));
                }
            }
            try (Connection pinned = pool.getConnection()) {
                execute(pinned, "SET work_mem = '7MB'");
                backend = logical(pinned).currentBackendPid();
            }
            assertEquals(backend, pid(c), "the same backend, after DISCARD ALL");
            ps.setInt(1, 5);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(15, rs.getInt(1));
            }
        }
    }

    @Test
    void everyRecordedKindOfParameterReachesTheServerAndClearingForgetsThem() throws SQLException {
        JdbcPool pool = pool(2);
        String sql = "SELECT ?::boolean, ?::int2, ?::int2, ?::int4, ?::int8, ?::float4, ?::float8, ?::numeric,"
                + " ?::text, ?::text, ?::bytea, ?::date, ?::time, ?::timestamp, ?::int4, ?::int4, ?::numeric,"
                + " ?::int4, ?::text";
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setBoolean(1, true);
            ps.setShort(2, (short) -2);
            ps.setByte(3, (byte) 3);
            ps.setInt(4, 40_000);
            ps.setLong(5, 5_000_000_000L);
            ps.setFloat(6, 6.5f);
            ps.setDouble(7, -7.25);
            ps.setBigDecimal(8, new java.math.BigDecimal("8.125"));
            ps.setString(9, "nine");
            ps.setObject(10, "ten");
            ps.setBytes(11, new byte[] {11, 0, -11});
            ps.setDate(12, java.sql.Date.valueOf("2026-11-30"));
            ps.setTime(13, java.sql.Time.valueOf("13:14:15"));
            ps.setTimestamp(14, java.sql.Timestamp.valueOf("2026-11-30 14:15:16.5"));
            ps.setObject(15, 15);
            ps.setObject(16, "16", Types.INTEGER);
            ps.setObject(17, new java.math.BigDecimal("17.456"), Types.NUMERIC, 2);
            ps.setNull(18, Types.INTEGER);
            ps.setCharacterStream(19, new java.io.StringReader("nineteen"));
            for (int run = 0; run < 2; run++) {
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertTrue(rs.getBoolean(1));
                    assertEquals(-2, rs.getShort(2));
                    assertEquals(3, rs.getByte(3));
                    assertEquals(40_000, rs.getInt(4));
                    assertEquals(5_000_000_000L, rs.getLong(5));
                    assertEquals(6.5f, rs.getFloat(6));
                    assertEquals(-7.25, rs.getDouble(7));
                    assertEquals(new java.math.BigDecimal("8.125"), rs.getBigDecimal(8));
                    assertEquals("nine", rs.getString(9));
                    assertEquals("ten", rs.getString(10));
                    assertEquals(List.of((byte) 11, (byte) 0, (byte) -11), List.of(rs.getBytes(11)[0],
                            rs.getBytes(11)[1], rs.getBytes(11)[2]));
                    assertEquals(java.sql.Date.valueOf("2026-11-30"), rs.getDate(12));
                    assertEquals(java.sql.Time.valueOf("13:14:15"), rs.getTime(13));
                    assertEquals(java.sql.Timestamp.valueOf("2026-11-30 14:15:16.5"), rs.getTimestamp(14));
                    assertEquals(15, rs.getInt(15));
                    assertEquals(16, rs.getInt(16));
                    assertEquals(new java.math.BigDecimal("17.46"), rs.getBigDecimal(17));
                    assertEquals(null, rs.getObject(18));
                    assertEquals("nineteen", rs.getString(19));
                }
                ps.setCharacterStream(19, new java.io.StringReader("nineteen"));
            }
            assertFalse(logical(c).holdsServerConnection());
            ps.clearParameters();
            SQLException unset = assertThrows(SQLException.class, ps::executeQuery);
            assertTrue(unset.getMessage().contains("No value specified for parameter 1"), unset.getMessage());
        }
    }

    // ---------------------------------------------------------------- batches, keys, OUT parameters

    @Test
    void aRewrittenBatchInsertsTenThousandRows() throws SQLException {
        JdbcPool pool = pool(2, "reWriteBatchedInserts", "true");
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO batched (id, name) VALUES (?, ?)")) {
            for (int i = 1; i <= 10_000; i++) {
                ps.setInt(1, i);
                ps.setString(2, "row " + i);
                ps.addBatch();
            }
            assertEquals(10_000, ps.executeBatch().length);
            assertFalse(logical(c).holdsServerConnection());
            assertEquals(10_000, count(c, "SELECT count(*) FROM batched"));
            assertEquals(50_005_000L, count(c, "SELECT sum(id) FROM batched"));
        }
    }

    @Test
    void generatedKeysAreReadableAfterExecuteUpdate() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO keyed (name) VALUES (?)",
                     Statement.RETURN_GENERATED_KEYS)) {
            int previous = 0;
            for (int i = 0; i < 3; i++) {
                ps.setString(1, "k" + i);
                assertEquals(1, ps.executeUpdate());
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    int id = keys.getInt("id");
                    assertTrue(id > previous, "a new key each time");
                    assertEquals("k" + i, TestPools.one(c, "SELECT name FROM keyed WHERE id = " + id));
                    previous = id;
                }
            }
        }
    }

    @Test
    void generatedKeysByColumnNameFromAPlainStatement() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            assertEquals(1, st.executeUpdate("INSERT INTO keyed (name) VALUES ('by-name')", new String[] {"id"}));
            try (ResultSet keys = st.getGeneratedKeys()) {
                assertTrue(keys.next());
                assertEquals("by-name", TestPools.one(c, "SELECT name FROM keyed WHERE id = " + keys.getInt(1)));
            }
        }
    }

    @Test
    void generatedKeysOfABatchAreAllReadable() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO keyed (name) VALUES (?)", new String[] {"id"})) {
            for (int i = 0; i < 3; i++) {
                ps.setString(1, "batch" + i);
                ps.addBatch();
            }
            assertEquals(3, ps.executeBatch().length);
            try (ResultSet keys = ps.getGeneratedKeys()) {
                for (int i = 0; i < 3; i++) {
                    assertTrue(keys.next());
                    assertEquals("batch" + i, TestPools.one(c, "SELECT name FROM keyed WHERE id = " + keys.getInt(1)));
                }
                assertFalse(keys.next());
            }
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void generatedKeysOfAStatementThatDidNotAskForThemAreEmptyAsOnADirectConnection() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection direct = db.connect(); Connection pooled = pool.getConnection()) {
            assertEquals(keysNotAskedFor(direct), keysNotAskedFor(pooled));
            assertFalse(logical(pooled).holdsServerConnection(), "an empty answer holds no server connection");
        }
    }

    /** What getGeneratedKeys answers after each way of running SQL without asking for keys. */
    private static List<String> keysNotAskedFor(Connection c) throws SQLException {
        List<String> seen = new ArrayList<>();
        try (Statement st = c.createStatement()) {
            seen.add("before execute: " + describeKeys(st));
            st.executeUpdate("INSERT INTO keyed (name) VALUES ('no keys')");
            seen.add("executeUpdate: " + describeKeys(st));
            st.executeQuery("SELECT 1").close();
            seen.add("executeQuery: " + describeKeys(st));
            st.addBatch("INSERT INTO keyed (name) VALUES ('no keys, batch')");
            st.executeBatch();
            seen.add("executeBatch: " + describeKeys(st));
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO keyed (name) VALUES (?)")) {
            ps.setString(1, "no keys, prepared");
            ps.executeUpdate();
            seen.add("prepared executeUpdate: " + describeKeys(ps));
            ps.addBatch();
            ps.executeBatch();
            seen.add("prepared executeBatch: " + describeKeys(ps));
        }
        return seen;
    }

    private static String describeKeys(Statement st) throws SQLException {
        try (ResultSet keys = st.getGeneratedKeys()) {
            return "columns=" + keys.getMetaData().getColumnCount() + " type=" + keys.getType()
                    + " concurrency=" + keys.getConcurrency() + " ownStatement=" + (keys.getStatement() == st)
                    + " row=" + keys.next() + " afterLast=" + keys.isAfterLast();
        }
    }

    @Test
    void generatedKeysKeepTheBackendUntilTheyAreClosed() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO keyed (name) VALUES ('held')",
                     Statement.RETURN_GENERATED_KEYS)) {
            ps.executeUpdate();
            assertTrue(logical(c).holdsServerConnection(), "the keys are still to be read");
            assertNotEquals(logical(c).currentBackendPid(), pid(other));
            ResultSet keys = ps.getGeneratedKeys();
            assertTrue(keys.next());
            keys.close();
            assertFalse(logical(c).holdsServerConnection());
        }
    }

    @Test
    void aCallableStatementReturnsTheFunctionsOutParameter() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Connection other = pool.getConnection();
             CallableStatement cs = c.prepareCall("{call add_one(?, ?)}")) {
            for (int x : new int[] {41, 99}) {
                // Another client between executions, so the call may run on either backend.
                pid(other);
                cs.setInt(1, x);
                cs.registerOutParameter(2, Types.INTEGER);
                cs.execute();
                assertEquals(x + 1, cs.getInt(2));
            }
            cs.close();
            assertFalse(logical(c).holdsServerConnection(), "closing the statement gives the backend back");
        }
    }

    @Test
    void aCallableStatementReturnsTheProceduresInOutParameter() throws SQLException {
        JdbcPool pool = pool(2, "escapeSyntaxCallMode", "callIfNoReturn");
        try (Connection c = pool.getConnection(); CallableStatement cs = c.prepareCall("{call double_it(?)}")) {
            cs.setInt(1, 21);
            cs.registerOutParameter(1, Types.INTEGER);
            cs.execute();
            assertEquals(42, cs.getInt(1));
        }
    }

    // ---------------------------------------------------------------- metadata

    @Test
    void aPreparedStatementDescribesItsColumnsAndParametersBeforeItRuns() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id, name FROM meta WHERE id = ?")) {
            ResultSetMetaData md = ps.getMetaData();
            assertEquals(2, md.getColumnCount());
            assertEquals("id", md.getColumnName(1));
            assertEquals(Types.INTEGER, md.getColumnType(1));
            assertEquals("name", md.getColumnName(2));
            assertEquals(Types.VARCHAR, md.getColumnType(2));
            ParameterMetaData pmd = ps.getParameterMetaData();
            assertEquals(1, pmd.getParameterCount());
            assertEquals(Types.INTEGER, pmd.getParameterType(1));
            assertFalse(logical(c).holdsServerConnection(), "describing borrowed a backend only for the call");
        }
    }

    @Test
    void resultSetMetaDataLooksUpNullabilityAndTableWhileTheResultSetIsOpen() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, name FROM meta")) {
            ResultSetMetaData md = rs.getMetaData();
            assertEquals(ResultSetMetaData.columnNoNulls, md.isNullable(1));
            assertEquals(ResultSetMetaData.columnNullable, md.isNullable(2));
            assertEquals("meta", md.getTableName(1));
        }
    }

    /**
     * The metadata is read after its result set was closed and its backend given back; by then another
     * logical connection holds that backend in a failed transaction. The catalog lookups must not run there.
     */
    @Test
    void resultSetMetaDataLooksUpNullabilityAndTableAfterItsBackendWentToAnotherConnection() throws SQLException {
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            TestPools.Held onP = hold(pool);
            ResultSetMetaData md;
            int q;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, name FROM meta")) {
                md = rs.getMetaData();
                q = logical(c).currentBackendPid();
            }
            assertFalse(logical(c).holdsServerConnection());
            try (Connection failed = pool.getConnection()) {
                failed.setAutoCommit(false);
                assertEquals(q, pid(failed));
                assertThrows(SQLException.class, () -> execute(failed, "SELECT 1/0"));
                onP.close();

                assertEquals(ResultSetMetaData.columnNoNulls, md.isNullable(1));
                assertEquals(ResultSetMetaData.columnNullable, md.isNullable(2));
                assertEquals("meta", md.getTableName(1));
                failed.rollback();
            }
        }
    }

    /**
     * pgjdbc resolves an array's element type lazily, through the connection the array was read on; by
     * then that backend belongs to another logical connection, in a failed transaction.
     */
    @Test
    void anArrayLooksUpItsElementTypeAfterItsBackendWentToAnotherConnection() throws SQLException {
        String expected;
        try (Connection direct = db.connect(); Statement st = direct.createStatement();
             ResultSet rs = st.executeQuery("SELECT ARRAY['happy'::mood]")) {
            rs.next();
            expected = rs.getArray(1).getBaseTypeName();
        }
        JdbcPool pool = pool(2);
        try (Connection c = pool.getConnection()) {
            TestPools.Held onP = hold(pool);
            Array moods;
            int q;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT ARRAY['happy'::mood]")) {
                rs.next();
                moods = rs.getArray(1);
                q = logical(c).currentBackendPid();
            }
            try (Connection failed = pool.getConnection()) {
                failed.setAutoCommit(false);
                assertEquals(q, pid(failed));
                assertThrows(SQLException.class, () -> execute(failed, "SELECT 1/0"));
                onP.close();

                assertEquals(expected, moods.getBaseTypeName());
                failed.rollback();
            }
        }
    }
}
