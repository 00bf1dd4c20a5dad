package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.junit.jupiter.api.Test;

/** The SCRAM-SHA-256 example exchange of RFC 7677 §3: user "user", password "pencil". */
class ScramRfc7677Test {
    private static final String CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String SALT = "W22ZaJ0SNY7soEsUEjb6gQ==";
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_FIRST =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    private static ScramSecret pencilVerifier() {
        return ScramSecret.fromPassword("pencil", Base64.getDecoder().decode(SALT), 4096);
    }

    @Test
    void clientProducesTheRfcMessagesAndAcceptsTheRfcServerSignature() throws ScramException {
        ScramClient client = new ScramClient("pencil", null, "user", CLIENT_NONCE);
        assertEquals(CLIENT_FIRST, client.clientFirstMessage());
        assertEquals(CLIENT_FINAL, client.handleServerFirst(SERVER_FIRST));
        client.handleServerFinal(SERVER_FINAL);
        assertTrue(client.isComplete());
    }

    @Test
    void serverProducesTheRfcMessagesAndAcceptsTheRfcProof() throws ScramException {
        ScramServer server = new ScramServer(pencilVerifier(), false, SERVER_NONCE);
        assertEquals(SERVER_FIRST, server.handleClientFirst(CLIENT_FIRST));
        assertEquals(SERVER_FINAL, server.handleClientFinal(CLIENT_FINAL));
    }

    @Test
    void keysRecoveredByTheServerReproduceTheRfcProof() throws ScramException {
        ScramServer server = new ScramServer(pencilVerifier(), false, SERVER_NONCE);
        server.handleClientFirst(CLIENT_FIRST);
        server.handleClientFinal(CLIENT_FINAL);
        ScramClient passthrough = new ScramClient(null, server.keys(), "user", CLIENT_NONCE);
        passthrough.clientFirstMessage();
        assertEquals(CLIENT_FINAL, passthrough.handleServerFirst(SERVER_FIRST));
        assertDoesNotThrow(() -> passthrough.handleServerFinal(SERVER_FINAL));
    }

    @Test
    void verifierForPencilMatchesAnIndependentComputation() {
        // Computed with Python's hashlib.pbkdf2_hmac and hmac for the RFC salt and 4096 iterations.
        assertEquals("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY="
                + ":wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=", pencilVerifier().encoded());
    }

    @Test
    void hiEqualsTheJdkPbkdf2() throws Exception {
        byte[] salt = Base64.getDecoder().decode(SALT);
        byte[] jdk = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(new PBEKeySpec("pencil".toCharArray(), salt, 4096, 256)).getEncoded();
        assertArrayEquals(jdk, Scram.hi("pencil".getBytes(StandardCharsets.UTF_8), salt, 4096));
    }
}
