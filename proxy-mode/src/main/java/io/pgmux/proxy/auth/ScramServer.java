package io.pgmux.proxy.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The server side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677) against a stored verifier. No channel
 * binding: only SCRAM-SHA-256 is advertised, so a client may send gs2 flag {@code n} or {@code y} (it supports
 * binding but we did not offer it) and one that requires binding ({@code p=}) is refused. An authorization
 * identity is refused as PostgreSQL refuses it; the SCRAM user name is ignored, the startup packet's counts.
 *
 * <p>A <em>mock</em> exchange (unknown user) answers like a real one, with a salt derived from the user name,
 * and always fails at the proof, so that a client cannot probe which users exist.
 */
public final class ScramServer {
    private static final String NO_BINDING_HEADER = "biws"; // base64("n,,")
    private static final String UNUSED_BINDING_HEADER = "eSws"; // base64("y,,")

    private enum State { CLIENT_FIRST, CLIENT_FINAL, DONE }

    private final ScramSecret secret;
    private final boolean mock;
    private final String serverNonce;
    private State state = State.CLIENT_FIRST;
    private char bindingFlag;
    private String clientFirstBare;
    private String serverFirst;
    private String fullNonce;
    private ScramKeys keys;

    ScramServer(ScramSecret secret, boolean mock, String serverNonce) {
        this.secret = secret;
        this.mock = mock;
        this.serverNonce = serverNonce;
    }

    /** An exchange against {@code secret}. */
    public static ScramServer of(ScramSecret secret, SecureRandom random) {
        return new ScramServer(secret, false, Scram.nonce(random));
    }

    /** An exchange for an unknown user, indistinguishable on the wire from a real one until it fails. */
    public static ScramServer mock(byte[] mockSalt, int iterations, SecureRandom random) {
        byte[] key = new byte[Scram.KEY_LENGTH];
        random.nextBytes(key);
        return new ScramServer(ScramSecret.of(iterations, mockSalt, key, key), true, Scram.nonce(random));
    }

    /** Reads client-first-message, returns server-first-message. */
    public String handleClientFirst(String clientFirst) throws ScramException {
        expect(State.CLIENT_FIRST);
        state = State.DONE;
        if (clientFirst.isEmpty()) {
            throw new ScramException("malformed SCRAM message (empty client-first-message)");
        }
        bindingFlag = clientFirst.charAt(0);
        if (bindingFlag == 'p') {
            throw new ScramException("client requires SCRAM channel binding, but it is not supported");
        }
        if (bindingFlag != 'n' && bindingFlag != 'y') {
            throw new ScramException("malformed SCRAM message (unexpected channel-binding flag)");
        }
        if (clientFirst.length() < 3 || clientFirst.charAt(1) != ',') {
            throw new ScramException("malformed SCRAM message (comma expected after channel-binding flag)");
        }
        if (clientFirst.charAt(2) == 'a') {
            throw new ScramException("client uses authorization identity, but it is not supported");
        }
        if (clientFirst.charAt(2) != ',') {
            throw new ScramException("malformed SCRAM message (unexpected attribute in gs2 header)");
        }
        clientFirstBare = clientFirst.substring(3);
        Attributes attributes = new Attributes(clientFirstBare);
        if (attributes.peek() == 'm') {
            throw new ScramException("client requires an unsupported SCRAM extension");
        }
        attributes.next('n');
        String clientNonce = attributes.next('r');
        if (clientNonce.isEmpty() || !isPrintable(clientNonce)) {
            throw new ScramException("malformed SCRAM message (invalid client nonce)");
        }
        attributes.skipExtensions();
        fullNonce = clientNonce + serverNonce;
        serverFirst = "r=" + fullNonce + ",s=" + Scram.base64(secret.salt()) + ",i=" + secret.iterations();
        state = State.CLIENT_FINAL;
        return serverFirst;
    }

    /** Reads client-final-message, verifies the proof, returns server-final-message. */
    public String handleClientFinal(String clientFinal) throws ScramException {
        expect(State.CLIENT_FINAL);
        state = State.DONE;
        Attributes attributes = new Attributes(clientFinal);
        String binding = attributes.next('c');
        String expectedBinding = bindingFlag == 'n' ? NO_BINDING_HEADER : UNUSED_BINDING_HEADER;
        if (!binding.equals(expectedBinding)) {
            throw new ScramException("unexpected SCRAM channel-binding attribute in client-final-message");
        }
        if (!attributes.next('r').equals(fullNonce)) {
            throw new ScramException("invalid SCRAM response (nonce does not match)");
        }
        int proofStart = attributes.skipExtensionsUntil('p');
        byte[] proof;
        try {
            proof = Scram.fromBase64(attributes.next('p'));
        } catch (IllegalArgumentException e) {
            throw new ScramException("malformed SCRAM message (proof is not valid base64)");
        }
        if (!attributes.atEnd()) {
            throw new ScramException("malformed SCRAM message (garbage at the end of client-final-message)");
        }
        if (proof.length != Scram.KEY_LENGTH) {
            throw new ScramException("malformed SCRAM message (malformed proof in client-final-message)");
        }
        byte[] authMessage = Scram.authMessage(clientFirstBare, serverFirst, clientFinal.substring(0, proofStart - 1));
        byte[] clientKey = Scram.xor(proof, Scram.hmac(secret.storedKey(), authMessage));
        boolean proofMatches = MessageDigest.isEqual(Scram.sha256(clientKey), secret.storedKey());
        if (mock || !proofMatches) {
            throw new ScramException(mock ? "no such user" : "client proof does not match the stored key");
        }
        keys = new ScramKeys(clientKey, secret.serverKey(), secret.salt(), secret.iterations());
        return "v=" + Scram.base64(Scram.hmac(secret.serverKey(), authMessage));
    }

    /** The keys recovered from a successful exchange, for SCRAM passthrough to the server. */
    public ScramKeys keys() {
        if (keys == null) {
            throw new IllegalStateException("the SCRAM exchange has not succeeded");
        }
        return keys;
    }

    private void expect(State expected) throws ScramException {
        if (state != expected) {
            throw new ScramException("unexpected SCRAM message in state " + state);
        }
    }

    /** RFC 5802 "printable": %x21-2B / %x2D-7E. */
    private static boolean isPrintable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x21 || c > 0x7E || c == ',') {
                return false;
            }
        }
        return true;
    }

}
