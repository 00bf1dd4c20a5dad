package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** When server_check_query runs, counted on the server: the check query takes a number from a sequence. */
@PostgresTest
class ServerCheckTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    ServerCheckTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void createCounter() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DROP SEQUENCE IF EXISTS server_checks");
            s.execute("CREATE SEQUENCE server_checks");
        }
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /**
     * server_check_delay = 0 checks a released connection before every reuse, as PgBouncer does: not a
     * connection just logged in (whose parameters welcomed the client), nor one just checked.
     */
    @Test
    void withServerCheckDelayZeroEveryTransactionButTheFirstOnANewServerRunsOneCheck() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1)
                .set("server_check_delay", "0")
                .set("server_check_query", "SELECT nextval('server_checks')"));
        try (RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            for (int i = 0; i < 3; i++) {
                client.query("SELECT 1");
                client.readUntilReady();
            }
        }
        assertEquals(2, checksRun());
    }

    private long checksRun() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM server_checks")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
