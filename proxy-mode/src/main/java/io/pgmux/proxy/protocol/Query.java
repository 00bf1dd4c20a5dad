package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Query: a simple-protocol query string, possibly several statements. */
public record Query(String sql) implements EncodableMessage {

    public static Query decode(ByteBuf body) {
        Query query = new Query(Wire.readCString(body, "query string"));
        Wire.expectEnd(body, "Query");
        return query;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.QUERY);
        Wire.writeCString(out, sql);
        Wire.endMessage(out, lengthIndex);
    }
}
