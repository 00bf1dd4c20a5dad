package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Close: drop a prepared statement or portal ({@code name} empty for the unnamed one). */
public record Close(StatementOrPortal target, String name) implements EncodableMessage {

    public static Close decode(ByteBuf body) {
        StatementOrPortal target = StatementOrPortal.decode(body);
        Close close = new Close(target, Wire.readCString(body, "name"));
        Wire.expectEnd(body, "Close");
        return close;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.CLOSE);
        out.writeByte(target.code());
        Wire.writeCString(out, name);
        Wire.endMessage(out, lengthIndex);
    }
}
