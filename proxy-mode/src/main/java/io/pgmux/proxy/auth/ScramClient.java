package io.pgmux.proxy.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The client side of one SCRAM-SHA-256 exchange, for logging in to PostgreSQL: client-first-message,
 * client-final-message with the proof, and verification of the server's signature (a server that cannot
 * prove it knows the verifier is not trusted). Like libpq it sends no channel binding ({@code n,,}) and an
 * empty user name (PostgreSQL takes the user from the startup packet). Key derivation costs one PBKDF2 run
 * with the server's iteration count, unless it is built from {@link ScramKeys}.
 */
public final class ScramClient {
    private static final String GS2_HEADER = "n,,";
    private static final String GS2_HEADER_BASE64 = "biws";

    private enum State { SERVER_FIRST, SERVER_FINAL, DONE }

    private final String password;
    private final ScramKeys keys;
    private final String clientNonce;
    private final String clientFirstBare;
    private State state = State.SERVER_FIRST;
    private byte[] expectedServerSignature;
    private boolean verified;

    ScramClient(String password, ScramKeys keys, String user, String clientNonce) {
        this.password = password;
        this.keys = keys;
        this.clientNonce = clientNonce;
        this.clientFirstBare = "n=" + user.replace("=", "=3D").replace(",", "=2C") + ",r=" + clientNonce;
    }

    public static ScramClient withPassword(String password, SecureRandom random) {
        if (password.isEmpty()) {
            throw new IllegalArgumentException("SCRAM needs a non-empty password");
        }
        return new ScramClient(password, null, "", Scram.nonce(random));
    }

    /**
     * Logs in with keys recovered from a client's SCRAM login (passthrough); the server must hold the same
     * verifier, and one with another salt or iteration count is refused at its server-first-message.
     */
    public static ScramClient withKeys(ScramKeys keys, SecureRandom random) {
        return new ScramClient(null, keys, "", Scram.nonce(random));
    }

    /** The mechanism name to put in SASLInitialResponse. */
    public static String mechanism() {
        return Scram.MECHANISM;
    }

    public String clientFirstMessage() {
        return GS2_HEADER + clientFirstBare;
    }

    /** Reads server-first-message, returns client-final-message. */
    public String handleServerFirst(String serverFirst) throws ScramException {
        if (state != State.SERVER_FIRST) {
            throw new ScramException("received a second server-first-message");
        }
        state = State.DONE;
        Attributes attributes = new Attributes(serverFirst);
        if (attributes.peek() == 'm') {
            throw new ScramException("server requires an unsupported SCRAM extension");
        }
        String nonce = attributes.next('r');
        if (nonce.length() <= clientNonce.length() || !nonce.startsWith(clientNonce)) {
            throw new ScramException("invalid SCRAM response (nonce mismatch)");
        }
        byte[] salt;
        try {
            salt = Scram.fromBase64(attributes.next('s'));
        } catch (IllegalArgumentException e) {
            throw new ScramException("malformed SCRAM message (invalid salt)");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(attributes.next('i'));
        } catch (NumberFormatException e) {
            throw new ScramException("malformed SCRAM message (invalid iteration count)");
        }
        if (salt.length == 0 || iterations < 1) {
            throw new ScramException("malformed SCRAM message (invalid salt or iteration count)");
        }
        attributes.skipExtensions();

        byte[] clientKey;
        byte[] serverKey;
        if (keys != null) {
            // Keys from another salt or count cannot match; say why instead of sending a proof the server refuses.
            if (iterations != keys.iterations() || !Arrays.equals(salt, keys.salt())) {
                throw new ScramException("SCRAM passthrough impossible: the server's verifier has another "
                        + (iterations != keys.iterations() ? "iteration count (" + iterations + ", the auth file's "
                        + keys.iterations() + ")" : "salt") + " than the auth file's; put the server's"
                        + " pg_authid.rolpassword in the auth file");
            }
            clientKey = keys.clientKey();
            serverKey = keys.serverKey();
        } else {
            byte[] saltedPassword = Scram.saltedPassword(password, salt, iterations);
            clientKey = Scram.clientKey(saltedPassword);
            serverKey = Scram.serverKey(saltedPassword);
        }
        String withoutProof = "c=" + GS2_HEADER_BASE64 + ",r=" + nonce;
        byte[] authMessage = Scram.authMessage(clientFirstBare, serverFirst, withoutProof);
        byte[] proof = Scram.xor(clientKey, Scram.hmac(Scram.sha256(clientKey), authMessage));
        expectedServerSignature = Scram.hmac(serverKey, authMessage);
        state = State.SERVER_FINAL;
        return withoutProof + ",p=" + Scram.base64(proof);
    }

    /** Reads server-final-message and checks the server signature. */
    public void handleServerFinal(String serverFinal) throws ScramException {
        if (state != State.SERVER_FINAL) {
            throw new ScramException("received server-final-message out of order");
        }
        state = State.DONE;
        Attributes attributes = new Attributes(serverFinal);
        if (attributes.peek() == 'e') {
            throw new ScramException("error received from server in SCRAM exchange: " + attributes.next('e'));
        }
        byte[] signature;
        try {
            signature = Scram.fromBase64(attributes.next('v'));
        } catch (IllegalArgumentException e) {
            throw new ScramException("malformed SCRAM message (malformed server signature)");
        }
        if (!MessageDigest.isEqual(signature, expectedServerSignature)) {
            throw new ScramException("invalid server signature");
        }
        verified = true;
    }

    /** Whether the server's signature has been verified. */
    public boolean isComplete() {
        return verified;
    }
}
