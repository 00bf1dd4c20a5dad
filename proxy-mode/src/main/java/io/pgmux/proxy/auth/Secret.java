package io.pgmux.proxy.auth;

/**
 * What is stored for a user: a plaintext password, an md5 hash ({@code md5} + 32 hex digits) or a SCRAM-SHA-256
 * verifier. {@code toString()} never shows the secret.
 */
public sealed interface Secret permits PlaintextSecret, Md5Secret, ScramSecret {

    /**
     * Classifies a stored secret as PgBouncer's {@code get_password_type} does: {@code md5} + 32 lowercase hex
     * digits is an md5 hash, a well-formed SCRAM-SHA-256 verifier is one, anything else is a plaintext password.
     * Unlike PgBouncer, a value that starts like a SCRAM verifier but does not parse is rejected instead of being
     * taken as a password: such a value is a broken copy of a verifier, not what anyone types.
     *
     * @throws IllegalArgumentException for a malformed SCRAM-SHA-256 verifier (the message does not include it)
     */
    static Secret parse(String stored) {
        if (Md5Secret.isMd5Hash(stored)) {
            return new Md5Secret(stored);
        }
        if (stored.startsWith(ScramSecret.PREFIX)) {
            return ScramSecret.parse(stored);
        }
        return new PlaintextSecret(stored);
    }

    /** Whether {@code password}, received in clear (auth_type plain), is this user's password. Constant time. */
    boolean matchesCleartext(String user, String password);
}
