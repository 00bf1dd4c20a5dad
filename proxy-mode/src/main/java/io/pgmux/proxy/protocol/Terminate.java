package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Terminate: the orderly end of a connection. */
public final class Terminate implements EncodableMessage {
    public static final Terminate INSTANCE = new Terminate();

    private Terminate() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, FrontendMessage.TERMINATE);
    }

    @Override
    public String toString() {
        return "Terminate";
    }
}
