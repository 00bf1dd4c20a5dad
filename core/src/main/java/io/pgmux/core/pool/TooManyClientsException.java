package io.pgmux.core.pool;

/** {@code max_client_conn} clients are already connected. */
public class TooManyClientsException extends PoolException {
    private static final long serialVersionUID = 1L;

    public TooManyClientsException(String message) {
        super(message);
    }
}
