package io.pgmux.proxy.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * A SCRAM-SHA-256 verifier as PostgreSQL stores it in {@code pg_authid.rolpassword}:
 * {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}, base64 throughout.
 *
 * <p>A verifier alone cannot log in to a server. The first client that proves it knows the password (a
 * successful SCRAM exchange against this verifier) leaves its {@link ScramKeys} here, and from then on the
 * pooler logs in to servers holding the same verifier with them, as PgBouncer keeps them on the user's
 * credentials. Every client with the right password yields the same keys, so the first one is kept.
 */
public final class ScramSecret implements Secret {
    static final String PREFIX = Scram.MECHANISM + "$";

    private final int iterations;
    private final byte[] salt;
    private final byte[] storedKey;
    private final byte[] serverKey;
    /** Written by a client's login on its event loop, read by server logins on theirs. */
    private volatile ScramKeys passthroughKeys;

    private ScramSecret(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {
        this.iterations = iterations;
        this.salt = salt;
        this.storedKey = storedKey;
        this.serverKey = serverKey;
    }

    /** @throws IllegalArgumentException if {@code verifier} is not well formed (the message does not include it) */
    public static ScramSecret parse(String verifier) {
        if (!verifier.startsWith(PREFIX)) {
            throw malformed("it does not start with " + PREFIX);
        }
        String[] parts = verifier.substring(PREFIX.length()).split("\\$", -1);
        if (parts.length != 2) {
            throw malformed("expected <iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        String[] iterationsAndSalt = parts[0].split(":", -1);
        String[] keys = parts[1].split(":", -1);
        if (iterationsAndSalt.length != 2 || keys.length != 2) {
            throw malformed("expected <iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(iterationsAndSalt[0]);
        } catch (NumberFormatException e) {
            throw malformed("the iteration count is not a number");
        }
        if (iterations < 1) {
            throw malformed("the iteration count must be positive");
        }
        byte[] salt = decode(iterationsAndSalt[1], "salt");
        byte[] storedKey = decode(keys[0], "StoredKey");
        byte[] serverKey = decode(keys[1], "ServerKey");
        if (salt.length == 0 || storedKey.length != Scram.KEY_LENGTH || serverKey.length != Scram.KEY_LENGTH) {
            throw malformed("the salt must not be empty and the keys must have 32 bytes");
        }
        return new ScramSecret(iterations, salt, storedKey, serverKey);
    }

    /** The verifier PostgreSQL would store for {@code password} with this salt and iteration count. */
    public static ScramSecret fromPassword(String password, byte[] salt, int iterations) {
        byte[] saltedPassword = Scram.saltedPassword(password, salt, iterations);
        return new ScramSecret(iterations, salt.clone(),
                Scram.sha256(Scram.clientKey(saltedPassword)), Scram.serverKey(saltedPassword));
    }

    /** A verifier for {@code password} with a fresh random 16-byte salt. */
    public static ScramSecret generate(String password, int iterations, SecureRandom random) {
        byte[] salt = new byte[Scram.SALT_LENGTH];
        random.nextBytes(salt);
        return fromPassword(password, salt, iterations);
    }

    static ScramSecret of(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {
        return new ScramSecret(iterations, salt.clone(), storedKey.clone(), serverKey.clone());
    }

    private static byte[] decode(String base64, String what) {
        try {
            return Scram.fromBase64(base64);
        } catch (IllegalArgumentException e) {
            throw malformed("the " + what + " is not valid base64");
        }
    }

    private static IllegalArgumentException malformed(String why) {
        return new IllegalArgumentException("malformed SCRAM-SHA-256 secret: " + why);
    }

    /** The verifier in PostgreSQL's text form. */
    public String encoded() {
        return PREFIX + iterations + ":" + Scram.base64(salt) + "$" + Scram.base64(storedKey) + ":"
                + Scram.base64(serverKey);
    }

    public int iterations() {
        return iterations;
    }

    byte[] salt() {
        return salt;
    }

    byte[] storedKey() {
        return storedKey;
    }

    byte[] serverKey() {
        return serverKey;
    }

    /** Keeps the keys of a successful client login against this verifier, unless some are kept already. */
    void rememberPassthroughKeys(ScramKeys keys) {
        if (passthroughKeys == null) {
            passthroughKeys = keys;
        }
    }

    /**
     * After RELOAD read the auth file again: the keys a client's login left on {@code previous}, the same verifier
     * read before, stay usable, so passthrough logins go on without waiting for another client.
     */
    public void keepKeysOf(ScramSecret previous) {
        if (previous.passthroughKeys != null && iterations == previous.iterations
                && MessageDigest.isEqual(salt, previous.salt) && MessageDigest.isEqual(storedKey, previous.storedKey)
                && MessageDigest.isEqual(serverKey, previous.serverKey)) {
            rememberPassthroughKeys(previous.passthroughKeys);
        }
    }

    /** The keys of the first client that logged in by SCRAM against this verifier, or null before that. */
    ScramKeys passthroughKeys() {
        return passthroughKeys;
    }

    /** Whether a cleartext password derives this verifier's StoredKey (PgBouncer's scram_verify_plain_password). */
    @Override
    public boolean matchesCleartext(String user, String password) {
        if (password.isEmpty()) {
            return false;
        }
        byte[] saltedPassword = Scram.saltedPassword(password, salt, iterations);
        return MessageDigest.isEqual(storedKey, Scram.sha256(Scram.clientKey(saltedPassword)));
    }

    @Override
    public String toString() {
        return "ScramSecret[iterations=" + iterations + ", redacted]";
    }

}
