package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** ParseComplete: a Parse succeeded. */
public final class ParseComplete implements EncodableMessage {
    public static final ParseComplete INSTANCE = new ParseComplete();

    private ParseComplete() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, BackendMessage.PARSE_COMPLETE);
    }

    @Override
    public String toString() {
        return "ParseComplete";
    }
}
