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

    private AuthStep(Outcome outcome, List<EncodableMessage> messages, String failureReason) {
        this.outcome = outcome;
        this.messages = messages;
        this.failureReason = failureReason;
    }

    static AuthStep proceed(EncodableMessage request) {
        return new AuthStep(Outcome.CONTINUE, List.of(request), null);
    }

    static AuthStep authenticated(List<EncodableMessage> messages) {
        return new AuthStep(Outcome.AUTHENTICATED, List.copyOf(messages), null);
    }

    static AuthStep failed(ErrorResponse error, String reason) {
        return new AuthStep(Outcome.FAILED, List.of(error), reason);
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

    @Override
    public String toString() {
        return outcome + (failureReason == null ? "" : " (" + failureReason + ")") + " " + messages;
    }
}
