package io.pgmux.proxy.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The SCRAM-SHA-256 functions of RFC 5802 §2.2 and §3. */
final class Scram {
    static final String MECHANISM = "SCRAM-SHA-256";
    static final int KEY_LENGTH = 32;
    /** PostgreSQL's SCRAM_DEFAULT_SALT_LEN. */
    static final int SALT_LENGTH = 16;
    /** PostgreSQL's SCRAM_RAW_NONCE_LEN. */
    static final int NONCE_LENGTH = 18;
    /** PostgreSQL's and PgBouncer's default scram_iterations. */
    static final int DEFAULT_ITERATIONS = 4096;

    private static final byte[] CLIENT_KEY = "Client Key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_KEY = "Server Key".getBytes(StandardCharsets.US_ASCII);

    /**
     * Each thread's instances, set to a new key or reset before each use: looking one up among the JDK's providers
     * costs more than the HMAC of a login, which computes several.
     */
    private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks HmacSHA256", e);
        }
    });
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    });

    private Scram() {
    }

    /** SaltedPassword := Hi(Normalize(password), salt, i), with SASLprep as the normalization. */
    static byte[] saltedPassword(String password, byte[] salt, int iterations) {
        if (password.isEmpty()) {
            throw new IllegalArgumentException("SCRAM needs a non-empty password");
        }
        return hi(SaslPrep.prepare(password).getBytes(StandardCharsets.UTF_8), salt, iterations);
    }

    /** Hi(str, salt, i): PBKDF2 with HMAC-SHA-256 and one output block, written out to take raw bytes. */
    static byte[] hi(byte[] password, byte[] salt, int iterations) {
        if (iterations < 1) {
            throw new IllegalArgumentException("iteration count must be positive, not " + iterations);
        }
        Mac mac = mac(password);
        mac.update(salt);
        mac.update(new byte[] {0, 0, 0, 1});
        byte[] u = mac.doFinal();
        byte[] result = u.clone();
        for (int i = 1; i < iterations; i++) {
            u = mac.doFinal(u);
            for (int j = 0; j < result.length; j++) {
                result[j] ^= u[j];
            }
        }
        return result;
    }

    static byte[] clientKey(byte[] saltedPassword) {
        return hmac(saltedPassword, CLIENT_KEY);
    }

    static byte[] serverKey(byte[] saltedPassword) {
        return hmac(saltedPassword, SERVER_KEY);
    }

    /** HMAC(key, parts[0] + parts[1] + …). */
    static byte[] hmac(byte[] key, byte[]... parts) {
        Mac mac = mac(key);
        for (byte[] part : parts) {
            mac.update(part);
        }
        return mac.doFinal();
    }

    static byte[] sha256(byte[] data) {
        return SHA_256.get().digest(data);
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] result = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = (byte) (a[i] ^ b[i]);
        }
        return result;
    }

    /** AuthMessage := client-first-message-bare + "," + server-first-message + "," + client-final-without-proof. */
    static byte[] authMessage(String clientFirstBare, String serverFirst, String clientFinalWithoutProof) {
        return (clientFirstBare + "," + serverFirst + "," + clientFinalWithoutProof).getBytes(StandardCharsets.UTF_8);
    }

    static String nonce(SecureRandom random) {
        byte[] raw = new byte[NONCE_LENGTH];
        random.nextBytes(raw);
        return base64(raw);
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** @throws IllegalArgumentException if {@code text} is not padded standard base64 */
    static byte[] fromBase64(String text) {
        return Base64.getDecoder().decode(text);
    }

    /** This thread's HMAC, keyed with {@code key}; used up before the thread's next call. */
    private static Mac mac(byte[] key) {
        Mac mac = MAC.get();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 refuses a key of " + key.length + " bytes", e);
        }
        return mac;
    }
}
