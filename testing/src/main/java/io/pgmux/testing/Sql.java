package io.pgmux.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;

/** The few statements tests run on a connection they hold, to see which server answers and what it says. */
public final class Sql {
    private Sql() {
    }

    /** A JDBC call run by another thread. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws SQLException;
    }

    /** Runs {@code sql} on {@code c}, whatever it returns. */
    public static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The process id of the server backend that answers on {@code c} now. */
    public static int backendPid(Connection c) throws SQLException {
        return Integer.parseInt(value(c, "SELECT pg_backend_pid()"));
    }

    /** The first column of the first row {@code sql} returns on {@code c}, as text; null when it returns no row. */
    public static String value(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /**
     * Runs {@code call} on a thread of its own, so that a test can hold a client that waits (for a server, a lock)
     * while it looks on; a dedicated thread, not the common pool, which on a small machine runs one task at a time.
     */
    public static <T> CompletableFuture<T> async(Call<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "sql-async");
        thread.setDaemon(true);
        thread.start();
        return result;
    }
}
