package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** SSLRequest: the client asks for TLS; answer with an {@link SslResponse} before anything else. */
public final class SslRequest implements EncodableMessage {
    public static final int CODE = 80877103;
    public static final SslRequest INSTANCE = new SslRequest();

    private SslRequest() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(8);
        out.writeInt(CODE);
    }

    @Override
    public String toString() {
        return "SSLRequest";
    }
}
