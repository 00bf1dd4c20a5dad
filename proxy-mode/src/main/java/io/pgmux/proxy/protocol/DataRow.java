package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/** DataRow, read only for the pooler's own queries, whose results are text. */
public final class DataRow {

    private DataRow() {
    }

    /** The columns as text, null for NULL. */
    public static String[] textColumns(ByteBuf body) {
        int count = Wire.readShort(body, "DataRow column count");
        if (count < 0) {
            throw new ProtocolViolationException("invalid DataRow column count " + count);
        }
        String[] columns = new String[count];
        for (int i = 0; i < count; i++) {
            int length = Wire.readInt(body, "DataRow column length");
            if (length >= 0) {
                columns[i] = new String(Wire.readBytes(body, length, "DataRow column"), StandardCharsets.UTF_8);
            } else if (length != -1) {
                throw new ProtocolViolationException("invalid DataRow column length " + length);
            }
        }
        Wire.expectEnd(body, "DataRow");
        return columns;
    }
}
