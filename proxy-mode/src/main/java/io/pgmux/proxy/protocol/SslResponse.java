package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The single unframed byte that answers an SSLRequest or GSSENCRequest: {@code 'S'} (go ahead with the
 * handshake) or {@code 'N'} (continue in plain text).
 */
public enum SslResponse implements EncodableMessage {
    ACCEPTED('S'),
    REJECTED('N');

    private final byte code;

    SslResponse(char code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(code);
    }
}
