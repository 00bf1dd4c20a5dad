package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** SASLResponse: a further message of the client in a SASL exchange; the whole body is data. */
public final class SASLResponse implements EncodableMessage {
    private final byte[] data;

    public SASLResponse(byte[] data) {
        this.data = data.clone();
    }

    public static SASLResponse decode(ByteBuf body) {
        return new SASLResponse(Wire.readRemaining(body));
    }

    public byte[] data() {
        return data.clone();
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.PASSWORD);
        out.writeBytes(data);
        Wire.endMessage(out, lengthIndex);
    }

    @Override
    public String toString() {
        return "SASLResponse";
    }
}
