package io.pgmux.core.fleet;

import java.util.List;

/**
 * The coordination connection of one fleet member, as {@link PostgresFleetCoordinator} needs it: SQL with text
 * parameters, rows as text. Each face implements it over its own server connections (pgjdbc in the JDBC driver,
 * the proxy's own protocol code in the proxy), so that the coordination's logic is written once. Used by one
 * thread at a time, the member's heartbeat thread, which it may block.
 */
public interface FleetSession extends AutoCloseable {
    /**
     * Runs one statement, its parameters {@code $1}, {@code $2}, … in that order, each once, sent as text (the
     * statement casts them), and returns its rows, each column as text or null; no rows for a statement that
     * returns none. Waits at most the timeout the session was opened with.
     */
    List<String[]> query(String sql, String... parameters) throws FleetQueryException;

    /** Closes the connection; never throws. */
    @Override
    void close();
}
