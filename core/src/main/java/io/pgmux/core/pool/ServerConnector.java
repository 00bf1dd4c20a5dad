package io.pgmux.core.pool;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Opens, checks, resets and closes server connections of type {@code S} for one pool. The engine never
 * blocks on these calls: each returns a stage that the implementation completes from its own thread
 * (a Netty event loop, or an executor for blocking drivers).
 */
public interface ServerConnector<S> {

    /**
     * Opens and logs in a new server connection. Fails with the server's own error when the login is
     * refused; that error reaches the clients waiting on the pool. {@code handle} lets the connection
     * report later that it broke while idle.
     */
    CompletionStage<S> open(ServerHandle handle);

    /**
     * Opens and logs in a server connection for one client alone, with {@code startupParameters} added to the
     * pool's own login (PgBouncer's replication connections); by default there is no such connection.
     */
    default CompletionStage<S> openDedicated(ServerHandle handle, Map<String, String> startupParameters) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "this connector opens no dedicated server connection"));
    }

    /** Checks that an idle connection still works ({@code server_check_query}); completes false if not. */
    CompletionStage<Boolean> test(S server, String checkQuery);

    /** Clears session state before reuse ({@code server_reset_query}). */
    CompletionStage<Void> reset(S server, String resetQuery);

    /** Closes the connection; must not throw. */
    void close(S server);

    /** Closes the connection for {@code reason} (e.g. {@code server_idle_timeout reached}), to log; must not throw. */
    default void close(S server, String reason) {
        close(server);
    }

    /**
     * What the connection is bound to, such as the event loop that runs it; clients that ask for the same
     * affinity get it in preference to others, so that a client and its server connection can share a thread.
     * Null (the default) means none. Read once, when the connection has logged in.
     */
    default Object affinity(S server) {
        return null;
    }

    /**
     * Whether a login failed because the server is unavailable for now (unreachable, refusing connections,
     * shutting down or starting up: {@link ServerGoingAway}) rather than because it refused this login (a wrong
     * password, no such database). The pool then keeps clients waiting and tries again after a short back-off;
     * a refusal instead fails them at once and is not retried for server_login_retry.
     */
    default boolean isTransientLoginFailure(Throwable failure) {
        return false;
    }
}
