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
            throws ServerAuthenticationException {
        return Login.run(login, new ClientAuthenticator(serverMethod, "alice", serverSecret));
    }

    @Test
    void plaintextPasswordAnswersEveryMethod() throws ServerAuthenticationException {
        for (AuthType method : List.of(AuthType.PLAIN, AuthType.MD5, AuthType.SCRAM_SHA_256)) {
            ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", PLAINTEXT);
            assertEquals(AuthStep.Outcome.AUTHENTICATED, logIn(method, SCRAM, login).outcome(), method.name());
            assertTrue(login.isAuthenticated());
        }
    }

    @Test
    void md5HashAnswersMd5() throws ServerAuthenticationException {
        Secret hash = Secret.parse(Md5Password.encrypt("pencil", "alice"));
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", hash);
        assertEquals(AuthStep.Outcome.AUTHENTICATED, logIn(AuthType.MD5, PLAINTEXT, login).outcome());
    }

    @Test
    void md5ResponseIsTheDocumentedValue() throws ServerAuthenticationException {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("user", PLAINTEXT);
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
            ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                    () -> new ServerLoginAuthenticator("alice", hash).onAuthentication(request));
            assertEquals("server login failed: wrong password type", e.getMessage());
            assertEquals("server login failed: wrong password type", e.toErrorResponse().message());
        }
    }

    @Test
    void scramVerifierLogsInWithThePassthroughKeysAClientLoginLeftOnIt() throws ServerAuthenticationException {
        Secret verifier = Secret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);
        Login.run(new ServerLoginAuthenticator("alice", PLAINTEXT),
                new ClientAuthenticator(AuthType.SCRAM_SHA_256, "alice", verifier));
        ServerLoginAuthenticator passthrough = new ServerLoginAuthenticator("alice", verifier);
        assertEquals(AuthStep.Outcome.AUTHENTICATED, logIn(AuthType.SCRAM_SHA_256, SCRAM, passthrough).outcome());
        assertTrue(passthrough.isAuthenticated());
    }

    @Test
    void scramVerifierBeforeAnyClientLoginIsTheWrongPasswordType() {
        Secret fresh = Secret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> new ServerLoginAuthenticator("alice", fresh)
                        .onAuthentication(new Authentication.SASL(List.of("SCRAM-SHA-256"))));
        assertTrue(e.getMessage().startsWith("server login failed: wrong password type"), e.getMessage());
        assertTrue(e.getMessage().contains("no client has logged in by SCRAM yet"), e.getMessage());
    }

    @Test
    void passthroughToAServerWhoseVerifierHasAnotherSaltIsRefusedWithTheCause() throws ServerAuthenticationException {
        ScramSecret ours = ScramSecret.generate("pencil", 4096, new SecureRandom());
        Secret theServers = ScramSecret.generate("pencil", 4096, new SecureRandom());
        Login.run(new ServerLoginAuthenticator("alice", PLAINTEXT), new ClientAuthenticator(AuthType.SCRAM_SHA_256,
                "alice", ours));
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> logIn(AuthType.SCRAM_SHA_256, theServers, new ServerLoginAuthenticator("alice", ours)));
        assertTrue(e.getMessage().startsWith("server login failed: SCRAM passthrough impossible: the server's"
                + " verifier has another salt"), e.getMessage());
    }

    @Test
    void passthroughToAServerWhoseVerifierHasAnotherIterationCountNamesBothCounts()
            throws ServerAuthenticationException {
        byte[] salt = new byte[16];
        ScramSecret ours = ScramSecret.fromPassword("pencil", salt, 4096);
        Secret theServers = ScramSecret.fromPassword("pencil", salt, 8192);
        Login.run(new ServerLoginAuthenticator("alice", PLAINTEXT), new ClientAuthenticator(AuthType.SCRAM_SHA_256,
                "alice", ours));
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> logIn(AuthType.SCRAM_SHA_256, theServers, new ServerLoginAuthenticator("alice", ours)));
        assertTrue(e.getMessage().contains("another iteration count (8192, the auth file's 4096)"), e.getMessage());
    }

    @Test
    void wrongPasswordIsRefusedByTheServer() throws ServerAuthenticationException {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", new PlaintextSecret("nope"));
        assertEquals(AuthStep.Outcome.FAILED, logIn(AuthType.SCRAM_SHA_256, SCRAM, login).outcome());
        assertFalse(login.isAuthenticated());
    }

    @Test
    void onlyScramSha256IsSupportedAmongSaslMechanisms() {
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> new ServerLoginAuthenticator("alice", PLAINTEXT)
                        .onAuthentication(new Authentication.SASL(List.of("SCRAM-SHA-256-PLUS"))));
        assertEquals("server login failed: none of the server's SASL authentication mechanisms are supported",
                e.getMessage());
    }

    @Test
    void scramIsChosenWhenOfferedBesideThePlusVariant() throws ServerAuthenticationException {
        EncodableMessage first = new ServerLoginAuthenticator("alice", PLAINTEXT).onAuthentication(
                new Authentication.SASL(List.of("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"))).orElseThrow();
        assertInstanceOf(SASLInitialResponse.class, first);
    }

    @Test
    void serverThatSkipsTheScramSignatureIsNotTrusted() throws ServerAuthenticationException {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", PLAINTEXT);
        login.onAuthentication(new Authentication.SASL(List.of("SCRAM-SHA-256")));
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> login.onAuthentication(Authentication.Ok.INSTANCE));
        assertTrue(e.getMessage().contains("before the SCRAM exchange completed"));
    }

    @Test
    void forgedServerSignatureFailsTheLogin() throws Exception {
        ServerLoginAuthenticator login = new ServerLoginAuthenticator("alice", PLAINTEXT);
        SASLInitialResponse initial = (SASLInitialResponse) login.onAuthentication(
                new Authentication.SASL(List.of("SCRAM-SHA-256"))).orElseThrow();
        ScramServer server = ScramServer.of((ScramSecret) SCRAM, new SecureRandom());
        String serverFirst = server.handleClientFirst(new String(initial.data(), StandardCharsets.UTF_8));
        login.onAuthentication(new Authentication.SASLContinue(serverFirst.getBytes(StandardCharsets.UTF_8)));
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> login.onAuthentication(
                        new Authentication.SASLFinal("v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".getBytes())));
        assertTrue(e.getMessage().startsWith("server login failed: failed to verify server signature"));
        assertThrows(ServerAuthenticationException.class, () -> login.onAuthentication(Authentication.Ok.INSTANCE));
        assertFalse(login.isAuthenticated());
    }

    @Test
    void unsupportedMethodsAreReportedWithTheirCode() {
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> new ServerLoginAuthenticator("alice", PLAINTEXT)
                        .onAuthentication(new Authentication.Unsupported(7)));
        assertEquals("server login failed: unsupported authentication method 7", e.getMessage());
    }

    @Test
    void missingPasswordIsReported() {
        ServerAuthenticationException e = assertThrows(ServerAuthenticationException.class,
                () -> new ServerLoginAuthenticator("alice", null)
                        .onAuthentication(Authentication.CleartextPassword.INSTANCE));
        assertTrue(e.getMessage().contains("none is configured"));
    }
}
