package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** CommandComplete: the command tag of a finished statement, e.g. {@code SELECT 5}, {@code BEGIN}. */
public record CommandComplete(String tag) implements EncodableMessage {

    public static CommandComplete decode(ByteBuf body) {
        CommandComplete complete = new CommandComplete(Wire.readCString(body, "command tag"));
        Wire.expectEnd(body, "CommandComplete");
        return complete;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.COMMAND_COMPLETE);
        Wire.writeCString(out, tag);
        Wire.endMessage(out, lengthIndex);
    }
}
