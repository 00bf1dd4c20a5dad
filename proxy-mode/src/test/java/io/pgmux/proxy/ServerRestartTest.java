package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server goes away (a fast restart, a stop and a later start, a terminated backend) under clients of the
 * proxy in transaction mode: a client that is not inside a transaction sees no error, its next transaction waits
 * for the server and runs on a new server connection; only a transaction running on the dying server fails.
 * These tests stop the JVM's shared server; the fixture starts it again after the class if a test fails.
 */
@PostgresTest
class ServerRestartTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    ServerRestartTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void startProxy() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(4)
                .queryWaitTimeout(Duration.ofSeconds(60)));
    }

    @AfterEach
    void stop() {
        db.server().start();
        proxy.close();
    }

    @Test
    void anIdleClientRunsItsNextTransactionAfterAFastRestartWithoutAnError() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            int before = backendPid(c);
            db.server().restart();
            assertNotEquals(before, backendPid(c), "served by a new server connection");
        }
    }

    @Test
    void aTransactionStartedWhileTheServerIsDownWaitsForItAndRunsOnceItIsBack() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            backendPid(c);
            db.server().stop();
            CompletableFuture<Integer> waiting = Sql.async(() -> backendPid(c));
            awaitWaitingClients(1);
            assertFalse(waiting.isDone());
            db.server().start();
            assertTrue(waiting.get(30, TimeUnit.SECONDS) > 0);
        }
    }

    /**
     * While the server shuts down it refuses logins with 57P03 "the database system is shutting down", then
     * refuses connections: neither is served to a client that arrives meanwhile as a cached error.
     */
    @Test
    void aClientConnectingWhileTheServerIsDownIsServedOnceItIsBack() throws Exception {
        try (Connection warm = ProxyFixture.connect(proxy, db)) {
            backendPid(warm);
        }
        db.server().stop();
        CompletableFuture<Integer> arriving = Sql.async(() -> {
            try (Connection c = ProxyFixture.connect(proxy, db)) {
                return backendPid(c);
            }
        });
        awaitWaitingClients(1);
        db.server().start();
        assertTrue(arriving.get(30, TimeUnit.SECONDS) > 0);
    }

    @Test
    void onlyTheTransactionRunningWhenTheServerGoesAwayFailsWithTheServersError() throws Exception {
        try (Connection inTransaction = ProxyFixture.connect(proxy, db);
             Connection idle = ProxyFixture.connect(proxy, db)) {
            backendPid(idle);
            inTransaction.setAutoCommit(false);
            backendPid(inTransaction);
            db.server().restart();
            SQLException lost = assertThrows(SQLException.class, () -> backendPid(inTransaction));
            assertEquals("57P01", lost.getSQLState(), lost.getMessage());
            assertTrue(backendPid(idle) > 0, "the client outside a transaction was not touched");
        }
    }

    @Test
    void anIdleClientWhoseServerWasTerminatedRunsItsNextTransactionOnANewOne() throws Exception {
        try (Connection c = ProxyFixture.connect(proxy, db)) {
            int before = backendPid(c);
            assertTrue(db.terminateBackends(Backends.ofUser(db.superuser())) >= 1, "the client's server was terminated");
            assertNotEquals(before, backendPid(c));
        }
    }

    private void awaitWaitingClients(int expected) {
        Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
        Await.equal(expected, pool::getThreadsAwaitingConnection, Duration.ofSeconds(10), "clients waiting");
    }
}
