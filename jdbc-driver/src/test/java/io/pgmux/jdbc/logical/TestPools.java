package io.pgmux.jdbc.logical;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.testing.TestDatabase;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.jdbc.pool.JdbcPoolSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * JDBC pools on a test database, each with its own application_name so its backends can be told apart in
 * pg_stat_activity, and the small SQL helpers the logical-connection tests share. {@link #close()} closes
 * the server connections still in use too, so a failed test cannot make the next one wait for a drain.
 */
final class TestPools implements AutoCloseable {
    private final TestDatabase db;
    private final List<JdbcPool> opened = new ArrayList<>();

    TestPools(TestDatabase db) {
        this.db = db;
    }

    JdbcPool open(String applicationName, PoolConfig.Builder config) {
        return open(applicationName, config, new Properties());
    }

    /** A pool logging in as the superuser with {@code ApplicationName} set, plus any further pgjdbc properties. */
    JdbcPool open(String applicationName, PoolConfig.Builder config, Properties driverProperties) {
        return open(applicationName, JdbcPoolSettings.builder().poolConfig(config.poolName(applicationName).build()),
                driverProperties);
    }

    /** As {@link #open(String, PoolConfig.Builder, Properties)}, with settings (session defaults) of the caller. */
    JdbcPool open(String applicationName, JdbcPoolSettings.Builder settings, Properties driverProperties) {
        Properties props = new Properties();
        props.putAll(driverProperties);
        props.setProperty("user", db.superuser());
        props.setProperty("password", db.superuserPassword());
        props.setProperty("ApplicationName", applicationName);
        JdbcPool pool = new JdbcPool(settings.targetUrl(db.jdbcUrl()).driverProperties(props)
                .poolKey(db.name(), db.superuser()).build());
        opened.add(pool);
        return pool;
    }

    @Override
    public void close() {
        for (JdbcPool pool : opened) {
            pool.pool().closeNow();
            pool.close();
        }
        opened.clear();
    }

    static LogicalConnection logical(Connection c) {
        return (LogicalConnection) c;
    }

    /** The backend pid serving this statement, as the server reports it. */
    static int pid(Connection c) throws SQLException {
        return Integer.parseInt(one(c, "SELECT pg_backend_pid()"));
    }

    /** The first column of the one row a query returns, as text (null for SQL NULL). */
    static String one(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                throw new AssertionError("no row from " + sql);
            }
            return rs.getString(1);
        }
    }

    static long count(Connection c, String sql) throws SQLException {
        return Long.parseLong(one(c, sql));
    }

    static void execute(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /**
     * A logical connection inside an open transaction, so it keeps one server connection: the way tests
     * make a pool's other connection the only one free.
     */
    static Held hold(JdbcPool pool) throws SQLException {
        Connection c = pool.getConnection();
        c.setAutoCommit(false);
        return new Held(c, pid(c));
    }

    /**
     * Takes {@code n} server connections of the pool at once, each in a transaction of its own, then gives
     * them all back: afterwards the pool has at least {@code n} idle ones. Returns their backend pids.
     */
    static Set<Integer> takeAtOnce(JdbcPool pool, int n) throws SQLException {
        List<Held> held = new ArrayList<>();
        Set<Integer> pids = new HashSet<>();
        try {
            for (int i = 0; i < n; i++) {
                Held h = hold(pool);
                held.add(h);
                pids.add(h.pid());
            }
        } finally {
            for (Held h : held) {
                h.close();
            }
        }
        return pids;
    }

    /** A logical connection holding a server connection in an open transaction. */
    record Held(Connection connection, int pid) implements AutoCloseable {
        /** Commits, so the server connection goes back to the pool, and closes. */
        @Override
        public void close() throws SQLException {
            try {
                if (!connection.isClosed()) {
                    connection.commit();
                }
            } finally {
                connection.close();
            }
        }
    }
}
