package io.pgmux.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fixture's own superuser connection, to the server's maintenance database (never a test database, so
 * it is never among the backends a test counts). Reopened whenever it has died, e.g. across a restart;
 * one caller at a time, since tests may call helpers from several threads.
 */
final class AdminConnection {

    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    @FunctionalInterface
    interface Work<T> {
        T apply(Connection connection) throws SQLException;
    }

    private static final int VALIDATION_TIMEOUT_SECONDS = 5;

    private final Opener opener;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection;

    AdminConnection(Opener opener) {
        this.opener = opener;
    }

    <T> T call(String what, Work<T> work) {
        lock.lock();
        try {
            return work.apply(open());
        } catch (SQLException e) {
            throw new IllegalStateException("could not " + what + ": " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException e) {
            // The server may already be gone; there is nothing left to release.
        } finally {
            connection = null;
            lock.unlock();
        }
    }

    private Connection open() throws SQLException {
        if (connection == null || !connection.isValid(VALIDATION_TIMEOUT_SECONDS)) {
            close();
            connection = opener.open();
        }
        return connection;
    }
}
