package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * DataRow: one row of values in text format; a null value is SQL NULL. Written for the results the proxy answers
 * itself, read only for the pooler's own queries.
 */
public final class DataRow implements EncodableMessage {
    private final List<String> values;

    public DataRow(List<String> values) {
        this.values = Collections.unmodifiableList(new ArrayList<>(values));
    }

    public List<String> values() {
        return values;
    }

    /** The columns of a DataRow body as text, null for NULL. */
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

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.DATA_ROW);
        out.writeShort(values.size());
        for (String value : values) {
            if (value == null) {
                out.writeInt(-1);
            } else {
                int at = out.writerIndex();
                out.writeInt(0);
                int written = ByteBufUtil.writeUtf8(out, value);
                out.setInt(at, written);
            }
        }
        Wire.endMessage(out, lengthIndex);
    }
}
