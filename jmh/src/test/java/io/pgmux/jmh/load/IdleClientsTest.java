package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.Await;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The clients of {@link IdleClientMemory} against a proxy in front of an embedded PostgreSQL. */
class IdleClientsTest {
    private static final String USER = "idle";
    private static final String PASSWORD = "idle-secret";
    private static BenchServer server;

    @BeforeAll
    static void startServer() throws IOException {
        server = BenchServer.fromOptions(LoadOptions.parse(new String[0], Set.of("url")));
    }

    @AfterAll
    static void stopServer() throws IOException {
        server.close();
    }

    private static PgMuxProxy proxy(AuthType auth) {
        return PgMuxProxy.builder()
                .listen("127.0.0.1", 0)
                .database("bench", server.proxyUrl())
                .poolMode(PoolMode.TRANSACTION)
                .defaultPoolSize(2)
                .authType(auth)
                .users(Map.of(USER, PASSWORD))
                .drainTimeout(java.time.Duration.ofSeconds(1))
                .threads(1)
                .start();
    }

    /** Every password auth type: {@code cert} logs in by TLS client certificate, which the raw login has not. */
    @ParameterizedTest
    // cert needs client certificates; any, hba, reject and peer need a forced user, an hba file or a Unix socket
    @EnumSource(value = AuthType.class, names = {"CERT", "ANY", "HBA", "REJECT", "PEER"},
            mode = EnumSource.Mode.EXCLUDE)
    void aRawClientLogsInWithEveryAuthTypeAndStaysIdle(AuthType auth) throws Exception {
        try (PgMuxProxy proxy = proxy(auth);
                Socket socket = RawLogin.login("127.0.0.1", proxy.port(), "bench", USER, PASSWORD)) {
            assertEquals(1, proxy.clientCount());
            // idle: the proxy neither sends it anything nor closes it (a closed socket reads -1 at once)
            socket.setSoTimeout(200);
            assertThrows(SocketTimeoutException.class, () -> socket.getInputStream().read());
            assertEquals(1, proxy.clientCount());
        }
    }

    @Test
    void aWrongPasswordFailsWithTheProxysError() {
        try (PgMuxProxy proxy = proxy(AuthType.SCRAM_SHA_256)) {
            IOException e = assertThrows(IOException.class,
                    () -> RawLogin.login("127.0.0.1", proxy.port(), "bench", USER, "wrong"));
            assertTrue(e.getMessage().contains("authentication failed"), e.getMessage());
        }
    }

    @Test
    void aRawClientRunsItsQueryOnTheServerBeforeIdling() throws Exception {
        try (PgMuxProxy proxy = proxy(AuthType.SCRAM_SHA_256)) {
            RawLogin.login("127.0.0.1", proxy.port(), "bench", USER, PASSWORD, "SELECT 1").close();
            IOException e = assertThrows(IOException.class,
                    () -> RawLogin.login("127.0.0.1", proxy.port(), "bench", USER, PASSWORD, "SELECT 1/0"));
            assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
        }
    }

    @Test
    void theClientProcessHoldsItsClientsUntilItIsClosed() throws Exception {
        try (PgMuxProxy proxy = proxy(AuthType.SCRAM_SHA_256)) {
            try (ClientProcess clients = ClientProcess.start(List.of("--port", Integer.toString(proxy.port()),
                    "--database", "bench", "--user", USER, "--password", PASSWORD, "--clients", "3",
                    "--threads", "2"))) {
                assertEquals(3, proxy.clientCount());
            }
            Await.equal(0, proxy::clientCount, Duration.ofSeconds(10), "clients still connected");
        }
    }
}
