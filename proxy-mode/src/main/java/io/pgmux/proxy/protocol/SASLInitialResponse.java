package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** SASLInitialResponse: the chosen mechanism and the client's first message ({@code null} when it has none). */
public final class SASLInitialResponse implements EncodableMessage {
    private final String mechanism;
    private final byte[] data;

    public SASLInitialResponse(String mechanism, byte[] data) {
        this.mechanism = mechanism;
        this.data = data == null ? null : data.clone();
    }

    public static SASLInitialResponse decode(ByteBuf body) {
        String mechanism = Wire.readCString(body, "SASL mechanism name");
        int length = Wire.readInt(body, "SASL data length");
        byte[] data = length == -1 ? null : Wire.readBytes(body, length, "SASL data");
        Wire.expectEnd(body, "SASLInitialResponse");
        return new SASLInitialResponse(mechanism, data);
    }

    public String mechanism() {
        return mechanism;
    }

    /** The initial response, or null when the client sent none (length -1). */
    public byte[] data() {
        return data == null ? null : data.clone();
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.PASSWORD);
        Wire.writeCString(out, mechanism);
        if (data == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(data.length);
            out.writeBytes(data);
        }
        Wire.endMessage(out, lengthIndex);
    }

    @Override
    public String toString() {
        return "SASLInitialResponse(" + mechanism + ")";
    }
}
