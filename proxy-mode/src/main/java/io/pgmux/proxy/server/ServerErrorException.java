package io.pgmux.proxy.server;

import io.pgmux.proxy.protocol.ErrorResponse;

/**
 * The server (or the pooler while logging in to it) refused with {@code error}; clients waiting for the
 * connection receive exactly this error.
 */
public final class ServerErrorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ErrorResponse error;

    public ServerErrorException(ErrorResponse error) {
        // PgBouncer's words in its "server login failed: FATAL database \"x\" does not exist" line
        super(error.severity() + " " + error.message(), null, false, false);
        this.error = error;
    }

    public ErrorResponse error() {
        return error;
    }

    /** The ServerErrorException in {@code failure}'s cause chain, or null. */
    public static ServerErrorException find(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ServerErrorException found) {
                return found;
            }
        }
        return null;
    }
}
