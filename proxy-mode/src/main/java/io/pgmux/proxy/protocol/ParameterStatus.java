package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** ParameterStatus: the current value of a reported run-time parameter (client_encoding, TimeZone, …). */
public record ParameterStatus(String name, String value) implements EncodableMessage {

    public static ParameterStatus decode(ByteBuf body) {
        ParameterStatus status = new ParameterStatus(
                Wire.readCString(body, "parameter name"), Wire.readCString(body, "parameter value"));
        Wire.expectEnd(body, "ParameterStatus");
        return status;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.PARAMETER_STATUS);
        Wire.writeCString(out, name);
        Wire.writeCString(out, value);
        Wire.endMessage(out, lengthIndex);
    }
}
