package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.execute;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Struct;
import java.sql.Types;
import java.sql.Wrapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Walks, by reflection, every method of the JDBC interfaces that returns an object, from every object a
 * logical connection hands out, with arguments for each column of a row holding every kind of value pgjdbc
 * binds to its server connection (a refcursor, a large object, an array, xml). A method added to an
 * interface later is walked by construction. Nothing reached may be pgjdbc's own connection-bound object
 * (a Connection, Statement, ResultSet, metadata, Array, Blob or Clob of {@code org.postgresql}); every
 * Connection reached is the logical connection, and every Statement names it.
 */
@PostgresTest
class NoPgjdbcObjectEscapesTest {
    private static final String ROW = "SELECT 1 AS n, 'text'::text AS t, ARRAY[1, 2] AS arr,"
            + " (SELECT doc FROM esc_docs) AS doc, cur_open() AS cur, '<a/>'::xml AS x, '\\x01'::bytea AS b,"
            + " '{\"a\": 1}'::jsonb AS j";
    private static final String[] LABELS = {"n", "t", "arr", "doc", "cur", "x", "b", "j"};
    private static final String INSERT = "INSERT INTO esc_keys (v) VALUES ('v')";
    private static final String CALL = "{? = call cur_open()}";
    /** The types given to getObject(…, Class). */
    private static final List<Class<?>> CLASSES = List.of(Object.class, ResultSet.class, Blob.class, Clob.class,
            NClob.class, Array.class, SQLXML.class, Ref.class, Struct.class, RowId.class, String.class);
    /** pgjdbc's types that unwrap and isWrapperFor must not lead to from a statement, result set or metadata. */
    private static final List<String> PGJDBC_TYPES = List.of("org.postgresql.PGConnection",
            "org.postgresql.core.BaseConnection", "org.postgresql.jdbc.PgConnection", "org.postgresql.PGStatement",
            "org.postgresql.core.BaseStatement", "org.postgresql.jdbc.PgStatement",
            "org.postgresql.jdbc.PgPreparedStatement", "org.postgresql.jdbc.PgCallableStatement",
            "org.postgresql.jdbc.PgResultSet", "org.postgresql.PGRefCursorResultSet",
            "org.postgresql.jdbc.PgDatabaseMetaData", "org.postgresql.jdbc.PgResultSetMetaData",
            "org.postgresql.PGResultSetMetaData", "org.postgresql.jdbc.PgArray", "org.postgresql.jdbc.PgBlob",
            "org.postgresql.jdbc.PgClob");
    /** pgjdbc objects of these interfaces reach its server connection. */
    private static final List<Class<?>> CONNECTION_BOUND = List.of(Connection.class, Statement.class,
            ResultSet.class, DatabaseMetaData.class, ResultSetMetaData.class, ParameterMetaData.class, Array.class,
            Blob.class, Clob.class);
    private static final List<Class<?>> WALKED = List.of(Connection.class, DatabaseMetaData.class,
            CallableStatement.class, PreparedStatement.class, Statement.class, ResultSet.class, Array.class,
            Blob.class, NClob.class, Clob.class, SQLXML.class, ResultSetMetaData.class, ParameterMetaData.class);
    private static final int DEPTH = 2;

    private final TestDatabase db;
    private final TestPools pools;
    private JdbcPool pool;
    private Connection a;
    private final Set<Object> walked = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Which method gave which class, walked once: the same method's next result of that class adds nothing. */
    private final Set<String> walkedOrigins = new HashSet<>();
    private final Set<String> returned = new TreeSet<>();
    private final List<String> escapes = new ArrayList<>();

    NoPgjdbcObjectEscapesTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeEach
    void open() throws SQLException {
        try (Connection admin = db.connect()) {
            execute(admin, "DROP TABLE IF EXISTS esc_docs, esc_keys");
            execute(admin, "CREATE TABLE esc_docs (doc oid)");
            execute(admin, "INSERT INTO esc_docs VALUES (lo_from_bytea(0, 'large'))");
            execute(admin, "CREATE TABLE esc_keys (id serial PRIMARY KEY, v text)");
            execute(admin, "CREATE OR REPLACE FUNCTION cur_open() RETURNS refcursor LANGUAGE plpgsql AS $$"
                    + " DECLARE c refcursor; BEGIN OPEN c FOR SELECT 1 AS n, ARRAY[3] AS arr; RETURN c; END $$");
        }
        pool = pools.open("escapes", PoolConfig.jdbcDefaults().defaultPoolSize(1).poolMode(PoolMode.TRANSACTION));
        a = pool.getConnection();
        a.setAutoCommit(false);
    }

