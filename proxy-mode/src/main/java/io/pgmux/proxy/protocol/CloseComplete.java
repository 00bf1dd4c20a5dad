package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** CloseComplete: a Close succeeded (also when there was nothing to close). */
public final class CloseComplete implements EncodableMessage {
    public static final CloseComplete INSTANCE = new CloseComplete();

    private CloseComplete() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, BackendMessage.CLOSE_COMPLETE);
    }

    @Override
    public String toString() {
        return "CloseComplete";
    }
}
