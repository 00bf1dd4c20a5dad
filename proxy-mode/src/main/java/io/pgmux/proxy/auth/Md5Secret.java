package io.pgmux.proxy.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** An md5 hash as PostgreSQL stores it: {@code "md5" + md5hex(password + user)}. Useless for SCRAM. */
public final class Md5Secret implements Secret {
    private static final int LENGTH = 35;

    private final String hash;

    public Md5Secret(String hash) {
        if (!isMd5Hash(hash)) {
            throw new IllegalArgumentException("an md5 secret is \"md5\" followed by 32 lowercase hex digits");
        }
        this.hash = hash;
    }

    static boolean isMd5Hash(String value) {
        if (value.length() != LENGTH || !value.startsWith("md5")) {
            return false;
        }
        for (int i = 3; i < LENGTH; i++) {
            char c = value.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** The stored form, {@code md5} + 32 hex digits. */
    public String hash() {
        return hash;
    }

    @Override
    public boolean matchesCleartext(String user, String password) {
        return MessageDigest.isEqual(hash.getBytes(StandardCharsets.US_ASCII),
                Md5Password.encrypt(password, user).getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public String toString() {
        return "Md5Secret[redacted]";
    }
}
