package io.pgmux.proxy.server;

import java.util.Locale;

/** PgBouncer's server_tls_sslmode, the subset pgmux supports. */
public enum TlsMode {
    /** Plain TCP. */
    DISABLE,
    /** Ask for TLS, carry on in plain text if the server declines; the certificate is not verified. */
    PREFER,
    /** Insist on TLS; the certificate is not verified. */
    REQUIRE;

    public static TlsMode fromConfig(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unsupported server_tls_sslmode \"" + value
                    + "\": use disable, prefer or require");
        }
    }
}
