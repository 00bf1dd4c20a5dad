package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/**
 * CancelRequest: sent on a new connection, it names the session to cancel by the key the server gave in
 * {@link BackendKeyData}. Protocol 3.0 keys are 4 bytes; protocol 3.2 allows up to 256.
 */
public final class CancelRequest implements EncodableMessage {
    public static final int CODE = 80877102;

    private final int processId;
    private final byte[] secretKey;

    public CancelRequest(int processId, byte[] secretKey) {
        BackendKeyData.checkKeyLength(secretKey.length);
        this.processId = processId;
        this.secretKey = secretKey.clone();
    }

    /** The key as a {@link BackendKeyData}, to look up the session it names. */
    public BackendKeyData key() {
        return new BackendKeyData(processId, secretKey);
    }

    public int processId() {
        return processId;
    }

    public byte[] secretKey() {
        return secretKey.clone();
    }

    /** Whether this request names {@code key}, comparing the secret in constant time. */
    public boolean matches(BackendKeyData key) {
        return key.processId() == processId && key.secretIs(secretKey);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(12 + secretKey.length);
        out.writeInt(CODE);
        out.writeInt(processId);
        out.writeBytes(secretKey);
    }

    /** The process id only: the secret key is what authorises a cancel. */
    @Override
    public String toString() {
        return "CancelRequest(pid=" + processId + ")";
    }
}
