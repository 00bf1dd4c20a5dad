package io.pgmux.proxy;

import static io.pgmux.testing.Sql.execute;
import static io.pgmux.testing.Sql.value;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * A client's own statement_timeout, lock_timeout and idle_in_transaction_session_timeout never cut the pooler's
 * statements on its session (the read of its settings after a SET, the replay for the next client), and the client
 * keeps them.
 */
@PostgresTest
class ClientTimeoutsAndPoolerStatementsTest {
    private static final String QUERY_CANCELED = "57014";
    private final TestDatabase db;
    /** Transaction mode with one server connection, which every client of a test shares in turn. */
    private PgMuxProxy oneServer;

    ClientTimeoutsAndPoolerStatementsTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1).authType(AuthType.PLAIN));
    }

    @AfterEach
    void stop() {
        oneServer.close();
    }

    /** The read of the settings after the SET is long for a client with many: longer than its statement_timeout. */
    @Test
    void aOneMillisecondStatementTimeoutIsKeptAndTheServerConnectionStays() throws Exception {
        try (Connection setter = connect(manySettings()); Connection other = connect(new Properties())) {
            String pid = value(setter, "SELECT pg_catalog.pg_backend_pid()::text");
            execute(setter, "SET statement_timeout = 1");
            assertEquals("0", value(other, "SELECT pg_catalog.current_setting('statement_timeout')"));
            assertEquals("1ms", underItsTimeout(setter, "SELECT pg_catalog.current_setting('statement_timeout')"));
            assertEquals(pid, value(other, "SELECT pg_catalog.pg_backend_pid()::text"));
        }
    }

    /** The replay of a client with many settings is long: longer than the timeouts the previous client left. */
    @Test
    void theTimeoutsAClientLeavesDoNotCutTheNextClientsReplay() throws Exception {
        try (Connection setter = connect(new Properties()); Connection next = connect(manySettings())) {
            execute(setter, "SET statement_timeout = 1");
            execute(setter, "SET lock_timeout = 1");
            execute(setter, "SET idle_in_transaction_session_timeout = 1");
            assertEquals("1ms 1ms 1ms", underItsTimeout(setter, timeouts()));
            assertEquals("0 0 0", value(next, timeouts()));
            assertEquals("v199", value(next, "SELECT pg_catalog.current_setting('x.s199')"));
            assertEquals("1ms 1ms 1ms", underItsTimeout(setter, timeouts()));
        }
    }

    /**
     * The value {@code sql} returns on a client whose own statement_timeout is a millisecond: on a loaded machine its
     * statement may outlast it, an ERROR the client asked for, so it is run again; a FATAL (the pooler's own
     * statement cut) ends the session and the test.
     */
    private static String underItsTimeout(Connection client, String sql) throws SQLException {
        for (int tries = 1; ; tries++) {
            try {
                return value(client, sql);
            } catch (SQLException e) {
                if (!QUERY_CANCELED.equals(e.getSQLState()) || !(e instanceof PSQLException p)
                        || p.getServerErrorMessage() == null || !"ERROR".equals(p.getServerErrorMessage().getSeverity())
                        || tries == 5) {
                    throw e;
                }
            }
        }
    }

    /** Two hundred custom settings in the startup packet. */
    private static Properties manySettings() {
        StringBuilder options = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            options.append("-c x.s").append(i).append("=v").append(i).append(' ');
        }
        Properties properties = new Properties();
        properties.setProperty("options", options.toString().trim());
        return properties;
    }

    private static String timeouts() {
        return "SELECT pg_catalog.current_setting('statement_timeout') || ' ' || pg_catalog.current_setting("
                + "'lock_timeout') || ' ' || pg_catalog.current_setting('idle_in_transaction_session_timeout')";
    }

    private Connection connect(Properties properties) throws SQLException {
        return ProxyFixture.connect(oneServer, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, properties);
    }
}
