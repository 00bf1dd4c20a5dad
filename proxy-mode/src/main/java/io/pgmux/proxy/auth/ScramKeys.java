package io.pgmux.proxy.auth;

/**
 * The ClientKey and ServerKey of a user, recovered when a client authenticated by SCRAM against a stored
 * verifier, with the salt and iteration count they were derived with. With them the pooler can log in to a
 * PostgreSQL server holding the same verifier without knowing the password: PgBouncer's SCRAM passthrough.
 * A server whose verifier has another salt or iteration count derives other keys, so the login cannot work.
 */
public final class ScramKeys {
    private final byte[] clientKey;
    private final byte[] serverKey;
    private final byte[] salt;
    private final int iterations;

    ScramKeys(byte[] clientKey, byte[] serverKey, byte[] salt, int iterations) {
        if (clientKey.length != Scram.KEY_LENGTH || serverKey.length != Scram.KEY_LENGTH) {
            throw new IllegalArgumentException("SCRAM-SHA-256 keys have 32 bytes");
        }
        this.clientKey = clientKey.clone();
        this.serverKey = serverKey.clone();
        this.salt = salt.clone();
        this.iterations = iterations;
    }

    byte[] clientKey() {
        return clientKey;
    }

    byte[] serverKey() {
        return serverKey;
    }

    byte[] salt() {
        return salt;
    }

    int iterations() {
        return iterations;
    }

    @Override
    public String toString() {
        return "ScramKeys[iterations=" + iterations + ", redacted]";
    }
}
