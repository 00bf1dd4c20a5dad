package io.pgmux.proxy.auth;

/**
 * A SCRAM exchange failed: malformed message, wrong nonce, wrong proof or signature. The message says why,
 * for the log; it never contains key material. Clients are told only "SASL authentication failed".
 */
public final class ScramException extends Exception {
    private static final long serialVersionUID = 1L;

    public ScramException(String message) {
        super(message);
    }
}
