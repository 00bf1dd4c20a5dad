package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** ParameterDescription of a statement without parameters: the answer to its Describe, before NoData or RowDescription. */
public final class ParameterDescription implements EncodableMessage {
    public static final ParameterDescription NONE = new ParameterDescription();

    private ParameterDescription() {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(BackendMessage.PARAMETER_DESCRIPTION);
        out.writeInt(6);
        out.writeShort(0);
    }

    @Override
    public String toString() {
        return "ParameterDescription[]";
    }
}
