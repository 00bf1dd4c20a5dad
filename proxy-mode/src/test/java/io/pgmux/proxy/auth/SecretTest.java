package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class SecretTest {
    /** Created by PostgreSQL 15: {@code SET password_encryption = 'scram-sha-256'; CREATE ROLE … PASSWORD 'pencil'}. */
    static final String POSTGRES_PENCIL_VERIFIER = "SCRAM-SHA-256$4096:B4obYDcjdxbrFHOrndIQxQ==$"
            + "fBS6UeGAJJV+pBHrxdo7IhmfoHX/VQZeCGiF28uv5F0=:sWmPdUv/vXQXHctlbKrjfkewujpaseVolNPcD+l7Rv0=";
    /** Created by PostgreSQL 15 with password_encryption md5 for role md5_user, password 'pencil'. */
    static final String POSTGRES_MD5_USER_HASH = "md529e3d0a0b4f3e9dd311543f9993a8476";
    /** Created by PostgreSQL 15 for the password "pa\u00ADss\u2168", which SASLprep turns into "passIX". */
    static final String POSTGRES_SASLPREP_VERIFIER = "SCRAM-SHA-256$4096:FKefu70Yjr5JDVLKrLPOxA==$"
            + "4MlCkbgS7gAHONRb/Y86Jzs8wmFUwBYuoRgvZOmQu9U=:20NWzHERNA8DeX9wB3HQh8Zm/MwUQGlmxZi4TVDyOuo=";

    @Test
    void classifiesSecretsAsPgBouncerDoes() {
        assertInstanceOf(PlaintextSecret.class, Secret.parse("pencil"));
        assertInstanceOf(Md5Secret.class, Secret.parse(POSTGRES_MD5_USER_HASH));
        assertInstanceOf(ScramSecret.class, Secret.parse(POSTGRES_PENCIL_VERIFIER));
        assertInstanceOf(PlaintextSecret.class, Secret.parse("md5short"), "not 32 hex digits: a password");
        assertInstanceOf(PlaintextSecret.class, Secret.parse("md529E3D0A0B4F3E9DD311543F9993A8476"),
                "upper-case hex is not PostgreSQL's md5 form");
    }

    @Test
    void malformedScramVerifierIsRejectedWithoutEchoingIt() {
        String broken = "SCRAM-SHA-256$4096:B4obYDcjdxbrFHOrndIQxQ==$fBS6UeGAJJV+pBHrxdo7IhmfoHX";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Secret.parse(broken));
        assertFalse(e.getMessage().contains("fBS6"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Secret.parse("SCRAM-SHA-256$0:c2FsdA==$"
                + "fBS6UeGAJJV+pBHrxdo7IhmfoHX/VQZeCGiF28uv5F0=:sWmPdUv/vXQXHctlbKrjfkewujpaseVolNPcD+l7Rv0="));
    }

    @Test
    void postgresVerifierRoundTripsThroughItsTextForm() {
        assertEquals(POSTGRES_PENCIL_VERIFIER, ScramSecret.parse(POSTGRES_PENCIL_VERIFIER).encoded());
    }

    @Test
    void cleartextPasswordMatchesAPostgresScramVerifier() {
        Secret verifier = Secret.parse(POSTGRES_PENCIL_VERIFIER);
        assertTrue(verifier.matchesCleartext("pencil_user", "pencil"));
        assertFalse(verifier.matchesCleartext("pencil_user", "pencil2"));
        assertFalse(verifier.matchesCleartext("pencil_user", ""));
    }

    @Test
    void saslPrepMatchesPostgresForANonAsciiPassword() {
        Secret verifier = Secret.parse(POSTGRES_SASLPREP_VERIFIER);
        assertTrue(verifier.matchesCleartext("prep_user", "pa\u00ADss\u2168"));
        assertTrue(verifier.matchesCleartext("prep_user", "passIX"), "the prepared form is equivalent");
    }

    @Test
    void cleartextPasswordMatchesAPostgresMd5Hash() {
        Secret hash = Secret.parse(POSTGRES_MD5_USER_HASH);
        assertTrue(hash.matchesCleartext("md5_user", "pencil"));
        assertFalse(hash.matchesCleartext("other_user", "pencil"), "the user name is part of the hash");
    }

    @Test
    void emptyPlaintextPasswordMatchesNothing() {
        assertFalse(new PlaintextSecret("").matchesCleartext("u", ""));
    }

    @Test
    void md5EncryptMatchesPostgresAndMd5sum() {
        // printf 'penciluser' | md5sum  →  20c46e3762c864548e296b33c3406aa9
        assertEquals("md520c46e3762c864548e296b33c3406aa9", Md5Password.encrypt("pencil", "user"));
        assertEquals(POSTGRES_MD5_USER_HASH, Md5Password.encrypt("pencil", "md5_user"));
    }

    @Test
    void md5SaltedResponseMatchesAnIndependentComputation() {
        // Python: "md5" + md5(md5hex(b"penciluser").encode() + bytes([1, 2, 3, 4])).hexdigest()
        assertEquals("md54376eb6913b38f9aaff38dc7cf19ca76",
                Md5Password.saltedResponse(new Md5Secret("md520c46e3762c864548e296b33c3406aa9"), new byte[] {1, 2, 3, 4}));
        assertEquals("md50f5b636d891e9860623ac8ca91fc9dfc", Md5Password.saltedResponse(
                new PlaintextSecret("pencil").md5Secret("user"),
                new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF}));
    }

    @Test
    void generatedVerifierHasARandomSaltAndStillMatches() {
        SecureRandom random = new SecureRandom();
        ScramSecret a = ScramSecret.generate("pencil", 4096, random);
        ScramSecret b = ScramSecret.generate("pencil", 4096, random);
        assertFalse(a.encoded().equals(b.encoded()));
        assertTrue(a.matchesCleartext("u", "pencil") && b.matchesCleartext("u", "pencil"));
    }

    @Test
    void toStringNeverShowsTheSecret() {
        assertFalse(new PlaintextSecret("hunter2").toString().contains("hunter2"));
        assertFalse(new Md5Secret(POSTGRES_MD5_USER_HASH).toString().contains("29e3d0a0"));
        assertFalse(ScramSecret.parse(POSTGRES_PENCIL_VERIFIER).toString().contains("fBS6"));
    }
}
