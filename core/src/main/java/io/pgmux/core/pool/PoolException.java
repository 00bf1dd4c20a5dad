package io.pgmux.core.pool;

/** A failure of the pool itself (as opposed to a failure of a query on a server connection). */
public class PoolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PoolException(String message) {
        super(message);
    }

    public PoolException(String message, Throwable cause) {
        super(message, cause);
    }
}
