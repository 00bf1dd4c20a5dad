package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.StandbyPair;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A [databases] entry listing a primary and its standby with target_session_attrs=read-write follows the primary
 * when the standby is promoted and the old primary stops: clients that were idle see no error.
 */
class ProxyFailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private StandbyPair pair;
    private PgMuxProxy proxy;

    @BeforeEach
    void start() {
        pair = StandbyPair.start();
        pair.executeOnPrimary("CREATE TABLE ledger (n int)");
        // a promotion before the standby replayed the table would lose it, which is not what the test is about
        pair.awaitStandbyCaughtUp();
        // a failed login is not tried again for a minute: only the login's own search can serve the clients
        String ini = "[databases]\napp = host=" + pair.host() + "," + pair.host() + " port=" + pair.primaryPort() + ","
                + pair.standbyPort() + " dbname=postgres user=" + pair.superuser()
                + " target_session_attrs=read-write\n"
                + "[pgbouncer]\npool_mode = transaction\nserver_login_retry = 60\nserver_connect_timeout = 20\n";
        proxy = ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(1)
                .start();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (pair != null) {
            pair.close();
        }
    }

    private Connection connect() throws SQLException {
        return ProxyFixture.connect(proxy, "app", ProxyFixture.USER, ProxyFixture.PASSWORD, new Properties());
    }

    private static int insertAndReadPort(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO ledger VALUES (1)");
            try (ResultSet rs = st.executeQuery("SELECT inet_server_port()")) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void anIdleClientRunsItsNextTransactionOnThePromotedStandby() throws Exception {
        try (Connection c = connect()) {
            assertEquals(pair.primaryPort(), insertAndReadPort(c));

            pair.promoteStandby();
            pair.stopPrimary();

            assertEquals(pair.standbyPort(), insertAndReadPort(c));
        }
    }

    @Test
    void aClientWhileNoHostIsPrimaryWaitsForThePromotionInsteadOfFailing() throws Exception {
        try (Connection c = connect()) {
            assertEquals(pair.primaryPort(), insertAndReadPort(c));
            pair.stopPrimary();
            int standbyLogins = pair.standbyLogins();
            CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
                try {
                    return insertAndReadPort(c);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // the proxy has found the standby not to be the primary at least once before it is promoted
            pair.awaitStandbyLogin(standbyLogins, port);
            pair.promoteStandby();

            assertEquals(pair.standbyPort(), port.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }
}
