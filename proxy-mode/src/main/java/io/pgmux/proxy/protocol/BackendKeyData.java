package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * BackendKeyData: the process id and secret key a client must quote in a {@link CancelRequest}.
 * Equality is by value, so a key can be looked up in a map.
 */
public final class BackendKeyData implements EncodableMessage {
    /** The protocol 3.0 key length. */
    public static final int KEY_LENGTH_3_0 = 4;
    /** The longest key protocol 3.2 allows. */
    public static final int MAX_KEY_LENGTH = 256;

    private final int processId;
    /**
     * A secret of protocol 3.0's 4 bytes, big-endian, in the key itself rather than in an array of its own (24 B
     * more). 0 where {@link #longSecret} holds it.
     */
    private final int shortSecret;
    /** A longer secret, as protocol 3.2 allows; null for a 4-byte one, so each secret has one form. */
    private final byte[] longSecret;

    public BackendKeyData(int processId, byte[] secretKey) {
        checkKeyLength(secretKey.length);
        this.processId = processId;
        if (secretKey.length == KEY_LENGTH_3_0) {
            this.shortSecret = bigEndian(secretKey);
            this.longSecret = null;
        } else {
            this.shortSecret = 0;
            this.longSecret = secretKey.clone();
        }
    }

    /** The key {@link #asLong()} gave. */
    public static BackendKeyData ofLong(long key) {
        return new BackendKeyData((int) (key >>> 32), (int) key);
    }

    private BackendKeyData(int processId, int shortSecret) {
        this.processId = processId;
        this.shortSecret = shortSecret;
        this.longSecret = null;
    }

    /** Whether the secret has protocol 3.0's 4 bytes, so that {@link #asLong()} holds the whole key. */
    public boolean hasShortSecret() {
        return longSecret == null;
    }

    /** A key with a 4-byte secret as one long: the process id in the high half, the secret in the low one. */
    public long asLong() {
        if (longSecret != null) {
            throw new IllegalStateException("a secret of " + longSecret.length + " bytes is no long");
        }
        return (long) processId << 32 | shortSecret & 0xFFFF_FFFFL;
    }

    static void checkKeyLength(int length) {
        if (length < KEY_LENGTH_3_0 || length > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("a cancel key has 4 to 256 bytes, not " + length);
        }
    }

    public static BackendKeyData decode(ByteBuf body) {
        int processId = Wire.readInt(body, "BackendKeyData process id");
        int keyLength = body.readableBytes();
        if (keyLength < KEY_LENGTH_3_0 || keyLength > MAX_KEY_LENGTH) {
            throw new ProtocolViolationException("invalid BackendKeyData: secret key of " + keyLength + " bytes");
        }
        return new BackendKeyData(processId, Wire.readRemaining(body));
    }

    public int processId() {
        return processId;
    }

    public byte[] secretKey() {
        if (longSecret != null) {
            return longSecret.clone();
        }
        return new byte[] {(byte) (shortSecret >>> 24), (byte) (shortSecret >>> 16), (byte) (shortSecret >>> 8),
            (byte) shortSecret};
    }

    /** Whether {@code secret} is this key's secret, compared in constant time for a secret of the same length. */
    boolean secretIs(byte[] secret) {
        if (longSecret != null) {
            return MessageDigest.isEqual(longSecret, secret);
        }
        return secret.length == KEY_LENGTH_3_0 && (bigEndian(secret) ^ shortSecret) == 0;
    }

    /** The four bytes of a 3.0 secret as one int, as they go on the wire. */
    private static int bigEndian(byte[] secret) {
        return (secret[0] & 0xFF) << 24 | (secret[1] & 0xFF) << 16 | (secret[2] & 0xFF) << 8 | secret[3] & 0xFF;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.BACKEND_KEY_DATA);
        out.writeInt(processId);
        if (longSecret != null) {
            out.writeBytes(longSecret);
        } else {
            out.writeInt(shortSecret);
        }
        Wire.endMessage(out, lengthIndex);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackendKeyData other
                && other.processId == processId
                && other.shortSecret == shortSecret
                && Arrays.equals(other.longSecret, longSecret);
    }

    @Override
    public int hashCode() {
        return 31 * processId + (longSecret != null ? Arrays.hashCode(longSecret) : shortSecret);
    }

    @Override
    public String toString() {
        return "BackendKeyData(pid=" + processId + ")";
    }
}
