package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Sync: end of an extended-query batch; the server answers with ReadyForQuery. */
public final class Sync implements EncodableMessage {
    public static final Sync INSTANCE = new Sync();

    private Sync() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, FrontendMessage.SYNC);
    }

    @Override
    public String toString() {
        return "Sync";
    }
}
