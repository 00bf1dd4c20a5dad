package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.PasswordMessage;
import io.pgmux.proxy.protocol.SASLInitialResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerLoginAuthenticatorTest {
    private static final Secret PLAINTEXT = new PlaintextSecret("pencil");
    private static final Secret SCRAM = Secret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);

    /** The server side is the pooler's own client authenticator holding what PostgreSQL would store. */
    private static AuthStep logIn(AuthType serverMethod, Secret serverSecret, ServerLoginAuthenticator login)
            throws ServerLoginException {
        return Login.run(login, new ClientAuthenticator(serverMethod, "alice", serverSecret));
    }

    @Test
    void plaintextPasswordAnswersEveryMethod() throws ServerLoginException {
        for (AuthType method : List.of(AuthType.PLAIN, AuthType.MD5, AuthType.SCRAM_SHA_256)) {
            ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", PLAINTEXT, null);
            assertEquals(AuthStep.Outcome.AUTHENTICATED, logIn(method, SCRAM, login).outcome(), method.name());
            assertTrue(login.isAuthenticated());
        }
    }

    @Test
    void md5HashAnswersMd5() throws ServerLoginException {
        Secret hash = Secret.parse(Md5Password.encrypt("pencil", "alice"));
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", hash, null);
        assertEquals(AuthStep.Outcome.AUTHENTICATED, logIn(AuthType.MD5, PLAINTEXT, login).outcome());
    }

    @Test
    void md5ResponseIsTheDocumentedValue() throws ServerLoginException {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("user", PLAINTEXT, null);
        EncodableMessage answer = login.onAuthentication(new Authentication.MD5Password(new byte[] {1, 2, 3, 4}))
                .orElseThrow();
        assertEquals("md54376eb6913b38f9aaff38dc7cf19ca76",
                Login.decode(answer, FrontendMessage.PASSWORD, PasswordMessage::decode).password());
    }

    @Test
    void md5HashCannotAnswerCleartextOrScram() {
        Secret hash = Secret.parse(Md5Password.encrypt("pencil", "alice"));
        for (Authentication request : List.of(Authentication.CleartextPassword.INSTANCE,
                new Authentication.SASL(List.of("SCRAM-SHA-256")))) {
            ServerLoginException e = assertThrows(ServerLoginException.class,
                    () -> new ServerLoginAuthenticator("alice", hash, null).onAuthentication(request));
            assertEquals("server login failed: wrong password type", e.getMessage());
            assertEquals("server login failed: wrong password type", e.toErrorResponse().message());
        }
    }

    @Test
    void scramVerifierLogsInWithPassthroughKeysFromAClientLogin() throws ServerLoginException {
        AuthStep clientLogin = Login.run(new ServerLoginAuthenticator("alice", PLAINTEXT, null),
                new ClientAuthenticator(AuthType.SCRAM_SHA_256, "alice", SCRAM));
        ServerLoginAuthenticator passthrough = new ServerLoginAuthenticator("alice", SCRAM, clientLogin.scramKeys());
        assertEquals(AuthStep.Outcome.AUTHENTICATED, logIn(AuthType.SCRAM_SHA_256, SCRAM, passthrough).outcome());
        assertTrue(passthrough.isAuthenticated());
    }

    @Test
    void scramVerifierWithoutKeysIsTheWrongPasswordType() {
        ServerLoginException e = assertThrows(ServerLoginException.class, () -> new ServerLoginAuthenticator(
                "alice", SCRAM, null).onAuthentication(new Authentication.SASL(List.of("SCRAM-SHA-256"))));
        assertTrue(e.getMessage().startsWith("server login failed: wrong password type"), e.getMessage());
    }

    @Test
    void wrongPasswordIsRefusedByTheServer() throws ServerLoginException {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", new PlaintextSecret("nope"), null);
        assertEquals(AuthStep.Outcome.FAILED, logIn(AuthType.SCRAM_SHA_256, SCRAM, login).outcome());
        assertFalse(login.isAuthenticated());
    }

    @Test
    void onlyScramSha256IsSupportedAmongSaslMechanisms() {
        ServerLoginException e = assertThrows(ServerLoginException.class, () -> new ServerLoginAuthenticator(
                "alice", PLAINTEXT, null).onAuthentication(new Authentication.SASL(List.of("SCRAM-SHA-256-PLUS"))));
        assertEquals("server login failed: none of the server's SASL authentication mechanisms are supported",
                e.getMessage());
    }

    @Test
    void scramIsChosenWhenOfferedBesideThePlusVariant() throws ServerLoginException {
        EncodableMessage first = new ServerLoginAuthenticator("alice", PLAINTEXT, null).onAuthentication(
                new Authentication.SASL(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"))).orElseThrow();
        assertInstanceOf(SASLInitialResponse.class, first);
    }

    @Test
    void serverThatSkipsTheScramSignatureIsNotTrusted() throws ServerLoginException {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", PLAINTEXT, null);
        login.onAuthentication(new Authentication.SASL(List.of("SCRAM-SHA-256")));
        ServerLoginException e = assertThrows(ServerLoginException.class,
                () -> login.onAuthentication(Authentication.Ok.INSTANCE));
        assertTrue(e.getMessage().contains("before the SCRAM exchange completed"));
    }

    @Test
    void forgedServerSignatureFailsTheLogin() throws Exception {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", PLAINTEXT, null);
        SASLInitialResponse initial = (SASLInitialResponse) login.onAuthentication(
                new Authentication.SASL(List.of("SCRAM-SHA-256"))).orElseThrow();
        ScramServer server = ScramServer.of((ScramSecret) SCRAM, new SecureRandom());
        String serverFirst = server.handleClientFirst(new String(initial.data(), StandardCharsets.UTF_8));
        login.onAuthentication(new Authentication.SASLContinue(serverFirst.getBytes(StandardCharsets.UTF_8)));
        ServerLoginException e = assertThrows(ServerLoginException.class, () -> login.onAuthentication(
                new Authentication.SASLFinal("v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".getBytes())));
        assertTrue(e.getMessage().startsWith("server login failed: failed to verify server signature"));
        assertThrows(ServerLoginException.class, () -> login.onAuthentication(Authentication.Ok.INSTANCE));
        assertFalse(login.isAuthenticated());
    }

    @Test
    void unsupportedMethodsAreReportedWithTheirCode() {
        ServerLoginException e = assertThrows(ServerLoginException.class,
                () -> new ServerLoginAuthenticator("alice", PLAINTEXT, null)
                        .onAuthentication(new Authentication.Unsupported(7)));
        assertEquals("server login failed: unsupported authentication method 7", e.getMessage());
    }

    @Test
    void missingPasswordIsReported() {
        ServerLoginException e = assertThrows(ServerLoginException.class,
                () -> new ServerLoginAuthenticator("alice", null, null)
                        .onAuthentication(Authentication.CleartextPassword.INSTANCE));
        assertTrue(e.getMessage().contains("none is configured"));
    }
}
