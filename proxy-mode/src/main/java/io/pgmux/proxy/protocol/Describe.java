package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Describe: ask for the description of a prepared statement or portal ({@code name} empty for the unnamed one). */
public record Describe(StatementOrPortal target, String name) implements EncodableMessage {

    public static Describe decode(ByteBuf body) {
        StatementOrPortal target = StatementOrPortal.decode(body);
        Describe describe = new Describe(target, Wire.readCString(body, "name"));
        Wire.expectEnd(body, "Describe");
        return describe;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.DESCRIBE);
        out.writeByte(target.code());
        Wire.writeCString(out, name);
        Wire.endMessage(out, lengthIndex);
    }
}
