package io.pgmux.proxy.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * A password stored in clear. It works with every auth type. For SCRAM a verifier is derived once with a
 * random salt and kept, so repeated logins cost one key derivation instead of two (PgBouncer caches it too).
 * An empty password matches nothing.
 */
public final class PlaintextSecret implements Secret {
    private final String password;
    private volatile ScramSecret scramSecret;

    public PlaintextSecret(String password) {
        this.password = password;
    }

    public String password() {
        return password;
    }

    public boolean isEmpty() {
        return password.isEmpty();
    }

    @Override
    public boolean matchesCleartext(String user, String candidate) {
        return !password.isEmpty() && MessageDigest.isEqual(
                password.getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8));
    }

    /** The stored md5 form, {@code md5(password + user)}. */
    public Md5Secret md5Secret(String user) {
        return new Md5Secret(Md5Password.encrypt(password, user));
    }

    /** A SCRAM verifier for this password, derived on first use with a random salt. */
    ScramSecret scramSecret(int iterations, SecureRandom random) {
        ScramSecret secret = scramSecret;
        if (secret == null || secret.iterations() != iterations) {
            secret = ScramSecret.generate(password, iterations, random);
            scramSecret = secret;
        }
        return secret;
    }

    @Override
    public String toString() {
        return "PlaintextSecret[redacted]";
    }
}
