package io.pgmux.proxy.auth;

/**
 * The ClientKey and ServerKey of a user, recovered when a client authenticated by SCRAM against a stored
 * verifier. With them the pooler can log in to a PostgreSQL server holding the same verifier (same salt and
 * iterations) without knowing the password: PgBouncer's SCRAM passthrough.
 */
public final class ScramKeys {
    private final byte[] clientKey;
    private final byte[] serverKey;

    public ScramKeys(byte[] clientKey, byte[] serverKey) {
        if (clientKey.length != Scram.KEY_LENGTH || serverKey.length != Scram.KEY_LENGTH) {
            throw new IllegalArgumentException("SCRAM-SHA-256 keys have 32 bytes");
        }
        this.clientKey = clientKey.clone();
        this.serverKey = serverKey.clone();
    }

    byte[] clientKey() {
        return clientKey;
    }

    byte[] serverKey() {
        return serverKey;
    }

    @Override
    public String toString() {
        return "ScramKeys[redacted]";
    }
}
