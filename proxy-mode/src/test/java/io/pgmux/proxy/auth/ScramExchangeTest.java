package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class ScramExchangeTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ScramSecret PENCIL = ScramSecret.parse(SecretTest.POSTGRES_PENCIL_VERIFIER);

    @Test
    void clientWithThePasswordAndServerWithTheVerifierAgree() throws ScramException {
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        String serverFirst = server.handleClientFirst(client.clientFirstMessage());
        String serverFinal = server.handleClientFinal(client.handleServerFirst(serverFirst));
        client.handleServerFinal(serverFinal);
        assertTrue(client.isComplete());
    }

    @Test
    void keysFromOneLoginLogInAgainWithoutThePassword() throws ScramException {
        ScramServer first = ScramServer.of(PENCIL, RANDOM);
        ScramClient withPassword = ScramClient.withPassword("pencil", RANDOM);
        first.handleClientFinal(withPassword.handleServerFirst(first.handleClientFirst(
                withPassword.clientFirstMessage())));

        ScramClient withKeys = ScramClient.withKeys(first.keys(), RANDOM);
        ScramServer second = ScramServer.of(PENCIL, RANDOM);
        String serverFinal = second.handleClientFinal(withKeys.handleServerFirst(second.handleClientFirst(
                withKeys.clientFirstMessage())));
        withKeys.handleServerFinal(serverFinal);
        assertTrue(withKeys.isComplete());
    }

    @Test
    void wrongPasswordFailsAtTheProof() throws ScramException {
        ScramClient client = ScramClient.withPassword("pencil2", RANDOM);
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        String clientFinal = client.handleServerFirst(server.handleClientFirst(client.clientFirstMessage()));
        ScramException e = assertThrows(ScramException.class, () -> server.handleClientFinal(clientFinal));
        assertFalse(e.getMessage().contains("pencil"));
        assertThrows(IllegalStateException.class, server::keys);
    }

    @Test
    void clientRejectsAForgedServerSignature() throws ScramException {
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        server.handleClientFinal(client.handleServerFirst(server.handleClientFirst(client.clientFirstMessage())));
        assertThrows(ScramException.class,
                () -> client.handleServerFinal("v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
        assertFalse(client.isComplete());
    }

    @Test
    void clientReportsAServerError() throws ScramException {
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        client.handleServerFirst(server.handleClientFirst(client.clientFirstMessage()));
        ScramException e = assertThrows(ScramException.class, () -> client.handleServerFinal("e=invalid-proof"));
        assertEquals("error received from server in SCRAM exchange: invalid-proof", e.getMessage());
    }

    @Test
    void clientRejectsAServerNonceThatDoesNotExtendItsOwn() {
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        assertThrows(ScramException.class, () -> client.handleServerFirst("r=someoneelse,s=c2FsdA==,i=4096"));
    }

    @Test
    void serverRefusesAClientThatRequiresChannelBinding() {
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        ScramException e = assertThrows(ScramException.class,
                () -> server.handleClientFirst("p=tls-server-end-point,,n=,r=abc"));
        assertEquals("client requires SCRAM channel binding, but it is not supported", e.getMessage());
    }

    @Test
    void serverAcceptsAClientThatSupportsChannelBindingButWasNotOfferedIt() throws ScramException {
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        String bare = "n=,r=clientnonce";
        String serverFirst = server.handleClientFirst("y,," + bare);
        String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
        byte[] saltedPassword = Scram.saltedPassword("pencil", PENCIL.salt(), PENCIL.iterations());
        byte[] clientKey = Scram.clientKey(saltedPassword);
        String withoutProof = "c=eSws,r=" + nonce;
        byte[] authMessage = Scram.authMessage(bare, serverFirst, withoutProof);
        byte[] proof = Scram.xor(clientKey, Scram.hmac(Scram.sha256(clientKey), authMessage));

        String serverFinal = server.handleClientFinal(withoutProof + ",p=" + Scram.base64(proof));

        assertEquals("v=" + Scram.base64(Scram.hmac(Scram.serverKey(saltedPassword), authMessage)), serverFinal);
    }

    @Test
    void serverRefusesABindingAttributeThatContradictsTheGs2Flag() throws ScramException {
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        String clientFirst = "y" + client.clientFirstMessage().substring(1);
        String clientFinal = client.handleServerFirst(server.handleClientFirst(clientFirst));
        ScramException e = assertThrows(ScramException.class, () -> server.handleClientFinal(clientFinal));
        assertEquals("unexpected SCRAM channel-binding attribute in client-final-message", e.getMessage());
    }

    @Test
    void serverRefusesAnAuthorizationIdentity() {
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        ScramException e = assertThrows(ScramException.class, () -> server.handleClientFirst("n,a=admin,n=,r=abc"));
        assertEquals("client uses authorization identity, but it is not supported", e.getMessage());
    }

    @Test
    void serverRefusesANonceChangedInTheFinalMessage() throws ScramException {
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        String clientFinal = client.handleServerFirst(server.handleClientFirst(client.clientFirstMessage()));
        String tampered = clientFinal.replaceFirst(",r=", ",r=x");
        assertThrows(ScramException.class, () -> server.handleClientFinal(tampered));
    }

    @Test
    void serverRefusesMalformedMessages() {
        for (String bad : new String[] {"", "n", "x,,n=,r=a", "n,,r=abc", "n,,n=,r=", "n,,n=,r=a\u0001b",
                "n,,m=ext,n=,r=a", "n,,n=,r=abc,"}) {
            ScramServer server = ScramServer.of(PENCIL, RANDOM);
            assertThrows(ScramException.class, () -> server.handleClientFirst(bad), bad);
        }
    }

    @Test
    void mockExchangeLooksRealAndAlwaysFails() throws ScramException {
        byte[] salt = new byte[16];
        ScramServer mock = ScramServer.mock(salt, 4096, RANDOM);
        ScramClient client = ScramClient.withPassword("anything", RANDOM);
        String serverFirst = mock.handleClientFirst(client.clientFirstMessage());
        assertTrue(serverFirst.contains(",s=AAAAAAAAAAAAAAAAAAAAAA==,i=4096"));
        String clientFinal = client.handleServerFirst(serverFirst);
        assertThrows(ScramException.class, () -> mock.handleClientFinal(clientFinal));
    }

    @Test
    void messagesOutOfOrderAreRefused() {
        ScramServer server = ScramServer.of(PENCIL, RANDOM);
        assertThrows(ScramException.class, () -> server.handleClientFinal("c=biws,r=a,p=AAAA"));
        ScramClient client = ScramClient.withPassword("pencil", RANDOM);
        assertThrows(ScramException.class, () -> client.handleServerFinal("v=AAAA"));
    }
}
