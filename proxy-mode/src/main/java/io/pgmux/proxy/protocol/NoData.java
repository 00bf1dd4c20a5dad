package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** NoData: the statement or portal Described returns no rows. */
public final class NoData implements EncodableMessage {
    public static final NoData INSTANCE = new NoData();

    private NoData() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, BackendMessage.NO_DATA);
    }

    @Override
    public String toString() {
        return "NoData";
    }
}
