package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import java.util.Optional;
import java.util.function.Function;

/** Runs a login between the two state machines over real encoded messages, as the handlers would. */
final class Login {

    private Login() {
    }

    /** The pooler's server-login side talks to a pooler's client-auth side; returns the final step. */
    static AuthStep run(ServerLoginAuthenticator client, ClientAuthenticator server)
            throws ServerAuthenticationException {
        AuthStep step = server.start();
        while (true) {
            EncodableMessage reply = null;
            for (EncodableMessage message : step.messages()) {
                if (message instanceof ErrorResponse) {
                    return step;
                }
                Authentication request = decode(message, BackendMessage.AUTHENTICATION, Authentication::decode);
                Optional<EncodableMessage> answer = client.onAuthentication(request);
                if (answer.isPresent()) {
                    reply = answer.get();
                }
            }
            if (step.outcome() != AuthStep.Outcome.CONTINUE) {
                return step;
            }
            ByteBuf body = body(reply, FrontendMessage.PASSWORD);
            try {
                step = server.onPasswordMessage(body);
            } finally {
                body.release();
            }
        }
    }

    static <T> T decode(EncodableMessage message, byte type, Function<ByteBuf, T> decoder) {
        ByteBuf body = body(message, type);
        try {
            return decoder.apply(body);
        } finally {
            body.release();
        }
    }

    /** Encodes {@code message}, checks its type byte and length, returns the body. */
    static ByteBuf body(EncodableMessage message, byte type) {
        ByteBuf wire = Unpooled.buffer();
        message.encode(wire);
        assertEquals(type, wire.readByte());
        assertEquals(wire.readableBytes(), wire.readInt());
        return wire;
    }
}
