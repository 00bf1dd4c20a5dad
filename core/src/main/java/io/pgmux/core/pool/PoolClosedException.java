package io.pgmux.core.pool;

/** The pool is shutting down and takes no new work. */
public class PoolClosedException extends PoolException {
    private static final long serialVersionUID = 1L;

    public PoolClosedException(String message) {
        super(message);
    }
}
