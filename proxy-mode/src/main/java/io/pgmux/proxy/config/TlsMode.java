package io.pgmux.proxy.config;

import java.util.Locale;

/** PgBouncer's server_tls_sslmode, with libpq's sslmode values and meanings. */
public enum TlsMode {
    /** Plain TCP; TLS is not even asked for. */
    DISABLE("disable"),
    /**
     * Plain TCP first; only when the server refuses that login (SQLSTATE class 28, say a pg_hba.conf with
     * hostssl lines only) the login is tried again over TLS, as libpq does. The certificate is not verified.
     */
    ALLOW("allow"),
    /** Ask for TLS, carry on in plain text if the server declines; the certificate is not verified. */
    PREFER("prefer"),
    /** Insist on TLS; the certificate is not verified. */
    REQUIRE("require"),
    /** Insist on TLS and a certificate chain that server_tls_ca_file trusts; any host name. */
    VERIFY_CA("verify-ca"),
    /** As {@link #VERIFY_CA}, and the certificate must name the host connected to (SAN, or CN without SAN). */
    VERIFY_FULL("verify-full");

    private final String configName;

    TlsMode(String configName) {
        this.configName = configName;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static TlsMode fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (TlsMode mode : values()) {
            if (mode.configName.equals(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unsupported sslmode \"" + value
                + "\": use disable, allow, prefer, require, verify-ca or verify-full");
    }

    /** The name in pgbouncer.ini and connection strings, e.g. {@code verify-full}. */
    public String configName() {
        return configName;
    }

    /** Whether the login fails rather than go on in plain text. */
    public boolean requiresTls() {
        return compareTo(REQUIRE) >= 0;
    }

    /** Whether the server's certificate chain is checked against the trusted CAs. */
    public boolean verifiesCertificate() {
        return compareTo(VERIFY_CA) >= 0;
    }

    @Override
    public String toString() {
        return configName;
    }
}
