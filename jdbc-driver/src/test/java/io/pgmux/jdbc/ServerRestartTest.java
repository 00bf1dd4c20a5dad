package io.pgmux.jdbc;

import static io.pgmux.testing.Sql.backendPid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server goes away under a PgMuxDataSource (a fast restart, a stop and a later start): a logical connection
 * that is not inside a transaction sees no error, its next transaction waits up to connectionTimeout for the
 * server and runs on a new server connection; only a transaction running on the dying server fails. A server
 * that refuses the login fails the borrow at once with its own error and SQLSTATE. These tests stop the JVM's
 * shared server; the fixture starts it again after the class if a test fails.
 */
@PostgresTest
class ServerRestartTest {
    private final TestDatabase db;
    private final List<PgMuxDataSource> opened = new ArrayList<>();

    ServerRestartTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closeAll() {
        db.server().start();
        opened.forEach(PgMuxDataSource::close);
    }

    private PgMuxDataSource dataSource(String user, String password, long connectionTimeoutMs) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(db.jdbcUrl());
        ds.setUsername(user);
        ds.setPassword(password);
        ds.setMaximumPoolSize(4);
        ds.setConnectionTimeout(connectionTimeoutMs);
        opened.add(ds);
        return ds;
    }

    private PgMuxDataSource dataSource() {
        return dataSource(db.superuser(), db.superuserPassword(), 60_000);
    }

    @Test
    void anIdleLogicalConnectionRunsItsNextTransactionAfterAFastRestartWithoutAnError() throws Exception {
        try (Connection c = dataSource().getConnection()) {
            int before = backendPid(c);
            db.server().restart();
            assertNotEquals(before, backendPid(c), "served by a new server connection");
        }
    }

    @Test
    void aTransactionStartedWhileTheServerIsDownWaitsForItAndRunsOnceItIsBack() throws Exception {
        PgMuxDataSource ds = dataSource();
        try (Connection c = ds.getConnection()) {
            backendPid(c);
            db.server().stop();
            CompletableFuture<Integer> waiting = Sql.async(() -> backendPid(c));
            awaitWaiting(ds.getPoolMXBean(), 1);
            assertFalse(waiting.isDone());
            db.server().start();
            assertTrue(waiting.get(30, TimeUnit.SECONDS) > 0);
        }
    }

    @Test
    void aLogicalConnectionOpenedWhileTheServerIsDownIsServedOnceItIsBack() throws Exception {
        PgMuxDataSource ds = dataSource();
        try (Connection warm = ds.getConnection()) {
            backendPid(warm);
        }
        db.server().stop();
        CompletableFuture<Integer> arriving = Sql.async(() -> {
            try (Connection c = ds.getConnection()) {
                return backendPid(c);
            }
        });
        awaitWaiting(ds.getPoolMXBean(), 1);
        db.server().start();
        assertTrue(arriving.get(30, TimeUnit.SECONDS) > 0);
    }

    @Test
    void aServerDownLongerThanConnectionTimeoutFailsTheStatementWith08001AndTheLastLoginFailure()
            throws Exception {
        PgMuxDataSource ds = dataSource(db.superuser(), db.superuserPassword(), 1_000);
        try (Connection c = ds.getConnection()) {
            backendPid(c);
            db.server().stop();
            SQLException e = assertThrows(SQLException.class, () -> backendPid(c));
            assertInstanceOf(SQLTransientConnectionException.class, e);
            assertEquals("08001", e.getSQLState());
            assertTrue(e.getMessage().contains("query_wait_timeout"), e.getMessage());
            SQLException lastLogin = e.getNextException();
            assertNotNull(lastLogin, "the last login failure is chained");
            assertEquals("08001", lastLogin.getSQLState(), lastLogin.getMessage());
        }
    }

    @Test
    void onlyTheTransactionRunningWhenTheServerGoesAwayFails() throws Exception {
        PgMuxDataSource ds = dataSource();
        try (Connection inTransaction = ds.getConnection(); Connection idle = ds.getConnection()) {
            backendPid(idle);
            inTransaction.setAutoCommit(false);
            backendPid(inTransaction);
            db.server().restart();
            SQLException lost = assertThrows(SQLException.class, () -> backendPid(inTransaction));
            assertTrue(lost.getSQLState().startsWith("08") || lost.getSQLState().equals("57P01"),
                    lost.getSQLState() + " " + lost.getMessage());
            inTransaction.rollback();
            assertTrue(backendPid(inTransaction) > 0, "after its rollback the connection works again");
            assertTrue(backendPid(idle) > 0, "the connection outside a transaction was not touched");
        }
    }

    /** The server's own error and SQLSTATE, for the borrow whose login it refused and within server_login_retry. */
    @Test
    void aRefusedLoginFailsAtOnceWithTheServersErrorWithoutAPoolersPrefix() throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        PgMuxDataSource ds = dataSource(user.name(), user.password() + "-wrong", 60_000);
        ds.setInitializationFailTimeout(-1);
        String serverError = "FATAL: password authentication failed for user \"" + user.name() + "\"";
        for (int borrow = 1; borrow <= 2; borrow++) {
            long start = System.nanoTime();
            try (Connection c = ds.getConnection()) {
                SQLException e = assertThrows(SQLException.class, () -> backendPid(c));
                assertInstanceOf(SQLNonTransientConnectionException.class, e);
                assertEquals("28P01", e.getSQLState(), "borrow " + borrow);
                assertEquals(serverError, e.getMessage(), "borrow " + borrow);
            }
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "not after connectionTimeout");
        }
    }

    private static void awaitWaiting(PgMuxPoolMXBean pool, int expected) {
        Await.equal(expected, pool::getThreadsAwaitingConnection, Duration.ofSeconds(10), "borrowers waiting");
    }
}
