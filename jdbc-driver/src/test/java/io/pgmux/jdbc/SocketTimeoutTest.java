package io.pgmux.jdbc;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/** pgjdbc's socketTimeout holds on every server connection a logical connection borrows, as in pgjdbc. */
@PostgresTest
class SocketTimeoutTest {
    private static final AtomicInteger APPLICATIONS = new AtomicInteger();

    private final TestDatabase database;
    private final String application = "pgmux-socket-timeout-" + APPLICATIONS.incrementAndGet();

    SocketTimeoutTest(TestDatabase database) {
        this.database = database;
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    private Connection connect(String prefix, String query) throws SQLException {
        String url = prefix + database.jdbcUrl().substring("jdbc:".length()) + "?ApplicationName=" + application
                + "&" + query;
        return DriverManager.getConnection(url, database.superuser(), database.superuserPassword());
    }

    private static SQLException sleepFails(Connection c, int seconds) {
        return assertThrows(SQLException.class, () -> {
            try (Statement st = c.createStatement()) {
                st.execute("SELECT pg_sleep(" + seconds + ")");
            }
        });
    }

    @Test
    void aQueryOutlastingSocketTimeoutFailsAsWithPgjdbcAndThePoolHeals() throws Exception {
        SQLException direct;
        try (Connection plain = connect("jdbc:", "socketTimeout=2")) {
            direct = sleepFails(plain, 10);
        }
        try (Connection c = connect("jdbc:pgmux:", "socketTimeout=2&maximumPoolSize=1")) {
            int before = backendPid(c);
            SQLException pooled = sleepFails(c, 10);
            assertEquals(direct.getSQLState(), pooled.getSQLState(), pooled.toString());
            assertEquals(direct.getMessage(), pooled.getMessage());

            int after = backendPid(c);
            assertNotEquals(before, after, "the broken server connection is replaced");
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TEMP TABLE t ON COMMIT DROP AS SELECT 1 AS x");
            }
            c.commit();
        }
        // The timed-out backends (pgjdbc's and the pool's) lost their clients: a cancel ends each now rather than
        // when pg_sleep returns, while a backend whose client were still connected would stay and be counted. The
        // pool's one replacement stays.
        cancelSleeps();
        assertEquals(1, database.awaitConnections(Backends.withApplicationName(application), 1,
                Duration.ofSeconds(30)));
    }

    private void cancelSleeps() throws SQLException {
        try (Connection admin = database.connect(); PreparedStatement st = admin.prepareStatement(
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = ?"
                        + " AND state = 'active' AND query LIKE 'SELECT pg_sleep%'")) {
            st.setString(1, application);
            st.executeQuery().close();
        }
    }

    @Test
    void everyLogicalConnectionStartsWithTheUrlsSocketTimeout() throws SQLException {
        try (Connection c = connect("jdbc:pgmux:", "socketTimeout=2&maximumPoolSize=1")) {
            assertEquals(2000, c.getNetworkTimeout());
            assertEquals(2000, ((Connection) c.unwrap(PGConnection.class)).getNetworkTimeout());
        }
    }

    @Test
    void setNetworkTimeoutHoldsForItsLogicalConnectionOnly() throws SQLException {
        try (Connection first = connect("jdbc:pgmux:", "socketTimeout=2&maximumPoolSize=1")) {
            first.setNetworkTimeout(Runnable::run, 7000);
            int shared = backendPid(first);
            assertEquals(7000, first.getNetworkTimeout());
            try (Connection second = connect("jdbc:pgmux:", "socketTimeout=2&maximumPoolSize=1")) {
                assertEquals(2000, second.getNetworkTimeout());
                PGConnection pg = second.unwrap(PGConnection.class);
                assertEquals(shared, pg.getBackendPID(), "the pool's one server connection");
                assertEquals(2000, ((Connection) pg).getNetworkTimeout());
            }
            assertEquals(7000, ((Connection) first.unwrap(PGConnection.class)).getNetworkTimeout());
        }
    }

    @Test
    void theDataSourceTakesSocketTimeoutFromItsProperties() throws SQLException {
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl(database.jdbcUrl());
            ds.setUsername(database.superuser());
            ds.setPassword(database.superuserPassword());
            ds.addDataSourceProperty("socketTimeout", "3");
            try (Connection c = ds.getConnection()) {
                assertEquals(3000, c.getNetworkTimeout());
                assertEquals(3000, ((Connection) c.unwrap(PGConnection.class)).getNetworkTimeout());
            }
        }
    }
}
