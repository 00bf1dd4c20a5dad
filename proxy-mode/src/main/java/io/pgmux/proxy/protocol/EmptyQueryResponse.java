package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** EmptyQueryResponse: the answer to an empty query string, in place of CommandComplete. */
public final class EmptyQueryResponse implements EncodableMessage {
    public static final EmptyQueryResponse INSTANCE = new EmptyQueryResponse();

    private EmptyQueryResponse() {
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeEmptyMessage(out, BackendMessage.EMPTY_QUERY_RESPONSE);
    }

    @Override
    public String toString() {
        return "EmptyQueryResponse";
    }
}
