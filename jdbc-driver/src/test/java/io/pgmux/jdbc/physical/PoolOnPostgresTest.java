package io.pgmux.jdbc.physical;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.pool.ServerLoginException;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The core engine pooling real pgjdbc connections to a real PostgreSQL. */
@PostgresTest
class PoolOnPostgresTest {
    private final TestDatabase db;
    private PoolRegistry<PhysicalConnection> registry;

    PoolOnPostgresTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closeRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    private Pool<PhysicalConnection> pool(String applicationName, PoolConfig config) {
        return pool(applicationName, config, db.superuser(), db.superuserPassword());
    }

    private Pool<PhysicalConnection> pool(String applicationName, PoolConfig config, String user, String password) {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("ApplicationName", applicationName);
        registry = PoolRegistry.<PhysicalConnection>builder()
                .connector(new PgjdbcConnector(db.jdbcUrl(), props)).config(config).build();
        return registry.pool(db.name(), user);
    }

    private static int backendPid(Lease<PhysicalConnection> lease) throws SQLException {
        try (Statement st = lease.connection().connection().createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aPoolOfFiveKeepsExactlyFiveBackendsUnderFiftyClients() throws Exception {
        Pool<PhysicalConnection> pool = pool("pgmux-load", PoolConfig.jdbcDefaults().defaultPoolSize(5).build());
        int clients = 50;
        CountDownLatch done = new CountDownLatch(clients);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicInteger transactions = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        for (int i = 0; i < clients; i++) {
            new Thread(() -> {
                try {
                    for (int n = 0; n < 20; n++) {
                        Lease<PhysicalConnection> lease = pool.acquire();
                        try (Statement st = lease.connection().connection().createStatement()) {
                            st.execute("SELECT pg_sleep(0.002)");
                            transactions.incrementAndGet();
                        } finally {
                            lease.release();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    done.countDown();
                }
            }).start();
        }
        int maxSeen = 0;
        while (!done.await(20, TimeUnit.MILLISECONDS)) {
            maxSeen = Math.max(maxSeen, db.countConnections(Backends.withApplicationName("pgmux-load")));
        }
        running.set(false);
        assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        assertEquals(clients * 20, transactions.get());
        assertEquals(5, maxSeen, "pg_stat_activity never shows more than the pool size, and the pool filled up");
        assertEquals(5, db.countConnections(Backends.withApplicationName("pgmux-load")));
        assertEquals(5, pool.getTotalConnections());
    }

    @Test
    void aRestartedServerIsRecoveredFromWithoutTheClientSeeingAnError() throws Exception {
        Pool<PhysicalConnection> pool = pool("pgmux-restart", PoolConfig.jdbcDefaults().defaultPoolSize(3)
                .serverCheckDelay(Duration.ZERO).build());
        Lease<PhysicalConnection> before = pool.acquire();
        int pidBefore = backendPid(before);
        before.release();

        db.server().restart();

        Lease<PhysicalConnection> after = pool.acquire();
        int pidAfter = backendPid(after);
        after.release();
        assertNotEquals(pidBefore, pidAfter, "the dead connection failed its check and was replaced");
        assertEquals(1, pool.getTotalConnections());
    }

    @Test
    void aConnectionKilledWhileLeasedIsDiscardedAndReplaced() throws Exception {
        Pool<PhysicalConnection> pool = pool("pgmux-kill", PoolConfig.jdbcDefaults().defaultPoolSize(1).build());
        Lease<PhysicalConnection> lease = pool.acquire();
        db.terminateBackends(Backends.withApplicationName("pgmux-kill"));
        SQLException e = assertThrows(SQLException.class, () -> backendPid(lease));
        assertTrue(e.getSQLState().startsWith("08") || e.getSQLState().startsWith("57"), e.getSQLState());
        lease.discard(e);

        Lease<PhysicalConnection> next = pool.acquire();
        assertTrue(backendPid(next) > 0);
        next.release();
    }

    @Test
    void aWrongPasswordFailsTheWaitingClientAtOnceWithTheServersError() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        Pool<PhysicalConnection> pool = pool("pgmux-badlogin", PoolConfig.jdbcDefaults()
                .queryWaitTimeout(Duration.ofSeconds(30)).build(), user.name(), user.password() + "-wrong");
        long start = System.nanoTime();
        ServerLoginException e = assertThrows(ServerLoginException.class, pool::acquire);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        SQLException serverError = assertInstanceOf(SQLException.class, e.getCause());
        assertEquals("28P01", serverError.getSQLState());
        assertTrue(tookMillis < 10_000, "failed fast, not after query_wait_timeout: " + tookMillis + " ms");
    }

    @Test
    void theEnginesSessionResetLeavesTheTrackedSessionStateTrue() throws Exception {
        Pool<PhysicalConnection> pool = pool("pgmux-reset", PoolConfig.jdbcDefaults().defaultPoolSize(1)
                .poolMode(io.pgmux.core.config.PoolMode.SESSION).build());
        Lease<PhysicalConnection> first = pool.acquire();
        first.connection().schema("pg_catalog");
        first.release();
        Await.equal(0, () -> pool.view().snapshot().svTested, Duration.ofSeconds(10),
                "the reset of the first lease never finished");

        Lease<PhysicalConnection> second = pool.acquire();
        second.connection().schema("pg_catalog");
        try (Statement st = second.connection().connection().createStatement();
             ResultSet rs = st.executeQuery("SELECT current_schema()")) {
            rs.next();
            assertEquals("pg_catalog", rs.getString(1), "DISCARD ALL reset the server; the tracker must know it");
        } finally {
            second.release();
        }
    }
}
