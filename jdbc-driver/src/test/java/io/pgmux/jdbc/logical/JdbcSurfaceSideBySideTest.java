package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.ArgumentValues.constants;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.jdbc.logical.ArgumentValues.Choice;
import io.pgmux.jdbc.logical.ArgumentValues.Value;
import io.pgmux.jdbc.logical.SideBySide.Difference;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every method of the JDBC objects pgmux hands out, called side by side on plain pgjdbc's and on pgmux's
 * (transaction mode) against the same server: same result or same SQLSTATE, and the same state left behind.
 * The cases are read from the {@code java.sql} interfaces ({@link SideBySide}); the fixtures below make each
 * interface's object and choose arguments that reach the server's data (every column of a row, a table that
 * exists, a parameter index that is bound). Each side runs on a connection of its own and the table is set
 * back after each, so what one side wrote never reaches the other. The differences kept on purpose are
 * listed beside each fixture and in docs/jdbc.md ("Where a logical connection answers differently from pgjdbc").
 */
@PostgresTest
class JdbcSurfaceSideBySideTest {
    private static final String TABLE = "surface_t";
    private static final List<String> COLUMNS = List.of("id", "txt", "num", "ts", "d", "arr", "b", "flag");
    private static final String ROWS = "DELETE FROM surface_child; DELETE FROM surface_t;"
            + " INSERT INTO surface_t VALUES (1, '1', 1.50, '2024-01-02 03:04:05', '2024-01-02', '{1,2}',"
            + " '\\x010203', true), (2, 'two', NULL, NULL, NULL, NULL, NULL, NULL);"
            + " INSERT INTO surface_child VALUES (10, 1)";
    private static final String SELECT_ROWS = "SELECT * FROM surface_t ORDER BY id";
    private static final String UPDATE = "UPDATE surface_t SET txt = txt WHERE id = 1";

    private static final String REFUSED_AT_EXECUTE = "parameters are bound when the statement runs on the server"
            + " connection it gets, so a value pgjdbc refuses is refused at execute, not by the setter";
    private static final String NAMED_PARAMETERS = "named parameters, which pgjdbc does not implement, are refused at"
            + " execute, not by the setter";

    /** Differences of every kind of statement. */
    private static final List<Difference> QUERY_THROUGH_EXECUTE_UPDATE = List.of(
            new Difference("execute(Large)?Update\\(String\\)", "java\\.lang\\.Integer -1(?=, ResultSet \\[one)",
                    "java.lang.Integer 1", "a query run through executeUpdate: getUpdateCount() is its row count"),
            new Difference("execute(Large)?Update\\(.*", "ResultSet \\[(one|result):[^,\\n]*", "null",
                    "a query run through executeUpdate: getResultSet() is null afterwards"));

    /** Differences of prepared and callable statements. */
    private static final List<Difference> PARAMETERS_REFUSED_AT_EXECUTE = List.of(
            new Difference("set(AsciiStream|Blob|CharacterStream|Clob|NCharacterStream|NClob|NString|Object|Ref|RowId"
                    + "|URL)\\(int,.*", "(?ms)^threw SQLException (0A000|25P01)$(.*)executed [^\\n]*\\z",
                    "null$2executed threw SQLException $1", REFUSED_AT_EXECUTE));

    @SafeVarargs
    private static List<Difference> concat(List<Difference>... lists) {
        List<Difference> all = new ArrayList<>();
        for (List<Difference> l : lists) {
            all.addAll(l);
        }
        return all;
    }

    private final Sides sides;

