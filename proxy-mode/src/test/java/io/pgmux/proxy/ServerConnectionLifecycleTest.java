package io.pgmux.proxy;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the proxy opens and closes its server connections, seen from the server: server_idle_timeout,
 * server_lifetime, min_pool_size and the reserve pool, with backend pids from pg_stat_activity.
 */
@PostgresTest
class ServerConnectionLifecycleTest {
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(10);

    private final TestDatabase db;
    private PgMuxProxy proxy;

    ServerConnectionLifecycleTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private void start(Consumer<ProxyBuilder> settings) {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, settings);
    }

    @Test
    void serverIdleTimeoutClosesAServerLeftIdleWhileItsClientStaysConnected() throws Exception {
        start(b -> b.set("server_idle_timeout", "1"));
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            int server = backendPid(client);
            assertTrue(db.awaitBackendExit(server, CLOSED_WITHIN), "backend " + server + " still runs");
            assertNotEquals(server, backendPid(client), "the next transaction gets a new server connection");
        }
    }

    @Test
    void serverLifetimeClosesAServerOnceReleasedAfterItsLifetime() throws Exception {
        start(b -> b.set("server_lifetime", "1"));
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            client.setAutoCommit(false);
            int server = backendPid(client);
            try (Statement s = client.createStatement()) {
                // the transaction outlives the server's lifetime on the server's own clock
                s.execute("SELECT pg_sleep(1.5)");
            }
            assertEquals(server, backendPid(client), "a server in a transaction is not taken from its client");
            client.commit();
            assertTrue(db.awaitBackendExit(server, CLOSED_WITHIN), "backend " + server + " still runs");
            client.setAutoCommit(true);
            assertNotEquals(server, backendPid(client), "the next transaction gets a new server connection");
        }
    }

    /** PgBouncer's server_lifetime = 0: a server connection serves one client, then closes. */
    @Test
    void serverLifetimeOfZeroClosesEachServerAfterItsClientUsedIt() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.SESSION, b -> b.set("server_lifetime", "0"));
        int first;
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            first = backendPid(client);
        }
        assertTrue(db.awaitBackendExit(first, CLOSED_WITHIN), "backend " + first + " still runs");
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            assertNotEquals(first, backendPid(client), "the next client gets a new server connection");
        }
    }

    /**
     * At least min_pool_size, and at most one more: the first client's login may need a server for its welcome while
     * the pool's first fill is still logging in, and open it.
     */
    @Test
    void minPoolSizeOpensServersBeforeAnyQuery() throws Exception {
        start(b -> b.set("min_pool_size", "2"));
        try (Connection client = ProxyFixture.connect(proxy, db)) {
            long deadline = System.nanoTime() + CLOSED_WITHIN.toNanos();
            int backends = db.countConnections(Backends.ofUser(db.superuser()));
            while (backends < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
                backends = db.countConnections(Backends.ofUser(db.superuser()));
            }
            assertTrue(backends >= 2 && backends <= 3, backends + " server connections");
            assertTrue(ProxyFixture.pool(proxy, db).getTotalConnections() >= 2,
                    ProxyFixture.pool(proxy, db).getTotalConnections() + " in the pool");
        }
    }

    @Test
    void aClientWaitingLongerThanReservePoolTimeoutGetsAServerFromTheReservePool() throws Exception {
        start(b -> b.defaultPoolSize(1).set("reserve_pool_size", "1").set("reserve_pool_timeout", "0.2"));
        try (Connection holder = ProxyFixture.connect(proxy, db);
             Connection waiting = ProxyFixture.connect(proxy, db)) {
            holder.setAutoCommit(false);
            int held = backendPid(holder);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> {
                try {
                    return backendPid(waiting);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            int reserve = second.get(10, TimeUnit.SECONDS);
            assertNotEquals(held, reserve, "a second server although the pool's size is 1");
            assertEquals(held, backendPid(holder), "the first client kept its server meanwhile");
            holder.commit();
        }
    }
}
