package io.pgmux.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * pgmux's own calls on a logical connection, through {@code connection.unwrap(PgMuxConnection.class)}.
 */
public interface PgMuxConnection extends Connection {

    /**
     * With readRouting=replicas and readYourWrites: a token that carries this connection's read-your-writes
     * position, for another connection, in this process or another, to {@link #applyReadYourWritesToken apply}
     * (an HTTP header's value: ASCII letters, digits, dots and dashes). It names the cluster (its system
     * identifier and timeline) and the WAL position after this connection's last write.
     *
     * @throws SQLException {@code 0A000} without read routing and readYourWrites; a server's error
     */
    String readYourWritesToken() throws SQLException;

    /**
     * This connection's read-only transactions see at least what the connection that made {@code token} had
     * committed when it made it, as they see this connection's own writes.
     *
     * @throws SQLException {@code 22023} for a token that is garbled, of another cluster, or names a WAL position
     *                      the primary has not reached; nothing changes then
     */
    void applyReadYourWritesToken(String token) throws SQLException;
}
