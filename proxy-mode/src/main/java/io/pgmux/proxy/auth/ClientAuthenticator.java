package io.pgmux.proxy.auth;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.PasswordMessage;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.SASLInitialResponse;
import io.pgmux.proxy.protocol.SASLResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Authenticates one client, as a state machine the Netty handler drives: {@link #start()} once the startup
 * packet has named the user, then {@link #onPasswordMessage(ByteBuf)} for each {@code 'p'} message until the
 * outcome is not {@link AuthStep.Outcome#CONTINUE}. Not thread-safe: one instance per login, on one thread.
 *
 * <p>As PgBouncer does with an auth file, an unknown user (secret {@code null}) gets the same challenge as a
 * known one and fails only when it answers, with the same generic error, so clients cannot probe for users; a
 * password is checked against a dummy secret then, so that the answer takes as long as for a known user.
 * Client-visible errors are PgBouncer's (FATAL 08P01 {@code password authentication failed},
 * {@code SASL authentication failed}, …); the precise reason is in {@link AuthStep#failureReason()} for the log.
 * A SCRAM login against a stored verifier leaves the client's keys on that {@link ScramSecret}, for the
 * pooler's own logins to servers (SCRAM passthrough); a failed one leaves nothing.
 */
public final class ClientAuthenticator {
    private static final SecureRandom DEFAULT_RANDOM = new SecureRandom();
    /** Keys the mock salts: stable per user within this JVM, unpredictable outside it. */
    private static final byte[] MOCK_SALT_KEY = new byte[Scram.KEY_LENGTH];

    /** What an unknown user's password is checked against, so that its check does a known user's work. */
    private static final PlaintextSecret DUMMY_SECRET;

    static {
        DEFAULT_RANDOM.nextBytes(MOCK_SALT_KEY);
        byte[] dummy = new byte[Scram.KEY_LENGTH];
        DEFAULT_RANDOM.nextBytes(dummy);
        DUMMY_SECRET = new PlaintextSecret(HexFormat.of().formatHex(dummy));
    }

    private enum State { START, PASSWORD, SASL_INITIAL, SASL_RESPONSE, DONE }

    private final AuthType method;
    private final String user;
    private final Secret secret;
    /**
     * Who the client is to the system: the CN of its TLS certificate for {@code cert}, the OS user of its Unix
     * socket's peer for {@code peer} (either replaced by the database user an hba line's map lets it be); null
     * without one.
     */
    private final String systemUser;
    private final int scramIterations;
    private final SecureRandom random;
    private State state = State.START;
    private byte[] md5Salt;
    private ScramServer scram;

    /** With PgBouncer's default scram_iterations (4096) for verifiers derived from plaintext secrets. */
    public ClientAuthenticator(AuthType authType, String user, Secret secret) {
        this(authType, user, secret, null);
    }

    /**
     * @param systemUser the common name of the client's TLS certificate under cert, the OS user of its Unix
     *     socket's peer under peer; null without one
     */
    public ClientAuthenticator(AuthType authType, String user, Secret secret, String systemUser) {
        this(authType, user, secret, systemUser, Scram.DEFAULT_ITERATIONS, DEFAULT_RANDOM);
    }

    /**
     * @param systemUser the name the client's TLS certificate (cert) or its Unix socket's peer (peer) stands for,
     *     or null without one
     * @param scramIterations PgBouncer's scram_iterations, for verifiers derived from plaintext secrets
     */
    public ClientAuthenticator(AuthType authType, String user, Secret secret, String systemUser,
            int scramIterations) {
        this(authType, user, secret, systemUser, scramIterations, DEFAULT_RANDOM);
    }

    /**
     * @param secret the user's stored secret, or {@code null} when the user is unknown
     * @param scramIterations iterations for verifiers derived from plaintext secrets (PgBouncer's scram_iterations)
     */
    public ClientAuthenticator(AuthType authType, String user, Secret secret, int scramIterations,
            SecureRandom random) {
        this(authType, user, secret, null, scramIterations, random);
    }

    private ClientAuthenticator(AuthType authType, String user, Secret secret, String systemUser,
            int scramIterations, SecureRandom random) {
        if (scramIterations < 1) {
            throw new IllegalArgumentException("scramIterations must be positive, not " + scramIterations);
        }
        this.method = authType.effectiveFor(secret);
        this.user = user;
        this.secret = secret;
        this.systemUser = systemUser;
        this.scramIterations = scramIterations;
        this.random = random;
    }

    /** The method in use, after PgBouncer's md5 → scram-sha-256 upgrade for users with a SCRAM verifier. */
    public AuthType method() {
        return method;
    }

    /** The first step: the authentication request to send, or at once the outcome for {@code trust}. */
    public AuthStep start() {
        if (state != State.START) {
            throw new IllegalStateException("authentication already started");
        }
        switch (method) {
            case TRUST -> {
                state = State.DONE;
                return secret == null
                        ? AuthStep.failed(PoolerError.trustAuthenticationFailed(), "no such user")
                        : AuthStep.authenticated(List.of(Authentication.Ok.INSTANCE));
            }
            case CERT -> {
                state = State.DONE;
                return certificateLogin();
            }
            case ANY -> {
                state = State.DONE;
                return AuthStep.authenticated(List.of(Authentication.Ok.INSTANCE));
            }
            case REJECT -> {
                state = State.DONE;
                return AuthStep.failed(PoolerError.loginRejected(), "rejected by the hba file");
            }
            case PEER -> {
                state = State.DONE;
                return peerLogin();
            }
            case PLAIN -> {
                state = State.PASSWORD;
                return AuthStep.proceed(Authentication.CleartextPassword.INSTANCE);
            }
            case MD5 -> {
                state = State.PASSWORD;
                md5Salt = new byte[Authentication.MD5Password.SALT_LENGTH];
                random.nextBytes(md5Salt);
                return AuthStep.proceed(new Authentication.MD5Password(md5Salt));
            }
            case SCRAM_SHA_256 -> {
                state = State.SASL_INITIAL;
                return AuthStep.proceed(new Authentication.SASL(List.of(Scram.MECHANISM)));
            }
            case HBA -> {
                // the caller resolves hba to the method of the client's line
            }
        }
        throw new IllegalStateException("hba names the method of each client");
    }

    /** PgBouncer's login_via_cert: every failure gets the same error, the reason goes to the log. */
    private AuthStep certificateLogin() {
        String reason = secret == null ? "no such user"
                : systemUser == null ? "no client certificate with a common name"
                : !systemUser.equals(user) ? "certificate name \"" + systemUser + "\" is not the user name"
                : null;
        return reason == null ? AuthStep.authenticated(List.of(Authentication.Ok.INSTANCE))
                : AuthStep.failed(PoolerError.certificateAuthenticationFailed(), reason);
    }

    /** PgBouncer's login_as_unix_peer: every failure gets the same error, the reason goes to the log. */
    private AuthStep peerLogin() {
        String reason = secret == null ? "no such user"
                : systemUser == null ? "not a Unix socket client whose uid names an OS user"
                : !systemUser.equals(user) ? "peer \"" + systemUser + "\" is not the user name"
                : null;
        return reason == null ? AuthStep.authenticated(List.of(Authentication.Ok.INSTANCE))
                : AuthStep.failed(PoolerError.unixSocketLoginRejected(), reason);
    }

    /**
     * Feeds the body of a {@code 'p'} message (PasswordMessage, SASLInitialResponse or SASLResponse, depending on
     * the state). The caller keeps ownership of {@code body}.
     */
    public AuthStep onPasswordMessage(ByteBuf body) {
        State current = state;
        state = State.DONE;
        try {
            return switch (current) {
                case PASSWORD -> checkPassword(PasswordMessage.decode(body).password());
                case SASL_INITIAL -> saslInitialResponse(SASLInitialResponse.decode(body));
                case SASL_RESPONSE -> saslResponse(SASLResponse.decode(body).data());
                case START, DONE -> AuthStep.failed(
                        PoolerError.fatal("unexpected password message"), "password message in state " + current);
            };
        } catch (ProtocolViolationException e) {
            return AuthStep.failed(e.toErrorResponse(), e.getMessage());
        }
    }

    private AuthStep checkPassword(String password) {
        if (password.isEmpty()) {
            return AuthStep.failed(PoolerError.emptyPassword(), "empty password");
        }
        if (secret instanceof PlaintextSecret plaintext && plaintext.isEmpty()) {
            return passwordFailed("the user has an empty password");
        }
        Secret checked = secret != null ? secret : DUMMY_SECRET;
        boolean matches = method == AuthType.PLAIN
                ? checked.matchesCleartext(user, password)
                : MessageDigest.isEqual(password.getBytes(StandardCharsets.UTF_8),
                        Md5Password.saltedResponse(md5Secret(checked), md5Salt).getBytes(StandardCharsets.UTF_8));
        if (secret == null) {
            return passwordFailed("no such user");
        }
        return matches
                ? AuthStep.authenticated(List.of(Authentication.Ok.INSTANCE))
                : passwordFailed("password does not match");
    }

    /** md5 never runs with a SCRAM verifier: {@link AuthType#effectiveFor} switched to SCRAM. */
    private Md5Secret md5Secret(Secret checked) {
        return checked instanceof PlaintextSecret plaintext ? plaintext.md5Secret(user) : (Md5Secret) checked;
    }

    private AuthStep saslInitialResponse(SASLInitialResponse response) {
        if (!Scram.MECHANISM.equals(response.mechanism())) {
            return AuthStep.failed(PoolerError.invalidSaslMechanism(),
                    "client selected SASL mechanism " + response.mechanism());
        }
        byte[] data = response.data();
        if (data == null) {
            return saslFailed("SASLInitialResponse without client-first-message");
        }
        if (secret instanceof Md5Secret) {
            return saslFailed("the user has an md5 secret, SCRAM needs a SCRAM verifier or a plaintext password");
        }
        scram = newScramServer();
        try {
            String serverFirst = scram.handleClientFirst(new String(data, StandardCharsets.UTF_8));
            state = State.SASL_RESPONSE;
            return AuthStep.proceed(new Authentication.SASLContinue(serverFirst.getBytes(StandardCharsets.UTF_8)));
        } catch (ScramException e) {
            return saslFailed(e.getMessage());
        }
    }

    private ScramServer newScramServer() {
        if (secret instanceof ScramSecret verifier) {
            return ScramServer.of(verifier, random);
        }
        if (secret instanceof PlaintextSecret plaintext && !plaintext.isEmpty()) {
            return ScramServer.of(plaintext.scramSecret(scramIterations, random), random);
        }
        return ScramServer.mock(mockSalt(), scramIterations, random);
    }

    /** Deterministic per user, so repeated probes of an unknown user see the same salt, as for a real one. */
    private byte[] mockSalt() {
        return Arrays.copyOf(Scram.hmac(MOCK_SALT_KEY, user.getBytes(StandardCharsets.UTF_8)), Scram.SALT_LENGTH);
    }

    private AuthStep saslResponse(byte[] data) {
        try {
            String serverFinal = scram.handleClientFinal(new String(data, StandardCharsets.UTF_8));
            if (secret instanceof ScramSecret verifier) {
                verifier.rememberPassthroughKeys(scram.keys());
            }
            return AuthStep.authenticated(List.of(
                    new Authentication.SASLFinal(serverFinal.getBytes(StandardCharsets.UTF_8)),
                    Authentication.Ok.INSTANCE));
        } catch (ScramException e) {
            return saslFailed(secret == null ? "no such user" : e.getMessage());
        }
    }

    private static AuthStep passwordFailed(String reason) {
        return AuthStep.failed(PoolerError.passwordAuthenticationFailed(), reason);
    }

    private static AuthStep saslFailed(String reason) {
        return AuthStep.failed(PoolerError.saslAuthenticationFailed(), reason);
    }
}
