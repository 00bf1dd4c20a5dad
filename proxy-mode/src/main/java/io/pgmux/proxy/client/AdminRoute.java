package io.pgmux.proxy.client;

import io.netty.channel.Channel;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.server.ServerConnection;
import java.util.Map;

/**
 * Where a client whose startup names the admin console's virtual database goes once it has logged in, and
 * which databases the console has disabled. {@link #NONE} for a proxy without a console.
 */
public interface AdminRoute {
    AdminRoute NONE = new AdminRoute() {
        @Override
        public boolean isConsole(String database) {
            return false;
        }

        @Override
        public boolean isDisabled(String database) {
            return false;
        }

        @Override
        public void clientJoins(Pool<ServerConnection> pool) {
            // nothing is paused without a console
        }

        @Override
        public ErrorResponse admit(String user) {
            throw new IllegalStateException("no admin console");
        }

        @Override
        public void open(Channel channel, long id, String user,
                Map<String, String> startupParameters) {
            throw new IllegalStateException("no admin console");
        }

        @Override
        public void openForOwner(Channel channel, long id, String user,
                Map<String, String> startupParameters) {
            throw new IllegalStateException("no admin console");
        }
    };

    /** The database name is the console's ({@code pgbouncer} or {@code pgmux}). */
    boolean isConsole(String database);

    /** DISABLE refused new clients of the database. */
    boolean isDisabled(String database);

    /** A client logged in to {@code pool}: a pool made after PAUSE, KILL or SUSPEND pauses too. */
    void clientJoins(Pool<ServerConnection> pool);

    /** Null when {@code user} may use the console, otherwise the FATAL error to close with. */
    ErrorResponse admit(String user);

    /**
     * Takes the logged-in channel over, whose codec serves no connection any more: the session is added behind it
     * and keeps the client's {@code id} (SHOW CLIENTS, KILL_CLIENT).
     */
    void open(Channel channel, long id, String user, Map<String, String> startupParameters);

    /**
     * As {@link #open}, with every right of an admin_users member, for the OS user running the pooler on the Unix
     * socket, whatever admin_users says (PgBouncer's rule).
     */
    void openForOwner(Channel channel, long id, String user,
            Map<String, String> startupParameters);
}
