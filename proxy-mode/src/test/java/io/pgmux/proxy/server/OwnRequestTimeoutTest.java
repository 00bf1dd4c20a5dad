package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.SqlState;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A request of the pooler's own that the session's statement_timeout cancelled (a client's timeout of a
 * millisecond, on a backend descheduled that long) is sent again; one a client's cancel reached is answered with
 * that cancel. A temporary sequence counts the sends: nextval is not rolled back with the request.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwnRequestTimeoutTest {
    /** Sleeps on its first send only. */
    private static final String SLOW_FIRST_TIME =
            "SELECT CASE WHEN pg_catalog.nextval('sends') = 1 THEN pg_catalog.pg_sleep(5) END";

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
        assertNull(await(server.query("CREATE TEMPORARY SEQUENCE sends")));
    }

    @AfterEach
    void close() {
        connector.close(server);
    }

    @Test
    void aRequestTheStatementTimeoutCancelledIsSentAgain() throws Exception {
        assertNull(await(server.query("SET statement_timeout = 50")));
        assertNull(await(server.query(SLOW_FIRST_TIME)), "the second send's answer");
        assertEquals("2", sends());
    }

    @Test
    void aRequestTheStatementTimeoutCancelsEachTimeFailsAfterItsLastTry() throws Exception {
        assertNull(await(server.query("SET statement_timeout = 50")));
        ErrorResponse error = await(server.query("SELECT pg_catalog.nextval('sends'), pg_catalog.pg_sleep(5)"));
        assertNotNull(error);
        assertEquals(SqlState.QUERY_CANCELED, error.sqlState());
        assertEquals(String.valueOf(OwnRequest.TRIES), sends());
    }

    @Test
    void aRequestAClientsCancelReachedIsNotSentAgain() throws Exception {
        CompletionStage<ErrorResponse> running = server.query(SLOW_FIRST_TIME);
        Thread.sleep(200); // the sleep has begun
        CancelSender sender = new CancelSender(transport, Duration.ofSeconds(5), new ConnectionLog());
        server.cancelSent(sender.send(server.remoteAddress(), server.backendKeyData(), db.name(), db.superuser()));
        ErrorResponse error = await(running);
        assertNotNull(error, "the cancel's answer");
        assertEquals(SqlState.QUERY_CANCELED, error.sqlState());
        assertEquals("1", sends());
    }

    @Test
    void aRequestCancelledInsideATransactionBlockIsNotSentAgain() throws Exception {
        assertNull(await(server.query("BEGIN; SET LOCAL statement_timeout = 50")));
        ErrorResponse error = await(server.query(SLOW_FIRST_TIME));
        assertNotNull(error, "the transaction is aborted: nothing sent again could run");
        assertNull(await(server.query("ROLLBACK")));
        assertEquals("1", sends());
    }

    private String sends() throws Exception {
        List<String[]> rows = new ArrayList<>();
        assertNull(await(server.query("RESET statement_timeout; SELECT last_value::text FROM sends", rows)));
        return rows.get(0)[0];
    }

    private static ErrorResponse await(CompletionStage<ErrorResponse> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
