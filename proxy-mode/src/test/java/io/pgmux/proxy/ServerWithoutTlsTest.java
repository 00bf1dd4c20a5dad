package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * server_tls_sslmode against the fixture's shared PostgreSQL, which answers SSLRequest with 'N' (ssl = off). As in
 * PgBouncer, a server that refuses TLS where the mode requires it is a server that could not be reached: clients
 * wait for it, up to query_wait_timeout, while logins are tried again.
 */
@PostgresTest
class ServerWithoutTlsTest {
    /** query_wait_timeout where a client is to give up on the server, rather than the default 120 s. */
    private static final Duration QUERY_WAIT = Duration.ofSeconds(2);
    /** How long a test waits for a log line or for a client to get in. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private PgMuxProxy proxy;
    @TempDir
    Path directory;

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
        assertEquals("f", serverConnectionSsl());
    }

    @Test
    void underRequireAClientWaitsForTheServerUntilQueryWaitTimeout() {
        start("require");
        PSQLException e = assertThrows(PSQLException.class, () -> ProxyFixture.connect(proxy, db));
        assertEquals("08P01", e.getSQLState());
        assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
    }

    @Test
    void underVerifyFullTheLogSaysServerRefusedSslAsPgBouncersDoes() {
        start("verify-full");
        try (CapturedLog log = CapturedLog.start()) {
            PSQLException e = assertThrows(PSQLException.class, () -> ProxyFixture.connect(proxy, db));
            assertEquals("query_wait_timeout", e.getServerErrorMessage().getMessage());
            assertTrue(log.text().contains("server login failed: server refused SSL (sslmode verify-full)"),
                    log.text());
        }
    }

    @Test
    void aClientWaitingUnderRequireGetsInOnceSetServerTlsSslmodePrefer() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.serverTlsSslMode(TlsMode.REQUIRE)
                .adminUsers(ProxyFixture.USER));
        try (CapturedLog log = CapturedLog.start()) {
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(this::serverConnectionSslOrFail);
            Await.until(() -> log.text().contains("server refused SSL"), WAIT, "a login the server refused TLS");
            assertFalse(waiting.isDone(), "the client waits");
            try (Connection console = ProxyFixture.console(proxy, ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                console.createStatement().execute("SET server_tls_sslmode = prefer");
            }
            assertEquals("f", waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void aClientWaitingUnderRequireGetsInOnceReloadSetsServerTlsSslmodeDisable() throws Exception {
        ProxyFixture.writeUserlist(directory, ProxyFixture.USER, ProxyFixture.PASSWORD);
        Path ini = directory.resolve("pgmux.ini");
        String databases = db.name() + " = host=127.0.0.1 port=" + db.port() + " dbname=" + db.name() + " user="
                + db.superuser() + " password=" + db.superuserPassword();
        String settings = "admin_users = " + ProxyFixture.USER + "\n";
        ProxyFixture.writeIni(ini, databases, 0, settings + "server_tls_sslmode = require\n");
        proxy = ProxyConfigLoader.load(ini).start();
        try (CapturedLog log = CapturedLog.start()) {
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(this::serverConnectionSslOrFail);
            Await.until(() -> log.text().contains("server refused SSL"), WAIT, "a login the server refused TLS");
            assertFalse(waiting.isDone(), "the client waits");
            Files.writeString(ini, Files.readString(ini).replace("server_tls_sslmode = require",
                    "server_tls_sslmode = disable"));
            try (Connection console = ProxyFixture.console(proxy, ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                console.createStatement().execute("RELOAD");
            }
            assertEquals("f", waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
    }

    private void start(String sslmode) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.database(db.name(), ProxyFixture.serverUrl(db) + "?sslmode=" + sslmode)
                        .queryWaitTimeout(QUERY_WAIT));
    }

    /** Whether the pooler's connection to the server, which runs the query, uses TLS ("t" or "f"). */
    private String serverConnectionSsl() throws SQLException {
        try (Connection c = ProxyFixture.connect(proxy, db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private String serverConnectionSslOrFail() {
        try {
            return serverConnectionSsl();
        } catch (SQLException e) {
            throw new CompletionException(e);
        }
    }
}
