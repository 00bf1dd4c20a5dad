package io.pgmux.proxy.auth;

import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import java.util.List;

/**
 * What the handler does after feeding a {@link ClientAuthenticator}: send {@link #messages()} in order, then
 * wait for the next password message ({@link Outcome#CONTINUE}), go on with the login
 * ({@link Outcome#AUTHENTICATED}, AuthenticationOk already included) or flush and close
 * ({@link Outcome#FAILED}, the FATAL ErrorResponse included).
 */
public final class AuthStep {

    public enum Outcome { CONTINUE, AUTHENTICATED, FAILED }

    private final Outcome outcome;
    private final List<EncodableMessage> messages;
    private final String failureReason;
    private final ScramKeys scramKeys;

    private AuthStep(Outcome outcome, List<EncodableMessage> messages, String failureReason, ScramKeys scramKeys) {
        this.outcome = outcome;
        this.messages = messages;
        this.failureReason = failureReason;
        this.scramKeys = scramKeys;
    }

    static AuthStep proceed(EncodableMessage request) {
        return new AuthStep(Outcome.CONTINUE, List.of(request), null, null);
    }

    static AuthStep authenticated(List<EncodableMessage> messages, ScramKeys scramKeys) {
        return new AuthStep(Outcome.AUTHENTICATED, List.copyOf(messages), null, scramKeys);
    }

    static AuthStep failed(ErrorResponse error, String reason) {
        return new AuthStep(Outcome.FAILED, List.of(error), reason, null);
    }

    public Outcome outcome() {
        return outcome;
    }

    public List<EncodableMessage> messages() {
        return messages;
    }

    /** Why a login failed, for the pooler's log (the client only gets PgBouncer's generic text); never a secret. */
    public String failureReason() {
        return failureReason;
    }

    /** Keys recovered by a SCRAM login against a stored verifier (for passthrough), else null. */
    public ScramKeys scramKeys() {
        return scramKeys;
    }

    @Override
    public String toString() {
        return outcome + (failureReason == null ? "" : " (" + failureReason + ")") + " " + messages;
    }
}
