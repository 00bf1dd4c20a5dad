package io.pgmux.proxy.auth;

import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;

/**
 * Logging in to a server failed on the pooler's side: its message is PgBouncer's
 * {@code server login failed: <reason>}, which waiting clients receive. Never contains a secret.
 */
public final class ServerLoginException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String reason;

    public ServerLoginException(String reason) {
        super("server login failed: " + reason);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }

    /** The FATAL 08P01 error for the clients waiting on this login. */
    public ErrorResponse toErrorResponse() {
        return PoolerError.serverLoginFailed(reason);
    }
}
