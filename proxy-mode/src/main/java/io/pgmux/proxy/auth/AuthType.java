package io.pgmux.proxy.auth;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * How clients prove who they are: PgBouncer's {@code auth_type} values, and the methods of its hba file.
 * Which stored secrets each accepts follows PgBouncer:
 * <ul>
 *   <li>{@code trust}: no password; the user must still be in the auth file (or found by auth_query).</li>
 *   <li>{@code plain}: cleartext password, checked against any secret (plaintext, md5 hash or SCRAM verifier).</li>
 *   <li>{@code md5}: md5 challenge with a plaintext or md5 secret. A user whose secret is a SCRAM verifier is
 *       asked for SCRAM instead: an md5 answer cannot be checked against a verifier.</li>
 *   <li>{@code scram-sha-256}: SCRAM with a SCRAM verifier or a plaintext secret (a verifier is derived).
 *       An md5 secret cannot work and the login fails.</li>
 *   <li>{@code cert}: no password; the common name of the client's TLS certificate is the user name (or maps to
 *       it through an hba line's {@code map=}), and the user must still be known. Needs client_tls_sslmode
 *       verify-ca or verify-full.</li>
 *   <li>{@code any}: no password and no user check; every database must name the user the pooler logs in as.</li>
 *   <li>{@code hba}: the method comes from the first matching line of auth_hba_file.</li>
 *   <li>{@code reject} and {@code peer}: hba methods only, as in PgBouncer. {@code peer} takes a Unix socket client
 *   whose uid's name in /etc/passwd is the user name (or maps to it through the line's {@code map=}), and the user
 *   must still be known.</li>
 * </ul>
 * PgBouncer's {@code pam} and {@code ldap} are refused when the configuration is read.
 */
public enum AuthType {
    TRUST("trust"),
    PLAIN("plain"),
    MD5("md5"),
    SCRAM_SHA_256("scram-sha-256"),
    CERT("cert"),
    ANY("any"),
    HBA("hba"),
    REJECT("reject"),
    PEER("peer");

    private static final Set<AuthType> GLOBAL = EnumSet.of(TRUST, PLAIN, MD5, SCRAM_SHA_256, CERT, ANY, HBA);

    private final String configName;

    AuthType(String configName) {
        this.configName = configName;
    }

    /** The name used in pgbouncer.ini. */
    public String configName() {
        return configName;
    }

    /** Parses an {@code auth_type} value. */
    public static AuthType fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (AuthType type : GLOBAL) {
            if (type.configName.equals(name)) {
                return type;
            }
        }
        if (name.equals("pam") || name.equals("ldap")) {
            throw new IllegalArgumentException("auth_type \"" + name + "\" is not supported by pgmux: it has no "
                    + name.toUpperCase(Locale.ROOT) + " client; use hba, scram-sha-256, md5, cert, plain, trust or any");
        }
        String peer = name.equals("peer") ? " (peer is a method of auth_hba_file's local lines, as in PgBouncer)" : "";
        throw new IllegalArgumentException("unsupported auth_type \"" + value
                + "\": use trust, plain, md5, scram-sha-256, cert, any or hba" + peer);
    }

    /** Parses the method of an hba line ({@code password} is {@code plain}); null for one pgmux does not take. */
    static AuthType fromHba(String method) {
        return switch (method) {
            case "trust" -> TRUST;
            case "reject" -> REJECT;
            case "md5" -> MD5;
            case "password" -> PLAIN;
            case "scram-sha-256" -> SCRAM_SHA_256;
            case "cert" -> CERT;
            case "peer" -> PEER;
            default -> null;
        };
    }

    /** The method actually used for a user with {@code secret}: md5 becomes SCRAM for a SCRAM verifier. */
    public AuthType effectiveFor(Secret secret) {
        return this == MD5 && secret instanceof ScramSecret ? SCRAM_SHA_256 : this;
    }
}
