package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Flush: asks the server to send what it has produced so far. */
public final class Flush implements EncodableMessage {
    public static final Flush INSTANCE = new Flush();

    private Flush() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, FrontendMessage.FLUSH);
    }

    @Override
    public String toString() {
        return "Flush";
    }
}
