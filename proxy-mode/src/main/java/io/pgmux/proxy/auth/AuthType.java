package io.pgmux.proxy.auth;

import java.util.Locale;

/**
 * How clients prove who they are: PgBouncer's {@code auth_type} values that work with an auth file.
 * Which stored secrets each accepts follows PgBouncer:
 * <ul>
 *   <li>{@code trust}: no password; the user must still be in the auth file.</li>
 *   <li>{@code plain}: cleartext password, checked against any secret (plaintext, md5 hash or SCRAM verifier).</li>
 *   <li>{@code md5}: md5 challenge with a plaintext or md5 secret. A user whose secret is a SCRAM verifier is
 *       asked for SCRAM instead: an md5 answer cannot be checked against a verifier.</li>
 *   <li>{@code scram-sha-256}: SCRAM with a SCRAM verifier or a plaintext secret (a verifier is derived).
 *       An md5 secret cannot work and the login fails.</li>
 *   <li>{@code cert}: no password; the common name of the client's TLS certificate is the user name, and the user
 *       must still be in the auth file. Needs client_tls_sslmode verify-ca or verify-full.</li>
 * </ul>
 */
public enum AuthType {
    TRUST("trust"),
    PLAIN("plain"),
    MD5("md5"),
    SCRAM_SHA_256("scram-sha-256"),
    CERT("cert");

    private final String configName;

    AuthType(String configName) {
        this.configName = configName;
    }

    /** The name used in pgbouncer.ini. */
    public String configName() {
        return configName;
    }

    /** Parses an {@code auth_type} value; other PgBouncer values (hba, pam, ldap, any) are not supported. */
    public static AuthType fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (AuthType type : values()) {
            if (type.configName.equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("unsupported auth_type \"" + value
                + "\": use trust, plain, md5, scram-sha-256 or cert");
    }

    /** The method actually used for a user with {@code secret}: md5 becomes SCRAM for a SCRAM verifier. */
    public AuthType effectiveFor(Secret secret) {
        return this == MD5 && secret instanceof ScramSecret ? SCRAM_SHA_256 : this;
    }
}