    @AfterEach
    void close() throws SQLException {
        a.close();
        pools.close();
    }

    @FunctionalInterface
    private interface Root {
        Object make() throws SQLException;
    }

    @Test
    void noObjectReachedFromALogicalConnectionIsPgjdbcsAndEveryOneNamesTheLogicalConnection() throws Exception {
        walked.add(a);
        walkFresh("Connection", () -> a);
        walkFresh("DatabaseMetaData", () -> a.getMetaData());
        walkFresh("Statement(query)", () -> {
            Statement s = a.createStatement();
            s.execute(ROW);
            return s;
        });
        walkFresh("Statement(keys)", () -> {
            Statement s = a.createStatement();
            s.executeUpdate(INSERT, Statement.RETURN_GENERATED_KEYS);
            return s;
        });
        walkFresh("PreparedStatement", () -> {
            PreparedStatement ps = a.prepareStatement(ROW);
            ps.execute();
            return ps;
        });
        walkFresh("CallableStatement", () -> {
            CallableStatement cs = a.prepareCall(CALL);
            cs.registerOutParameter(1, Types.OTHER);
            cs.execute();
            return cs;
        });
        walkFresh("ResultSet", () -> {
            ResultSet rs = a.createStatement().executeQuery(ROW);
            rs.next();
            return rs;
        });
        walkFresh("ResultSet(refcursor)", () -> {
            ResultSet rs = a.createStatement().executeQuery(ROW);
            rs.next();
            ResultSet cursor = (ResultSet) rs.getObject("cur");
            cursor.next();
            return cursor;
        });

        assertEquals(List.of(), escapes);
        for (String expected : List.of("Connection.getMetaData -> DatabaseMetaData",
                "Connection.createArrayOf -> Array", "Connection.createStatement -> Statement",
                "Connection.prepareCall -> Statement", "DatabaseMetaData.getConnection -> Connection",
                "DatabaseMetaData.getTables -> ResultSet", "Statement.getConnection -> Connection",
                "Statement.getResultSet -> ResultSet", "Statement.getGeneratedKeys -> ResultSet",
                "PreparedStatement.getMetaData -> ResultSetMetaData",
                "PreparedStatement.getParameterMetaData -> ParameterMetaData",
                "CallableStatement.getObject -> ResultSet", "ResultSet.getStatement -> Statement",
                "ResultSet.getObject -> ResultSet", "ResultSet.getBlob -> Blob", "ResultSet.getClob -> Clob",
                "ResultSet.getArray -> Array", "Array.getResultSet -> ResultSet", "ResultSet.getSQLXML -> SQLXML",
                "ResultSet.getMetaData -> ResultSetMetaData")) {
            assertTrue(returned.contains(expected), "the walk reached " + expected + "; it reached " + returned);
        }
    }

