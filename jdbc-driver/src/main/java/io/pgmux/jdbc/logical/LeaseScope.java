package io.pgmux.jdbc.logical;

import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One loan of a server connection to a logical connection, as seen by a value pgjdbc handed out during it.
 * Such values (a Blob, a Clob, the result set of a refcursor or of an array) keep pgjdbc's server connection
 * and run queries on it later; once the loan has ended that connection may be in another client's
 * transaction, so they may be used only while the loan lasts: in the transaction that read them, or longer
 * while something else (an open result set, a pin, session mode) keeps the server connection.
 */
final class LeaseScope {
    /** SQLSTATE object_not_in_prerequisite_state, which pgjdbc gives a freed large object too. */
    static final String OBJECT_NOT_IN_STATE = "55000";

    private final LogicalConnection conn;
    private final long number;

    private LeaseScope(LogicalConnection conn, long number) {
        this.conn = conn;
        this.number = number;
    }

    /** The loan {@code conn} holds now; callers hold one, as they have just read a value through it. */
    static LeaseScope current(LogicalConnection conn) {
        return new LeaseScope(conn, conn.lease());
    }

    LogicalConnection connection() {
        return conn;
    }

    /** Whether the server connection of this loan is still the logical connection's. */
    boolean lasts() {
        return conn.currentPhysical() != null && conn.lease() == number;
    }

    /** The error for a value, named by {@code what}, used after its loan ended. */
    static SQLException ended(String what, String sqlState) {
        return new SQLException(what + " was read in a transaction that has ended: it can be used only in that"
                + " transaction, or while a result set of the same connection keeps it open", sqlState);
    }

    /** pgjdbc's error for a large object used after free(). */
    static SQLException freed() {
        return new SQLException("free() was called on this LOB previously", OBJECT_NOT_IN_STATE);
    }

    /** A call on a value of this loan. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws SQLException;
    }

    /**
     * Runs a call that reaches pgjdbc's server connection, under the logical connection's lock so that the
     * loan cannot end while it runs; refused once the loan has ended.
     */
    <T> T call(String what, Call<T> call) throws SQLException {
        conn.checkOpen();
        conn.lock();
        try {
            if (!lasts()) {
                throw ended(what, OBJECT_NOT_IN_STATE);
            }
            conn.used();
            try {
                return call.run();
            } catch (SQLException e) {
                throw conn.failed(e);
            }
        } finally {
            conn.unlock();
        }
    }

    /**
     * What the application gets for a value pgjdbc returned to {@code conn}, which holds the loan it was read
     * in: an array read completely, a large object or a refcursor's result set bound to that loan, anything
     * else as it is. {@code statement} is what a refcursor's result set names as its statement. No allocation
     * for a plain value.
     */
    static Object handOut(Object value, LogicalConnection conn, Statement statement) throws SQLException {
        if (value instanceof Array array) {
            return new DetachedArray(array, current(conn));
        }
        if (value instanceof Blob blob) {
            return new LeaseBoundBlob(current(conn), blob);
        }
        if (value instanceof Clob clob) {
            return new LeaseBoundClob(current(conn), clob);
        }
        if (value instanceof ResultSet rs) {
            return new LeaseBoundResultSet(current(conn), statement, rs);
        }
        return value;
    }
}
