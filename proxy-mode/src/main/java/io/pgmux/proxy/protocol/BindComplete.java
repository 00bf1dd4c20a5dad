package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** BindComplete: a Bind succeeded. */
public final class BindComplete implements EncodableMessage {
    public static final BindComplete INSTANCE = new BindComplete();

    private BindComplete() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, BackendMessage.BIND_COMPLETE);
    }

    @Override
    public String toString() {
        return "BindComplete";
    }
}
