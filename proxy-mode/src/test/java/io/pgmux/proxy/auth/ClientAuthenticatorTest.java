package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgmux.proxy.protocol.Authentication;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.PasswordMessage;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.SASLInitialResponse;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAuthenticatorTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Secret PLAINTEXT = new PlaintextSecret("pencil");
    private static final Secret MD5 = Secret.parse(Md5Password.encrypt("pencil", "alice"));
    private static final Secret SCRAM = Secret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);

    /** A client that knows the password, talking through the server-login state machine. */
    private static AuthStep login(AuthType type, Secret stored, String password) throws ServerAuthenticationException {
        return Login.run(new ServerLoginAuthenticator("alice", new PlaintextSecret(password)),
                new ClientAuthenticator(type, "alice", stored));
    }

    private static AuthStep answer(ClientAuthenticator authenticator, PasswordMessage message) {
        ByteBuf body = Login.body(message, FrontendMessage.PASSWORD);
        try {
            return authenticator.onPasswordMessage(body);
        } finally {
            body.release();
        }
    }

    private static void assertFailedWith(ErrorResponse expected, AuthStep step) {
        assertEquals(AuthStep.Outcome.FAILED, step.outcome());
        assertEquals(List.of(expected), step.messages());
        assertNotNull(step.failureReason());
    }

    @Test
    void trustAuthenticatesAKnownUserWithoutAPassword() {
        AuthStep step = new ClientAuthenticator(AuthType.TRUST, "alice", PLAINTEXT).start();
        assertEquals(AuthStep.Outcome.AUTHENTICATED, step.outcome());
        assertEquals(List.of(Authentication.Ok.INSTANCE), step.messages());
    }

    @Test
    void trustRejectsAUserMissingFromTheAuthFile() {
        assertFailedWith(PoolerError.trustAuthenticationFailed(),
                new ClientAuthenticator(AuthType.TRUST, "mallory", null).start());
    }

    @Test
    void certAuthenticatesAKnownUserWhoseCertificateNamesHim() {
        AuthStep step = new ClientAuthenticator(AuthType.CERT, "alice", PLAINTEXT, "alice").start();
        assertEquals(AuthStep.Outcome.AUTHENTICATED, step.outcome());
        assertEquals(List.of(Authentication.Ok.INSTANCE), step.messages());
    }

    @Test
    void certRejectsAnotherNameNoCertificateAndAnUnknownUserAlike() {
        assertFailedWith(PoolerError.certificateAuthenticationFailed(),
                new ClientAuthenticator(AuthType.CERT, "alice", PLAINTEXT, "mallory").start());
        assertFailedWith(PoolerError.certificateAuthenticationFailed(),
                new ClientAuthenticator(AuthType.CERT, "alice", PLAINTEXT, null).start());
        assertFailedWith(PoolerError.certificateAuthenticationFailed(),
                new ClientAuthenticator(AuthType.CERT, "mallory", null, "mallory").start());
    }

    @Test
    void plainAcceptsTheRightPasswordAgainstEverySecretKind() throws ServerAuthenticationException {
        for (Secret stored : List.of(PLAINTEXT, MD5, SCRAM)) {
            assertEquals(AuthStep.Outcome.AUTHENTICATED, login(AuthType.PLAIN, stored, "pencil").outcome(),
                    stored.toString());
        }
    }

    @Test
    void plainRejectsAWrongPasswordAgainstEverySecretKind() throws ServerAuthenticationException {
        for (Secret stored : List.of(PLAINTEXT, MD5, SCRAM)) {
            assertFailedWith(PoolerError.passwordAuthenticationFailed(), login(AuthType.PLAIN, stored, "pencil2"));
        }
    }

    @Test
    void md5AcceptsTheRightPasswordWithPlaintextOrMd5Secret() throws ServerAuthenticationException {
        for (Secret stored : List.of(PLAINTEXT, MD5)) {
            ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.MD5, "alice", stored);
            assertInstanceOf(Authentication.MD5Password.class, authenticator.start().messages().get(0));
            assertEquals(AuthStep.Outcome.AUTHENTICATED, login(AuthType.MD5, stored, "pencil").outcome());
        }
    }

    @Test
    void md5RejectsAWrongPassword() throws ServerAuthenticationException {
        assertFailedWith(PoolerError.passwordAuthenticationFailed(), login(AuthType.MD5, MD5, "pencil2"));
    }

    @Test
    void md5SaltsDifferPerLogin() {
        Authentication.MD5Password first = (Authentication.MD5Password)
                new ClientAuthenticator(AuthType.MD5, "alice", MD5).start().messages().get(0);
        Authentication.MD5Password second = (Authentication.MD5Password)
                new ClientAuthenticator(AuthType.MD5, "alice", MD5).start().messages().get(0);
        assertFalse(Arrays.equals(first.salt(), second.salt()));
    }

    @Test
    void md5WithAScramSecretIsUpgradedToScram() throws ServerAuthenticationException {
        ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.MD5, "alice", SCRAM);
        assertEquals(AuthType.SCRAM_SHA_256, authenticator.method());
        assertInstanceOf(Authentication.SASL.class, authenticator.start().messages().get(0));
        assertEquals(AuthStep.Outcome.AUTHENTICATED, login(AuthType.MD5, SCRAM, "pencil").outcome());
    }

    @Test
    void scramLoginAgainstAStoredVerifierLeavesPassthroughKeysOnIt() throws ServerAuthenticationException {
        ScramSecret verifier = ScramSecret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);
        assertNull(verifier.passthroughKeys());
        AuthStep step = login(AuthType.SCRAM_SHA_256, verifier, "pencil");
        assertEquals(AuthStep.Outcome.AUTHENTICATED, step.outcome());
        assertInstanceOf(Authentication.SASLFinal.class, step.messages().get(0));
        assertSame(Authentication.Ok.INSTANCE, step.messages().get(1));
        assertNotNull(verifier.passthroughKeys());
    }

    @Test
    void failedScramLoginLeavesNoPassthroughKeys() throws ServerAuthenticationException {
        ScramSecret verifier = ScramSecret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);
        assertEquals(AuthStep.Outcome.FAILED, login(AuthType.SCRAM_SHA_256, verifier, "pencil2").outcome());
        assertNull(verifier.passthroughKeys());
    }

    @Test
    void scramRejectsAWrongPassword() throws ServerAuthenticationException {
        assertFailedWith(PoolerError.saslAuthenticationFailed(), login(AuthType.SCRAM_SHA_256, SCRAM, "pencil2"));
    }

    @Test
    void scramCannotWorkWithAnMd5Secret() throws ServerAuthenticationException {
        AuthStep step = login(AuthType.SCRAM_SHA_256, MD5, "pencil");
        assertFailedWith(PoolerError.saslAuthenticationFailed(), step);
        assertTrue(step.failureReason().contains("md5 secret"), step.failureReason());
    }

    @Test
    void unknownUserGetsTheSameChallengeAndTheGenericError() throws ServerAuthenticationException {
        AuthStep md5 = login(AuthType.MD5, null, "pencil");
        assertFailedWith(PoolerError.passwordAuthenticationFailed(), md5);
        assertEquals("no such user", md5.failureReason());
        AuthStep scram = login(AuthType.SCRAM_SHA_256, null, "pencil");
        assertFailedWith(PoolerError.saslAuthenticationFailed(), scram);
        assertEquals("no such user", scram.failureReason());
    }

    @Test
    void unknownUserSeesTheSameSaltOnEveryAttempt() {
        String first = serverFirst(new ClientAuthenticator(AuthType.SCRAM_SHA_256, "mallory", null));
        String second = serverFirst(new ClientAuthenticator(AuthType.SCRAM_SHA_256, "mallory", null));
        assertEquals(first.substring(first.indexOf(",s=")), second.substring(second.indexOf(",s=")));
    }

    private static String serverFirst(ClientAuthenticator authenticator) {
        authenticator.start();
        ByteBuf body = Login.body(new SASLInitialResponse("SCRAM-SHA-256", "n,,n=,r=abcdef".getBytes()),
                FrontendMessage.PASSWORD);
        try {
            AuthStep step = authenticator.onPasswordMessage(body);
            return new String(((Authentication.SASLContinue) step.messages().get(0)).data());
        } finally {
            body.release();
        }
    }

    @Test
    void emptyPasswordIsRefusedWithPgBouncersText() {
        ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.PLAIN, "alice", PLAINTEXT);
        authenticator.start();
        assertFailedWith(PoolerError.emptyPassword(), answer(authenticator, new PasswordMessage("")));
    }

    @Test
    void userWithAnEmptyStoredPasswordCannotLogInWithAPassword() {
        ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.PLAIN, "alice", new PlaintextSecret(""));
        authenticator.start();
        assertFailedWith(PoolerError.passwordAuthenticationFailed(), answer(authenticator, new PasswordMessage("x")));
    }

    @Test
    void otherSaslMechanismIsRefused() {
        ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.SCRAM_SHA_256, "alice", SCRAM);
        authenticator.start();
        ByteBuf body = Login.body(new SASLInitialResponse("SCRAM-SHA-256-PLUS", "p=x,,n=,r=a".getBytes()),
                FrontendMessage.PASSWORD);
        try {
            assertFailedWith(PoolerError.invalidSaslMechanism(), authenticator.onPasswordMessage(body));
        } finally {
            body.release();
        }
    }

    @Test
    void malformedPasswordPacketIsAProtocolViolation() {
        ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.PLAIN, "alice", PLAINTEXT);
        authenticator.start();
        ByteBuf body = Unpooled.wrappedBuffer(new byte[] {'a', 'b'});
        AuthStep step = authenticator.onPasswordMessage(body);
        assertEquals(AuthStep.Outcome.FAILED, step.outcome());
        assertEquals("08P01", ((ErrorResponse) step.messages().get(0)).sqlState());
        assertTrue(((ErrorResponse) step.messages().get(0)).isFatal());
    }

    @Test
    void passwordMessageAfterTheOutcomeIsRefused() throws ServerAuthenticationException {
        ClientAuthenticator authenticator = new ClientAuthenticator(AuthType.PLAIN, "alice", PLAINTEXT);
        authenticator.start();
        assertEquals(AuthStep.Outcome.AUTHENTICATED, answer(authenticator, new PasswordMessage("pencil")).outcome());
        assertEquals(AuthStep.Outcome.FAILED, answer(authenticator, new PasswordMessage("pencil")).outcome());
    }

    @Test
    void failureReasonsNeverContainTheSecretOrThePassword() throws ServerAuthenticationException {
        for (AuthType type : List.of(AuthType.PLAIN, AuthType.MD5, AuthType.SCRAM_SHA_256)) {
            for (Secret stored : List.of(PLAINTEXT, MD5, SCRAM)) {
                AuthStep step = login(type, stored, "hunter2");
                assertFalse(step.failureReason().contains("hunter2"));
                assertFalse(step.failureReason().contains("pencil"));
                assertFalse(step.toString().contains("pencil"));
            }
        }
    }

    @Test
    void authTypeNamesAreThoseOfPgbouncerIni() {
        assertEquals(AuthType.SCRAM_SHA_256, AuthType.fromConfig("scram-sha-256"));
        assertEquals(AuthType.MD5, AuthType.fromConfig(" MD5 "));
        assertEquals("plain", AuthType.PLAIN.configName());
        assertEquals(AuthType.HBA, AuthType.fromConfig("hba"));
        assertEquals(AuthType.ANY, AuthType.fromConfig("any"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AuthType.fromConfig("peer"));
        assertTrue(e.getMessage().contains("unsupported auth_type"));
        assertTrue(e.getMessage().endsWith("(peer is a method of auth_hba_file's local lines, as in PgBouncer)"),
                e.getMessage());
    }

    @Test
    void pamAndLdapAreRefusedNamingWhy() {
        for (String name : new String[] {"pam", "ldap"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> AuthType.fromConfig(name));
            assertEquals("auth_type \"" + name + "\" is not supported by pgmux: it has no " + name.toUpperCase()
                    + " client; use hba, scram-sha-256, md5, cert, plain, trust or any", e.getMessage());
        }
    }

    @Test
    void anyLogsInWithoutAskingForAPassword() {
        AuthStep step = new ClientAuthenticator(AuthType.ANY, "whoever", null).start();
        assertEquals(AuthStep.Outcome.AUTHENTICATED, step.outcome());
    }

    @Test
    void rejectAndPeerOverTcpRefuseWithPgBouncersTexts() {
        AuthStep rejected = new ClientAuthenticator(AuthType.REJECT, "u", new PlaintextSecret("x")).start();
        assertEquals(AuthStep.Outcome.FAILED, rejected.outcome());
        assertEquals(List.of(PoolerError.loginRejected()), rejected.messages());
        AuthStep peer = new ClientAuthenticator(AuthType.PEER, "u", new PlaintextSecret("x")).start();
        assertEquals(List.of(PoolerError.unixSocketLoginRejected()), peer.messages());
    }

    @Test
    void peerLogsInTheUserWhoseNameIsThePeersOsUser() {
        AuthStep step = new ClientAuthenticator(AuthType.PEER, "alice", new PlaintextSecret("x"), "alice").start();
        assertEquals(AuthStep.Outcome.AUTHENTICATED, step.outcome());
    }

    @Test
    void peerRefusesAnotherOsUserAndAnUnknownUserWithTheSameText() {
        AuthStep other = new ClientAuthenticator(AuthType.PEER, "alice", new PlaintextSecret("x"), "bob").start();
        assertEquals(List.of(PoolerError.unixSocketLoginRejected()), other.messages());
        assertEquals("peer \"bob\" is not the user name", other.failureReason());
        AuthStep unknown = new ClientAuthenticator(AuthType.PEER, "alice", null, "alice").start();
        assertEquals(List.of(PoolerError.unixSocketLoginRejected()), unknown.messages());
        assertEquals("no such user", unknown.failureReason());
    }

    @Test
    void customIterationCountIsUsedForVerifiersDerivedFromPlaintext() {
        ClientAuthenticator authenticator =
                new ClientAuthenticator(AuthType.SCRAM_SHA_256, "iter_user", new PlaintextSecret("x"), 1000, RANDOM);
        assertTrue(serverFirst(authenticator).endsWith(",i=1000"));
    }
}
