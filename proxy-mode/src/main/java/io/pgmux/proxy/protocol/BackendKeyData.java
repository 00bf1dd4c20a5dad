package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
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
    private final byte[] secretKey;

    public BackendKeyData(int processId, byte[] secretKey) {
        checkKeyLength(secretKey.length);
        this.processId = processId;
        this.secretKey = secretKey.clone();
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
        return secretKey.clone();
    }

    byte[] secretKeyBytes() {
        return secretKey;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.BACKEND_KEY_DATA);
        out.writeInt(processId);
        out.writeBytes(secretKey);
        Wire.endMessage(out, lengthIndex);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackendKeyData other
                && other.processId == processId
                && Arrays.equals(other.secretKey, secretKey);
    }

    @Override
    public int hashCode() {
        return 31 * processId + Arrays.hashCode(secretKey);
    }

    @Override
    public String toString() {
        return "BackendKeyData(pid=" + processId + ")";
    }
}