    JdbcSurfaceSideBySideTest(TestDatabase db) throws SQLException {
        this.sides = new Sides(db);
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS surface_t (id int PRIMARY KEY, txt text, num numeric(10,2),"
                    + " ts timestamp, d date, arr int[], b bytea, flag boolean)");
            st.execute("CREATE TABLE IF NOT EXISTS surface_child (id int PRIMARY KEY,"
                    + " parent int REFERENCES surface_t (id))");
            st.execute("CREATE OR REPLACE FUNCTION surface_f(a text) RETURNS text LANGUAGE sql AS 'SELECT a'");
            st.execute(ROWS);
        }
    }

    @AfterEach
    void closeAdmin() throws SQLException {
        sides.close();
    }

    @AfterAll
    static void closePools() {
        PgMuxDriver.closeAll();
    }

    /** A pgjdbc connection and a pgmux one to the same database, and the table set back after each use. */
    private static final class Sides implements SideBySide.Connections, AutoCloseable {
        private final TestDatabase db;
        private Connection admin;

        Sides(TestDatabase db) {
            this.db = db;
        }

        @Override
        public Connection pgjdbc() throws SQLException {
            return DriverManager.getConnection(db.jdbcUrl() + "?ApplicationName=surface", db.superuser(),
                    db.superuserPassword());
        }

        @Override
        public Connection pgmux() throws SQLException {
            return DriverManager.getConnection("jdbc:pgmux:" + db.jdbcUrl().substring("jdbc:".length())
                    + "?ApplicationName=surface&poolMode=transaction&maximumPoolSize=4&connectionTimeout=10000",
                    db.superuser(), db.superuserPassword());
        }

        @Override
        public void reset() throws SQLException {
            if (admin == null) {
                admin = db.connect();
            }
            try (Statement st = admin.createStatement()) {
                st.execute(ROWS);
            }
        }

        @Override
        public void close() throws SQLException {
            if (admin != null) {
                admin.close();
            }
        }
    }

    // ---------------------------------------------------------------- connection and statements

    @TestFactory
    Stream<DynamicTest> connection() {
        return new SideBySide<>(Connection.class, sides, c -> c, c -> c instanceof LogicalConnection)
                .choosing(JdbcSurfaceSideBySideTest::connectionArguments)
                .probing(JdbcSurfaceSideBySideTest::connectionState)
                .differing(List.of(
                        new Difference("(?!setClientInfo).*", "Map \\{ApplicationName=java\\.lang\\.String surface\\}", "Map {}",
                                "getClientInfo() holds what setClientInfo set on the logical connection only, not"
                                        + " the ApplicationName of the URL, which its server connections carry"),
                        new Difference("setCatalog\\(String\\)", "java\\.lang\\.String t_\\w+", "java.lang.String other",
                                "getCatalog() answers what setCatalog set; pgjdbc ignores setCatalog"),
                        new Difference("setSchema\\(String\\)", "committed public/java\\.lang\\.String public$",
                                "committed \"\\$user\", public/java.lang.String \"\\$user\", public",
                                "setSchema to the schema current_schema already names leaves search_path as it is")))
                .tests();
    }

    private static List<Value> connectionArguments(Method m, int i) {
        Class<?> type = m.getParameterTypes()[i];
        String name = m.getName();
        if (type == String.class) {
            return switch (name) {
                case "nativeSQL" -> constants("SELECT {fn ucase('a')}");
                case "prepareStatement", "prepareCall" -> constants("SELECT 1 AS one");
                case "setSchema" -> constants("public");
                case "setCatalog" -> constants("other");
                case "createArrayOf" -> constants("int4");
                case "setClientInfo" -> constants(i == 0 ? "ApplicationName" : "surface-set");
                case "getClientInfo" -> constants("ApplicationName", "NoSuchProperty");
                default -> null;
            };
        }
        if (type == int.class && name.equals("setNetworkTimeout")) {
            return constants(60_000, 0);
        }
        if (type == int.class) {
            return resultSetOptions(m, i, name.equals("createStatement") ? 0 : 1);
        }
        return null;
    }

    /** The type, concurrency and holdability arguments of createStatement, prepareStatement and prepareCall. */
    private static List<Value> resultSetOptions(Method m, int i, int first) {
        long ints = Stream.of(m.getParameterTypes()).filter(t -> t == int.class).count();
        if (ints < 2) {
            return switch (m.getName()) {
                case "setTransactionIsolation" -> constants(Connection.TRANSACTION_SERIALIZABLE,
                        Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_READ_UNCOMMITTED);
                case "setHoldability" -> constants(ResultSet.HOLD_CURSORS_OVER_COMMIT, 7);
                default -> null;
            };
        }
        return switch (i - first) {
            case 0 -> constants(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.TYPE_FORWARD_ONLY);
            case 1 -> constants(ResultSet.CONCUR_UPDATABLE);
            default -> constants(ResultSet.HOLD_CURSORS_OVER_COMMIT);
        };
    }

    private static String connectionState(Connection c) {
        return String.join(", ", Outcome.of(c::getAutoCommit), Outcome.of(c::getTransactionIsolation),
                Outcome.of(c::isReadOnly), Outcome.of(c::getSchema), Outcome.of(c::getCatalog),
                Outcome.of(c::getHoldability), Outcome.of(c::getClientInfo), Outcome.of(c::getNetworkTimeout),
                Outcome.of(c::isClosed), Outcome.of(c::getTypeMap), Outcome.of(c::getWarnings),
                Outcome.of(() -> query(c, "SELECT current_setting('application_name'),"
                        + " current_setting('transaction_isolation'), current_setting('search_path')")));
    }

    private static ResultSet query(Connection c, String sql) throws SQLException {
        return c.createStatement().executeQuery(sql);
    }

    @TestFactory
    Stream<DynamicTest> statement() {
        return new SideBySide<>(Statement.class, sides, Connection::createStatement,
                s -> s.getClass() == LogicalStatement.class)
                .choosing(JdbcSurfaceSideBySideTest::statementArguments)
                .probing(JdbcSurfaceSideBySideTest::statementState)
                .differing(QUERY_THROUGH_EXECUTE_UPDATE)
                .tests();
    }

    private static List<Value> statementArguments(Method m, int i) {
        Class<?> type = m.getParameterTypes()[i];
        String name = m.getName();
        if (type == String.class && i == 0) {
            return switch (name) {
                case "executeUpdate", "executeLargeUpdate", "addBatch" -> constants(UPDATE, "SELECT 1 AS one");
                case "execute" -> constants("SELECT 1 AS one", UPDATE);
                case "enquoteLiteral", "enquoteNCharLiteral", "enquoteIdentifier" -> constants("it's", "Mixed");
                case "isSimpleIdentifier" -> constants("abc", "Mixed Case");
                case "setCursorName" -> constants("c1");
                default -> constants("SELECT 1 AS one");
            };
        }
        if (type == int.class && name.equals("setFetchDirection")) {
            return constants(ResultSet.FETCH_FORWARD, ResultSet.FETCH_REVERSE, 7);
        }
        if (type == int.class && name.startsWith("set") && i == 0 && m.getParameterCount() == 1) {
            return constants(0, 2, -1);
        }
        if (type == int.class && (name.equals("getMoreResults") || name.startsWith("execute"))) {
            return constants(Statement.RETURN_GENERATED_KEYS, Statement.NO_GENERATED_KEYS);
        }
        return null;
    }

    /** The options a call may have set and the results it left; each getter is a case of its own too. */
    private static String statementState(Statement s) {
        return String.join(", ", Outcome.of(s::isClosed), Outcome.of(s::getFetchSize), Outcome.of(s::getMaxRows),
                Outcome.of(s::getQueryTimeout), Outcome.of(s::getUpdateCount), Outcome.of(s::getResultSet));
    }

    @TestFactory
    Stream<DynamicTest> preparedStatement() {
        return new SideBySide<>(PreparedStatement.class, sides, c -> c.prepareStatement("SELECT ?::text AS v"),
                s -> s.getClass() == LogicalPreparedStatement.class)
                .choosing(JdbcSurfaceSideBySideTest::statementArguments)
                .probing(s -> statementState(s) + ", executed " + Outcome.of(s::executeQuery))
                .differing(concat(QUERY_THROUGH_EXECUTE_UPDATE, PARAMETERS_REFUSED_AT_EXECUTE))
                .tests();
    }

    @TestFactory
    Stream<DynamicTest> callableStatement() {
        return new SideBySide<>(CallableStatement.class, sides, JdbcSurfaceSideBySideTest::executedCall,
                s -> s instanceof LogicalCallableStatement)
                .choosing(JdbcSurfaceSideBySideTest::callArguments)
                .probing(s -> statementState(s) + ", executed " + Outcome.of(() -> {
                    s.execute();
                    return s.getString(1);
                }))
                .differing(concat(QUERY_THROUGH_EXECUTE_UPDATE, PARAMETERS_REFUSED_AT_EXECUTE, List.of(
                        new Difference("set(AsciiStream|Blob|CharacterStream|Clob|NCharacterStream|NClob|NString|Object"
                                + "|Ref|RowId|URL)\\(int,.*", "(?m)^threw SQLException (0A000|25P01)$", "null",
                                REFUSED_AT_EXECUTE + " (the second index)"),
                        new Difference("(set\\w+|registerOutParameter)\\(String,.*",
                                "(?ms)^threw SQLException 0A000$(.*)executed [^\\n]*\\z",
                                "null$1executed threw SQLException 0A000", NAMED_PARAMETERS),
                        new Difference("registerOutParameter\\(.*", "(?ms)^threw SQLException 0A000$(.*)executed [^\\n]*\\z",
                                "null$1executed threw SQLException 0A000", REFUSED_AT_EXECUTE),
                        new Difference("registerOutParameter\\(.*", "(?m)^threw SQLException 0A000$", "null",
                                REFUSED_AT_EXECUTE),
                        new Difference("executeUpdate\\(\\)", "java\\.lang\\.Integer -1(?=, null, executed)",
                                "java.lang.Integer 0", "executeUpdate() of a call reports 0 rows where pgjdbc reports -1"),
                        new Difference("closeOnCompletion\\(\\)", "executed threw SQLException 55000",
                                "executed java.lang.String 1",
                                "closeOnCompletion does not close a CallableStatement once its OUT values are read"),
                        new Difference("setNull\\(int,int,String\\)", "executed null$",
                                "executed threw SQLException 42883",
                                "setNull with a type name binds the parameter as that type, which the server looks up"))))
                .tests();
    }

    /** A call of a function returning its text argument, executed: the OUT parameter 1 reads '1'. */
    private static CallableStatement executedCall(Connection c) throws SQLException {
        CallableStatement cs = c.prepareCall("{? = call surface_f(?)}");
        cs.registerOutParameter(1, Types.VARCHAR);
        cs.setString(2, "1");
        cs.execute();
        return cs;
    }

    private static List<Value> callArguments(Method m, int i) {
        Class<?> type = m.getParameterTypes()[i];
        String name = m.getName();
        if (name.equals("registerOutParameter")) {
            if (i == 0) {
                return type == int.class ? constants(1, 2) : constants("a");
            }
            if (i == 1 && type == int.class) {
                return constants(Types.VARCHAR, Types.INTEGER);
            }
            return type == String.class ? constants("text") : null;
        }
        if (i == 0 && type == int.class && name.startsWith("get")) {
            return constants(1, 2, 3);
        }
        if (i == 0 && type == int.class && name.startsWith("set")) {
            return constants(2, 1);
        }
        if (i == 0 && type == String.class && (name.startsWith("get") || name.startsWith("set"))) {
            return constants("a");
        }
        return statementArguments(m, i);
    }

    // ---------------------------------------------------------------- result sets

    @TestFactory
    Stream<DynamicTest> resultSet() {
        return new SideBySide<>(ResultSet.class, sides, c -> onFirstRow(c.createStatement()),
                rs -> rs instanceof LogicalResultSet)
                .choosing(JdbcSurfaceSideBySideTest::columnArguments)
                .probing(JdbcSurfaceSideBySideTest::resultSetState)
                .tests();
    }

    @TestFactory
    Stream<DynamicTest> scrollableUpdatableResultSet() {
        return new SideBySide<>(ResultSet.class, sides,
                c -> onFirstRow(c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_UPDATABLE)),
                rs -> rs instanceof LogicalResultSet)
                .choosing(JdbcSurfaceSideBySideTest::columnArguments)
                .probing(JdbcSurfaceSideBySideTest::resultSetState)
                .tests();
    }

    /**
     * A result left unread until the pool copied it and gave its server connection back, read on its first row,
     * beside pgjdbc's forward-only, read-only result of the same query.
     */
    @TestFactory
    Stream<DynamicTest> bufferedResultSet() {
        return new SideBySide<>(ResultSet.class, sides, c -> {
            ResultSet rs = c.createStatement().executeQuery(SELECT_ROWS);
            if (c instanceof LogicalConnection logical) {
                buffered(logical);
            }
            rs.next();
            return rs;
        }, rs -> rs instanceof LogicalResultSet l && l.isBuffered()
                && l.delegate instanceof BufferedResultSet)
                .choosing(JdbcSurfaceSideBySideTest::columnArguments)
                .probing(JdbcSurfaceSideBySideTest::resultSetState)
                .differing(List.of(
                        new Difference("update\\w+\\(.*", "(?m)^threw SQLException (0A000|42703|22023)$",
                                "threw SQLException 24000", "a buffered result is read-only: every updater is refused"
                                        + " with 24000 first, where pgjdbc checks the column first or refuses the"
                                        + " updaters it does not implement with 0A000"),
                        new Difference("cancelRowUpdates\\(\\)", "(?m)^null$", "threw SQLException 24000",
                                "cancelRowUpdates is refused with 24000 as every updater; pgjdbc lets it pass"),
                        new Difference("getArray\\(.*", "(?m)^threw SQLException 02000$", "threw SQLException 22023",
                                "getArray of a column that is no array is refused with 22023 at once; pgjdbc hands out"
                                        + " an Array that fails with 02000 when read"),
                        new Difference("get(Blob|Clob)\\(.*", "(?m)^threw SQLException (25P01|22003|22023)$",
                                "threw SQLException 0A000", "a large object lives on the server the buffered result"
                                        + " gave back: getBlob and getClob are refused with 0A000 whatever the column"),
                        new Difference("getSQLXML\\(.*", "(?m)^(SQLXML .*|threw SQLException 22023)$",
                                "threw SQLException 0A000", "pgjdbc's SQLXML reads through its connection, which a"
                                        + " buffered result no longer has: getSQLXML is refused with 0A000"),
                        new Difference("getObject\\(int,Class\\)",
                                "(?m)^threw java\\.lang\\.ArrayIndexOutOfBoundsException$", "threw SQLException 22023", "a column index out of range is refused with 22023, where"
                                        + " pgjdbc's getObject(int, Class) throws ArrayIndexOutOfBoundsException")))
                .tests();
    }

    /**
     * The reclaimer's round, run here rather than waited for: the first sees the connection idle, the next
     * copies its unread result and gives the server back. One more if the reclaimer's own round held the lock.
     */
    private static void buffered(LogicalConnection c) {
        for (int round = 0; round < 4 && c.holdsServerConnection(); round++) {
            c.reclaimIfIdle(System.nanoTime(), 0);
        }
        assertFalse(c.holdsServerConnection(), "the unread result buffered and the server given back");
    }

    /** The result set pgjdbc answers getGeneratedKeys with when no keys were asked for: no columns, no rows. */
    @TestFactory
    Stream<DynamicTest> generatedKeysNotAskedFor() {
        return new SideBySide<>(ResultSet.class, sides, c -> {
            Statement st = c.createStatement();
            st.executeUpdate(UPDATE);
            return st.getGeneratedKeys();
        }, rs -> rs instanceof EmptyResultSet)
                .choosing(JdbcSurfaceSideBySideTest::columnArguments)
                .probing(JdbcSurfaceSideBySideTest::resultSetState)
                .differing(List.of(
                        new Difference("(get|update)\\w+\\((int|String).*|findColumn\\(String\\)|wasNull\\(\\)"
                                + "|row(Updated|Inserted|Deleted)\\(\\)|cancelRowUpdates\\(\\)|getCursorName\\(\\)",
                                "(?m)^(?!then )(threw [^\\n]*|java\\.lang\\.Boolean false|null)$", "threw SQLException 24000",
                                "every call that would read or change a row of the keys nobody asked for fails with 24000"
                                        + " (no current row) first, where pgjdbc checks the column or the updater first"),
                        new Difference("setFetchDirection\\(int\\)", "(?m)^(null|threw SQLException 22023)$",
                                "threw SQLException 24000", "setFetchDirection is refused with 24000 whatever the direction"),
                        new Difference("getHoldability\\(\\)", "(?m)^threw SQLException 0A000$", "java.lang.Integer 2",
                                "getHoldability answers the statement's holdability; pgjdbc does not implement it")))
                .tests();
    }

    private static ResultSet onFirstRow(Statement st) throws SQLException {
        ResultSet rs = st.executeQuery(SELECT_ROWS);
        rs.next();
        return rs;
    }

    /** Getters and updaters are called for every column, by index (and 0 and one past the last) and by label. */
    private static List<Value> columnArguments(Method m, int i) {
        Class<?> type = m.getParameterTypes()[i];
        String name = m.getName();
        boolean byColumn = i == 0 && (name.startsWith("get") || name.startsWith("update") || name.equals("findColumn"));
        if (byColumn && type == int.class) {
            List<Object> indexes = new ArrayList<>();
            for (int c = 0; c <= COLUMNS.size() + 1; c++) {
                indexes.add(c);
            }
            return constants(indexes.toArray());
        }
        if (byColumn && type == String.class) {
            List<Object> labels = new ArrayList<>(COLUMNS);
            labels.add("no_such_column");
            return constants(labels.toArray());
        }
        if (type == int.class && name.equals("setFetchDirection")) {
            return constants(ResultSet.FETCH_FORWARD, ResultSet.FETCH_REVERSE, 7);
        }
        if (type == int.class && (name.equals("absolute") || name.equals("relative"))) {
            return constants(2, -1, 0, 5);
        }
        return null;
    }

    private static String resultSetState(ResultSet rs) throws SQLException {
        StringBuilder s = new StringBuilder(Outcome.of(rs::isClosed)).append(", ").append(Outcome.of(rs::getRow));
        for (int c = 1; c <= COLUMNS.size(); c++) {
            int column = c;
            s.append(", ").append(Outcome.of(() -> rs.getString(column)));
        }
        return s.toString();
    }

    // ---------------------------------------------------------------- metadata

    @TestFactory
    Stream<DynamicTest> databaseMetaData() {
        return new SideBySide<>(DatabaseMetaData.class, sides, Connection::getMetaData,
                md -> Proxy.isProxyClass(md.getClass())
                        && Proxy.getInvocationHandler(md) instanceof LogicalDatabaseMetaData)
                .choosing(JdbcSurfaceSideBySideTest::metaDataArguments)
                .tests();
    }

    /** Catalog null, schema public, this test's tables and function, every column; one foreign key. */
    private static List<Value> metaDataArguments(Method m, int i) {
        Class<?> type = m.getParameterTypes()[i];
        String name = m.getName();
        if (type == String.class) {
            if (name.equals("getCrossReference")) {
                return constants(new String[] {null, "public", TABLE, null, "public", "surface_child"}[i]);
            }
            return switch (i) {
                case 0 -> constants((Object) null);
                case 1 -> constants("public");
                case 2 -> constants(name.contains("Procedure") || name.contains("Function") ? "surface_f" : TABLE);
                default -> constants("%");
            };
        }
        if (type == String[].class) {
            return constants((Object) new String[] {"TABLE"});
        }
        if (type == int.class && name.startsWith("supports")) {
            return constants(ResultSet.TYPE_FORWARD_ONLY, ResultSet.TYPE_SCROLL_INSENSITIVE,
                    ResultSet.CONCUR_UPDATABLE, Connection.TRANSACTION_SERIALIZABLE, Types.INTEGER);
        }
        return null;
    }

    @TestFactory
    Stream<DynamicTest> resultSetMetaData() {
        return new SideBySide<>(ResultSetMetaData.class, sides, c -> onFirstRow(c.createStatement()).getMetaData(),
                md -> md instanceof DetachedResultSetMetaData)
                .choosing((m, i) -> columnIndexes(m, i, COLUMNS.size()))
                .tests();
    }

    @TestFactory
    Stream<DynamicTest> parameterMetaData() {
        return new SideBySide<>(ParameterMetaData.class, sides,
                c -> c.prepareStatement("SELECT ?::int4 + ?::int8, ?::text").getParameterMetaData(),
                md -> md instanceof DetachedParameterMetaData)
                .choosing((m, i) -> columnIndexes(m, i, 3))
                .tests();
    }

    /** Every index from 0 to one past the last. */
    private static List<Value> columnIndexes(Method m, int i, int count) {
        if (m.getParameterTypes()[i] != int.class) {
            return null;
        }
        List<Object> indexes = new ArrayList<>();
        for (int c = 0; c <= count + 1; c++) {
            indexes.add(c);
        }
        return constants(indexes.toArray());
    }

    // ---------------------------------------------------------------- values bound to a connection

    @TestFactory
    Stream<DynamicTest> array() {
        return new SideBySide<>(Array.class, sides, c -> onFirstRow(c.createStatement()).getArray("arr"),
                a -> a instanceof DetachedArray)
                .choosing((m, i) -> m.getParameterTypes()[i] == long.class ? constants(1L, 2L, 0L, 3L) : null)
                .tests();
    }

    @TestFactory
    Stream<DynamicTest> blob() {
        return new SideBySide<>(Blob.class, sides, c -> largeObject(c).getBlob(1), b -> b instanceof LeaseBoundBlob)
                .choosing(JdbcSurfaceSideBySideTest::largeObjectArguments)
                .probing(b -> Outcome.of(() -> b.getBytes(1, 10)))
                .tests();
    }

    @TestFactory
    Stream<DynamicTest> clob() {
        return new SideBySide<>(Clob.class, sides, c -> largeObject(c).getClob(1), b -> b instanceof LeaseBoundClob)
                .choosing(JdbcSurfaceSideBySideTest::largeObjectArguments)
                .probing(b -> Outcome.of(() -> b.getSubString(1, 10)))
                .tests();
    }

    /** A large object holding the bytes of "abc", read inside the transaction that made it. */
    private static ResultSet largeObject(Connection c) throws SQLException {
        c.setAutoCommit(false);
        ResultSet rs = c.createStatement().executeQuery("SELECT lo_from_bytea(0, 'abc'::bytea)");
        rs.next();
        return rs;
    }

    private static List<Value> largeObjectArguments(Method m, int i) {
        Class<?> type = m.getParameterTypes()[i];
        if (type == long.class) {
            return constants(1L, 2L, 0L, 9L);
        }
        if (type == int.class) {
            return constants(2, 0);
        }
        if (type == String.class) {
            return constants("bc");
        }
        return null;
    }
}
