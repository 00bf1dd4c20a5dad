package io.pgmux.proxy.auth;

import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.PasswordMessage;
import io.pgmux.proxy.protocol.SASLInitialResponse;
import io.pgmux.proxy.protocol.SASLResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * Answers a server's Authentication* requests while the pooler logs in to it, as a state machine the server
 * handler drives: feed each request to {@link #onAuthentication}, send what it returns, stop at
 * {@link #isAuthenticated()}. Not thread-safe: one instance per server login.
 *
 * <p>Which requests a stored secret can answer follows PgBouncer: a plaintext password answers all; an md5
 * hash answers md5 only; a SCRAM verifier answers SCRAM only, and only with the {@link ScramKeys} a client
 * left on it by logging in by SCRAM (passthrough), and only if the server's verifier has the same salt and
 * iteration count. Anything else is {@code server login failed: wrong password type}.
 */
public final class ServerLoginAuthenticator {
    private static final SecureRandom DEFAULT_RANDOM = new SecureRandom();

    private final String user;
    private final Secret secret;
    private final SecureRandom random;
    private ScramClient scram;
    private boolean authenticated;

    /** @param secret the password or md5 hash or SCRAM verifier to log in with, or null when none is configured */
    public ServerLoginAuthenticator(String user, Secret secret) {
        this(user, secret, DEFAULT_RANDOM);
    }

    public ServerLoginAuthenticator(String user, Secret secret, SecureRandom random) {
        this.user = user;
        this.secret = secret;
        this.random = random;
    }

    /** The message to send in answer to {@code request}; empty after SASLFinal and AuthenticationOk. */
    public Optional<EncodableMessage> onAuthentication(Authentication request) throws ServerAuthenticationException {
        if (authenticated) {
            throw new ServerAuthenticationException("authentication request after AuthenticationOk");
        }
        if (request instanceof Authentication.Ok) {
            if (scram != null && !scram.isComplete()) {
                throw new ServerAuthenticationException(
                        "server accepted the login before the SCRAM exchange completed");
            }
            authenticated = true;
            return Optional.empty();
        }
        if (request instanceof Authentication.CleartextPassword) {
            return Optional.of(new PasswordMessage(plaintextPassword().password()));
        }
        if (request instanceof Authentication.MD5Password md5) {
            Md5Secret md5Secret = secret instanceof Md5Secret stored ? stored : plaintextPassword().md5Secret(user);
            return Optional.of(new PasswordMessage(Md5Password.saltedResponse(md5Secret, md5.salt())));
        }
        if (request instanceof Authentication.SASL sasl) {
            return Optional.of(startScram(sasl));
        }
        if (request instanceof Authentication.SASLContinue challenge) {
            if (scram == null) {
                throw new ServerAuthenticationException("AuthenticationSASLContinue without prior AuthenticationSASL");
            }
            try {
                String clientFinal = scram.handleServerFirst(new String(challenge.data(), StandardCharsets.UTF_8));
                return Optional.of(new SASLResponse(clientFinal.getBytes(StandardCharsets.UTF_8)));
            } catch (ScramException e) {
                throw new ServerAuthenticationException(e.getMessage());
            }
        }
        if (request instanceof Authentication.SASLFinal outcome) {
            if (scram == null) {
                throw new ServerAuthenticationException("AuthenticationSASLFinal without prior AuthenticationSASL");
            }
            try {
                scram.handleServerFinal(new String(outcome.data(), StandardCharsets.UTF_8));
                return Optional.empty();
            } catch (ScramException e) {
                throw new ServerAuthenticationException("failed to verify server signature (" + e.getMessage() + ")");
            }
        }
        throw new ServerAuthenticationException("unsupported authentication method " + request.code());
    }

    public boolean isAuthenticated() {
        return authenticated;
    }

    private EncodableMessage startScram(Authentication.SASL sasl) throws ServerAuthenticationException {
        if (scram != null) {
            throw new ServerAuthenticationException("duplicate AuthenticationSASL message from server");
        }
        if (!sasl.mechanisms().contains(Scram.MECHANISM)) {
            throw new ServerAuthenticationException(
                    "none of the server's SASL authentication mechanisms are supported");
        }
        if (secret instanceof ScramSecret verifier) {
            ScramKeys keys = verifier.passthroughKeys();
            if (keys == null) {
                // PgBouncer logs "password is SCRAM secret but client authentication did not provide SCRAM keys"
                throw new ServerAuthenticationException("wrong password type (the auth file holds a SCRAM verifier"
                        + " for \"" + user + "\" and no client has logged in by SCRAM yet to provide SCRAM keys)");
            }
            scram = ScramClient.withKeys(keys, random);
        } else {
            scram = ScramClient.withPassword(plaintextPassword().password(), random);
        }
        return new SASLInitialResponse(Scram.MECHANISM, scram.clientFirstMessage().getBytes(StandardCharsets.UTF_8));
    }

    private PlaintextSecret plaintextPassword() throws ServerAuthenticationException {
        if (secret == null) {
            throw new ServerAuthenticationException("the server asked for a password and none is configured");
        }
        if (!(secret instanceof PlaintextSecret plaintext)) {
            throw new ServerAuthenticationException("wrong password type");
        }
        if (plaintext.isEmpty()) {
            throw new ServerAuthenticationException("the server asked for a password and none is configured");
        }
        return plaintext;
    }
}
