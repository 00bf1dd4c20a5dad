package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.parameters.PoolerPrelude;
import io.pgmux.proxy.parameters.PreludedRequest;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.SqlState;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A request of the pooler's own that starts with the prelude (which runs under a client's statement_timeout of a
 * millisecond, and a backend descheduled that long lets it cut the prelude) and was cancelled by no client is sent
 * again; one a client's cancel reached, one inside a transaction block and one without the prelude are answered as
 * the server answered. The cancels here come from pg_cancel_backend once the request sleeps, where a statement
 * timeout's would come at a moment no test can choose; a sequence counts the sends, since nextval is not rolled back
 * with the request.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwnRequestTimeoutTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Sleeps on its first send only. */
    private static final String SLOW_FIRST_TIME =
            "SELECT CASE WHEN pg_catalog.nextval('own_request_sends') = 1 THEN pg_catalog.pg_sleep(60) END";

    private final TestDatabase db;
    private Transport transport;
    private NettyServerConnector connector;
    private ServerConnection server;

    OwnRequestTimeoutTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void startTransport() {
        transport = Transport.create(1);
    }

    @AfterAll
    void stopTransport() {
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void open() throws Exception {
        ServerTarget target = new ServerTarget(db.host(), db.port(), db.name(), null, null, TlsMode.DISABLE);
        connector = new NettyServerConnector(transport, target, db.superuser(),
                new PlaintextSecret(db.superuserPassword()), ServerTls.of(transport.blockingWork(),
                EnumSet.of(TlsMode.DISABLE), null, null, null, null, null), 5_000, 10);
        server = connector.open(new RecordingHandle()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("DROP SEQUENCE IF EXISTS own_request_sends");
            st.execute("CREATE SEQUENCE own_request_sends");
        }
    }

    @AfterEach
    void close() {
        connector.close(server);
    }

    @Test
    void aPreludedRequestACancelCutIsSentAgain() throws Exception {
        CompletionStage<ErrorResponse> running = server.request(preluded(SLOW_FIRST_TIME), null);
        cancelOnceAsleep();
        assertNull(await(running), "the second send's answer");
        assertEquals("2", sends());
    }

    @Test
    void aPreludedRequestCutAtEverySendFailsAfterItsLastTry() throws Exception {
        CompletionStage<ErrorResponse> running = server.request(
                preluded("SELECT pg_catalog.nextval('own_request_sends'), pg_catalog.pg_sleep(60)"), null);
        for (int send = 1; send <= OwnRequest.TRIES; send++) {
            int sent = send;
            Await.until(() -> Long.parseLong(sends()) >= sent, WAIT, "send " + send + " runs");
            cancelOnceAsleep();
        }
        assertCancelled(await(running));
        assertEquals(String.valueOf(OwnRequest.TRIES), sends());
    }

    @Test
    void aPreludedRequestAClientsCancelReachedIsNotSentAgain() throws Exception {
        CompletionStage<ErrorResponse> running = server.request(preluded(SLOW_FIRST_TIME), null);
        awaitAsleep();
        CancelSender sender = new CancelSender(transport, Duration.ofSeconds(5), new ConnectionLog());
        server.cancelSent(sender.send(server.remoteAddress(), server.backendKeyData(), db.name(), db.superuser()));
        assertCancelled(await(running));
        assertEquals("1", sends());
    }

    @Test
    void aPreludedRequestCancelledInsideATransactionBlockIsNotSentAgain() throws Exception {
        assertNull(await(server.query("BEGIN")));
        CompletionStage<ErrorResponse> running = server.request(preluded(SLOW_FIRST_TIME), null);
        cancelOnceAsleep();
        assertCancelled(await(running));
        assertNull(await(server.query("ROLLBACK")));
        assertEquals("1", sends());
    }

    @Test
    void aRequestWithoutThePreludeIsNotSentAgain() throws Exception {
        CompletionStage<ErrorResponse> running = server.query(SLOW_FIRST_TIME);
        cancelOnceAsleep();
        assertCancelled(await(running));
        assertEquals("1", sends());
    }

    private PreludedRequest preluded(String sql) {
        return PoolerPrelude.before(sql, server.parameters().majorVersion());
    }

    private void awaitAsleep() {
        int pid = server.backendKeyData().processId();
        Await.until(() -> {
            try (Connection c = db.connect()) {
                return "1".equals(Sql.value(c, "SELECT count(*)::text FROM pg_catalog.pg_stat_activity WHERE pid = "
                        + pid + " AND wait_event = 'PgSleep'"));
            }
        }, WAIT, "the request sleeps");
    }

    /** As an administrator would, or a statement timeout: no client sent it. */
    private void cancelOnceAsleep() throws Exception {
        awaitAsleep();
        try (Connection c = db.connect()) {
            Sql.value(c, "SELECT pg_catalog.pg_cancel_backend(" + server.backendKeyData().processId() + ")::text");
        }
    }

    private static void assertCancelled(ErrorResponse error) {
        assertNotNull(error, "the cancel's answer");
        assertEquals(SqlState.QUERY_CANCELED, error.sqlState());
    }

    /** How many sends began: nextval's count, seen at once by every session. */
    private String sends() throws Exception {
        try (Connection c = db.connect()) {
            return Sql.value(c, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END::text FROM own_request_sends");
        }
    }

    private static ErrorResponse await(CompletionStage<ErrorResponse> stage) throws Exception {
        return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
