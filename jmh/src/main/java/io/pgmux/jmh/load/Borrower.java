package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How one load thread gets a connection for a request and gives it back: from a pool for every
 * request, or its own connection held for the whole run.
 */
interface Borrower extends AutoCloseable {

    Connection take() throws SQLException;

    /** Gives back what {@link #take()} returned, after a request that ended normally or failed. */
    void giveBack(Connection connection) throws SQLException;

    /** Closes what this thread holds for itself; a pool's connections are closed with the {@link Variant}. */
    @Override
    void close() throws SQLException;
}
