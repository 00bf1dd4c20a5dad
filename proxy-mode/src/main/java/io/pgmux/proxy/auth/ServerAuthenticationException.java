package io.pgmux.proxy.auth;

import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;

/**
 * The pooler could not complete its side of a server's authentication exchange (an unsupported method, no
 * usable password, a server signature that does not verify). Its message is PgBouncer's
 * {@code server login failed: <reason>}, which waiting clients receive. Never contains a secret.
 */
public final class ServerAuthenticationException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String reason;

    public ServerAuthenticationException(String reason) {
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
