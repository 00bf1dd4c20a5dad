package io.pgmux.core.fleet;

/** The coordination connection failed or the server refused a statement: the member falls back to its fixed share. */
public final class FleetQueryException extends Exception {
    public FleetQueryException(String message, Throwable cause) {
        super(message, cause);
    }
}
