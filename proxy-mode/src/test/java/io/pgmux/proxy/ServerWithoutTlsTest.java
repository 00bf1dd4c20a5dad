package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** server_tls_sslmode against the fixture's shared PostgreSQL, which answers SSLRequest with 'N' (ssl = off). */
@PostgresTest
class ServerWithoutTlsTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    ServerWithoutTlsTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void preferCarriesOnInPlainText() throws SQLException {
        start("prefer");
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            rs.next();
            assertEquals("f", rs.getString(1));
        }
    }

    @Test
    void requireFailsTheLoginSayingTheServerRefusedTls() {
        start("require");
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("server login failed: server refused TLS (sslmode require)"),
                e.getMessage());
    }

    @Test
    void verifyFullFailsTheLoginSayingTheServerRefusedTls() {
        start("verify-full");
        SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("server login failed: server refused TLS (sslmode verify-full)"),
                e.getMessage());
    }

    private void start(String sslmode) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.database(db.name(), ProxyFixture.serverUrl(db) + "?sslmode=" + sslmode));
    }
}
