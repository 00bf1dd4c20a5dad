package io.pgmux.core.pool;

/**
 * A client gets no server connection because the server refused the pool's login: the login it waited
 * for, or one within {@code server_login_retry} ({@link #isCached()}). The cause is the server's own error
 * (for example an SQLException with SQLSTATE 28P01 or 3D000), so clients see what the server said. A server
 * that is only unavailable (down, restarting) is waited for instead, up to {@code query_wait_timeout}.
 */
public class ServerLoginException extends PoolException {
    private static final long serialVersionUID = 1L;

    private final boolean cached;

    public ServerLoginException(String message, Throwable serverError, boolean cached) {
        super(message, serverError);
        this.cached = cached;
    }

    /**
     * True when this client did not trigger a login itself but got the error of a recent failed login
     * within {@code server_login_retry}.
     */
    public boolean isCached() {
        return cached;
    }
}