    /** createArrayOf's array is read completely, as arrays of result sets are, and binds as pgjdbc's does. */
    @Test
    void anArrayMadeByCreateArrayOfBindsOnTheServerConnectionOfTheStatementThatUsesIt() throws SQLException {
        a.setAutoCommit(true);
        Array numbers = a.createArrayOf("int4", new Integer[] {1, null, 3});
        Array words = a.createArrayOf("text", new String[] {"a \"quoted\" word", "back\\slash", "{}"});
        try (PreparedStatement ps = a.prepareStatement("SELECT ?::int4[], ?::text[]")) {
            ps.setArray(1, numbers);
            ps.setArray(2, words);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertArrayEquals(new Integer[] {1, null, 3}, (Object[]) rs.getArray(1).getArray());
                assertArrayEquals(new String[] {"a \"quoted\" word", "back\\slash", "{}"},
                        (Object[]) rs.getArray(2).getArray());
            }
        }
    }

    /** Walks each method of a fresh root object, in a transaction of its own rolled back afterwards. */
    private void walkFresh(String name, Root root) throws Exception {
        Object probe = root.make();
        a.rollback();
        for (Class<?> iface : interfacesOf(probe)) {
            for (Method m : iface.getMethods()) {
                if (!returnsObject(m)) {
                    continue;
                }
                for (Object[] args : argumentsFor(iface, m)) {
                    Object target = root.make();
                    invoke(name, iface, target, m, args, 0);
                    a.rollback();
                }
            }
        }
    }

    private void walk(String path, Object o, int depth) {
        if (!walked.add(o)) {
            return;
        }
        for (Class<?> iface : interfacesOf(o)) {
            for (Method m : iface.getMethods()) {
                if (returnsObject(m)) {
                    for (Object[] args : argumentsFor(iface, m)) {
                        invoke(path, iface, o, m, args, depth);
                    }
                }
            }
        }
    }

    /** Calls one method inside a savepoint, so that an error it causes on the server spoils no later call. */
    private void invoke(String path, Class<?> iface, Object target, Method m, Object[] args, int depth) {
        String where = path + " > " + iface.getSimpleName() + "." + m.getName() + describe(args);
        Object result;
        Savepoint sp = null;
        try {
            sp = a.setSavepoint();
            result = m.invoke(target, args);
        } catch (InvocationTargetException | SQLException e) {
            rollbackTo(sp);
            return;
        } catch (IllegalAccessException e) {
            throw new AssertionError(where, e);
        }
        if (result == null) {
            return;
        }
        returned.add(iface.getSimpleName() + "." + m.getName() + " -> " + kindOf(result));
        inspect(where, result);
        String origin = iface.getName() + "." + m.getName() + Arrays.toString(m.getParameterTypes()) + " -> "
                + result.getClass().getName();
        if (depth < DEPTH && walkedOrigins.add(origin)) {
            walk(where, result, depth + 1);
        }
    }

    private void rollbackTo(Savepoint sp) {
        try {
            if (sp != null) {
                a.rollback(sp);
            } else {
                a.rollback();
            }
        } catch (SQLException e) {
            try {
                a.rollback();
            } catch (SQLException ignored) {
                // The next root starts a transaction of its own.
            }
        }
    }

    private void inspect(String where, Object o) {
        for (Class<?> bound : CONNECTION_BOUND) {
            if (bound.isInstance(o) && o.getClass().getName().startsWith("org.postgresql.")) {
                escapes.add(where + " returned pgjdbc's " + o.getClass().getName());
            }
        }
        try {
            if (o instanceof Connection c && c != a) {
                escapes.add(where + " returned a connection other than the logical one: " + c);
            }
            if (o instanceof Statement s && s.getConnection() != a) {
                escapes.add(where + " returned a statement of another connection: " + s.getConnection());
            }
            if (o instanceof ResultSet rs && !rs.isClosed() && rs.getStatement() != null
                    && rs.getStatement().getConnection() != a) {
                escapes.add(where + " returned a result set of another connection");
            }
        } catch (SQLException e) {
            escapes.add(where + ": its connection could not be asked: " + e);
        }
        if (o instanceof Wrapper w && !(o instanceof Connection)) {
            for (String name : PGJDBC_TYPES) {
                Class<?> type = pgjdbcType(name);
                try {
                    if (w.isWrapperFor(type)) {
                        escapes.add(where + " is a wrapper for " + name);
                    }
                    Object unwrapped = w.unwrap(type);
                    escapes.add(where + " unwraps to " + unwrapped.getClass().getName());
                } catch (SQLException expected) {
                    // Refused: nothing of pgjdbc's comes out.
                }
            }
        }
    }

    private static Class<?> pgjdbcType(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("pgjdbc has no " + name, e);
        }
    }

    private static List<Class<?>> interfacesOf(Object o) {
        List<Class<?>> out = new ArrayList<>();
        for (Class<?> iface : WALKED) {
            if (iface.isInstance(o) && out.stream().noneMatch(iface::isAssignableFrom)) {
                out.add(iface);
            }
        }
        return out;
    }

    private static String kindOf(Object o) {
        for (Class<?> iface : List.of(Connection.class, Statement.class, ResultSet.class, DatabaseMetaData.class,
                ResultSetMetaData.class, ParameterMetaData.class, Array.class, Blob.class, Clob.class, SQLXML.class,
                Savepoint.class)) {
            if (iface.isInstance(o)) {
                return iface.getSimpleName();
            }
        }
        return "value";
    }

    /** Methods that can hand out an object: those returning Object, a java.sql interface or warnings, but unwrap. */
    private static boolean returnsObject(Method m) {
        Class<?> r = m.getReturnType();
        return !Modifier.isStatic(m.getModifiers()) && !m.getName().equals("unwrap")
                && (r == Object.class || r == SQLWarning.class
                        || r.isInterface() && r.getPackageName().equals("java.sql"));
    }

    /** Every combination of plausible arguments: each column for an index or label, each type for a Class. */
    private static List<Object[]> argumentsFor(Class<?> iface, Method m) {
        Class<?>[] types = m.getParameterTypes();
        List<Object[]> combos = new ArrayList<>();
        combos.add(new Object[0]);
        int ints = 0;
        for (int i = 0; i < types.length; i++) {
            List<Object> candidates = candidates(iface, m, types, i, ints);
            if (types[i] == int.class) {
                ints++;
            }
            List<Object[]> next = new ArrayList<>();
            for (Object[] combo : combos) {
                for (Object c : candidates) {
                    Object[] extended = Arrays.copyOf(combo, combo.length + 1);
                    extended[combo.length] = c;
                    next.add(extended);
                }
            }
            combos = next;
        }
        return combos;
    }

    private static List<Object> candidates(Class<?> iface, Method m, Class<?>[] types, int i, int intsBefore) {
        Class<?> t = types[i];
        boolean columnGetter = (iface == ResultSet.class || iface == CallableStatement.class)
                && m.getName().startsWith("get") && i == 0;
        boolean connection = iface == Connection.class;
        if (t == int.class) {
            if (columnGetter) {
                return iface == ResultSet.class ? List.of(1, 2, 3, 4, 5, 6, 7, 8) : List.of(1);
            }
            if (connection) {
                long intParams = Arrays.stream(types).filter(x -> x == int.class).count();
                if (intParams == 1) {
                    return List.of(Statement.RETURN_GENERATED_KEYS);
                }
                return List.of(new int[] {ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY,
                        ResultSet.CLOSE_CURSORS_AT_COMMIT}[intsBefore]);
            }
            return List.of(1);
        }
        if (t == long.class) {
            return List.of(1L);
        }
        if (t == boolean.class) {
            return List.of(false);
        }
        if (t == String.class) {
            if (columnGetter) {
                return iface == ResultSet.class ? List.of((Object[]) LABELS) : List.of("p");
            }
            if (connection) {
                if (m.getName().equals("prepareCall")) {
                    return List.of(CALL);
                }
                if (m.getName().startsWith("prepare")) {
                    return List.of(ROW);
                }
                return List.of("int4");
            }
            if (Statement.class.isAssignableFrom(iface)) {
                return List.of(ROW);
            }
            return Collections.singletonList(null);
        }
        if (t == Class.class) {
            return new ArrayList<>(CLASSES);
        }
        if (t == Map.class) {
            return List.of(Map.of());
        }
        if (t == Calendar.class) {
            return List.of(Calendar.getInstance());
        }
        if (t == Object[].class) {
            return List.of((Object) new Object[] {1, 2});
        }
        if (t == int[].class) {
            return List.of((Object) new int[] {1});
        }
        if (t == String[].class) {
            return connection ? List.of((Object) new String[] {"id"}) : Collections.singletonList(null);
        }
        return Collections.singletonList(null);
    }

    private static String describe(Object[] args) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < args.length; i++) {
            sb.append(i > 0 ? ", " : "").append(args[i] instanceof Class<?> c ? c.getSimpleName() + ".class"
                    : String.valueOf(args[i]));
        }
        return sb.append(')').toString();
    }
}
