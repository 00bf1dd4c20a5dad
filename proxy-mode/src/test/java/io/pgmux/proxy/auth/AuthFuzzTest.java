package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.security.SecureRandom;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Seeded garbage from a client or a server never escapes the authentication state machines as an exception. */
class AuthFuzzTest {
    private static final long SEED = 0xA117_F022L;
    private static final int ITERATIONS = 3000;
    private static final String[] FRAGMENTS = {"n", "y", "p", ",", "=", "a", "n=", "r=", "c=", "biws", "eSws",
        "s=", "i=", "1", "4096", "p=", "v=", "e=", "m=", "AAAA", "c2FsdA==", "x"};

    @Test
    void randomPasswordMessagesOnlyEverFailTheLogin() {
        Random random = new Random(SEED);
        List<Secret> secrets = List.of(new PlaintextSecret("pencil"), Secret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER),
                Secret.parse(SecretTest.POSTGRES_MD5_USER_HASH));
        SecureRandom secureRandom = new SecureRandom();
        int failures = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            AuthType type = AuthType.values()[1 + random.nextInt(3)];
            Secret secret = random.nextInt(5) == 0 ? null : secrets.get(random.nextInt(secrets.size()));
            ClientAuthenticator authenticator = new ClientAuthenticator(type, "alice", secret, 16, secureRandom);
            AuthStep step = authenticator.start();
            for (int round = 0; round < 3 && step.outcome() == AuthStep.Outcome.CONTINUE; round++) {
                ByteBuf body = Unpooled.wrappedBuffer(randomBody(random));
                try {
                    step = authenticator.onPasswordMessage(body);
                } catch (RuntimeException e) {
                    fail("seed " + SEED + " iteration " + i + ": " + e, e);
                } finally {
                    body.release();
                }
                assertNotNull(step.outcome());
            }
            if (step.outcome() == AuthStep.Outcome.FAILED) {
                failures++;
            }
        }
        assertTrue(failures > ITERATIONS / 2, failures + " failures");
    }

    @Test
    void randomScramMessagesOnlyRaiseScramExceptions() {
        Random random = new Random(SEED + 1);
        SecureRandom secureRandom = new SecureRandom();
        ScramSecret secret = ScramSecret.fromPassword("pencil", new byte[] {1, 2, 3}, 16);
        for (int i = 0; i < ITERATIONS; i++) {
            String message = scramNoise(random);
            try {
                ScramServer server = ScramServer.of(secret, secureRandom);
                server.handleClientFirst(message);
                server.handleClientFinal(scramNoise(random));
            } catch (ScramException expected) {
                // the only way to fail
            } catch (RuntimeException e) {
                fail("seed " + SEED + " iteration " + i + " server, message " + message + ": " + e, e);
            }
            try {
                ScramClient client = new ScramClient("pencil", null, "", "n0nce");
                client.handleServerFirst(random.nextBoolean() ? "r=n0nce" + message : message);
                client.handleServerFinal(scramNoise(random));
            } catch (ScramException expected) {
                // the only way to fail
            } catch (RuntimeException e) {
                fail("seed " + SEED + " iteration " + i + " client, message " + message + ": " + e, e);
            }
        }
    }

    private static byte[] randomBody(Random random) {
        if (random.nextBoolean()) {
            byte[] bytes = new byte[random.nextInt(40)];
            random.nextBytes(bytes);
            return bytes;
        }
        ByteBuf buf = Unpooled.buffer();
        buf.writeBytes((random.nextBoolean() ? "SCRAM-SHA-256" : "md5").getBytes()).writeByte(0);
        byte[] data = scramNoise(random).getBytes();
        buf.writeInt(random.nextInt(4) == 0 ? random.nextInt(100) - 1 : data.length).writeBytes(data);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        buf.release();
        return bytes;
    }

    private static String scramNoise(Random random) {
        StringBuilder s = new StringBuilder();
        int parts = random.nextInt(12);
        for (int i = 0; i < parts; i++) {
            s.append(FRAGMENTS[random.nextInt(FRAGMENTS.length)]);
        }
        return s.toString();
    }
}
