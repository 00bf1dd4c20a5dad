package io.pgmux.core.pool;

/** A client waited {@code query_wait_timeout} for a server connection and got none. */
public class PoolTimeoutException extends PoolException {
    private static final long serialVersionUID = 1L;

    private final long waitedNanos;

    public PoolTimeoutException(String message, long waitedNanos, Throwable lastLoginFailure) {
        super(message, lastLoginFailure);
        this.waitedNanos = waitedNanos;
    }

    public long waitedNanos() {
        return waitedNanos;
    }
}
