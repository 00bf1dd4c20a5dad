package io.pgmux.proxy.client;

import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.transport.ConnectionSocket;

/**
 * What SHOW CLIENTS shows of one client. Read from another thread than the client's, so a figure may be a
 * moment old.
 *
 * @param ptr the client's number in log lines and SHOW CLIENTS' {@code ptr}, SHOW SERVERS' {@code link}
 * @param state PgBouncer's name: {@code active} (linked to a server), {@code waiting} (for a server),
 *              {@code idle} (neither: between transactions, or before the first)
 * @param requestedAtMillis when the client last sent a message (its connect before the first), PgBouncer's
 *              request_time
 * @param server the server connection linked to the client now, or null
 * @param id the client's number from the proxy's one counter of clients and servers (SHOW CLIENTS, KILL_CLIENT)
 * @param replication {@code none}, {@code logical} or {@code physical}
 */
public record ClientInfo(ConnectionSocket socket, String ptr, String user, String database, String state,
                         long connectedAtMillis, long requestedAtMillis, String applicationName,
                         ServerConnection server, long id, String replication) {
}
