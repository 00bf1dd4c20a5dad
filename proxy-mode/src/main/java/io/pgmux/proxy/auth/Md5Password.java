package io.pgmux.proxy.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

/** PostgreSQL's md5 password scheme ({@code pg_md5_encrypt}), for both sides of md5 authentication. */
public final class Md5Password {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Md5Password() {
    }

    /** The stored form: {@code "md5" + md5hex(password + user)}. */
    public static String encrypt(String password, String user) {
        return "md5" + md5Hex(concat(password.getBytes(StandardCharsets.UTF_8), user.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * What a client answers to AuthenticationMD5Password: {@code "md5" + md5hex(md5hex(password + user) + salt)},
     * computed from the stored form so that a pooler holding only the hash can answer too.
     */
    public static String saltedResponse(Md5Secret secret, byte[] salt) {
        byte[] inner = secret.hash().substring(3).getBytes(StandardCharsets.US_ASCII);
        return "md5" + md5Hex(concat(inner, salt));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] result = new byte[a.length + b.length];
        System.arraycopy(a, 0, result, 0, a.length);
        System.arraycopy(b, 0, result, a.length, b.length);
        return result;
    }

    private static String md5Hex(byte[] data) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("MD5").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks MD5", e);
        }
        char[] hex = new char[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            hex[2 * i] = HEX[(digest[i] >> 4) & 0xF];
            hex[2 * i + 1] = HEX[digest[i] & 0xF];
        }
        return new String(hex);
    }
}
