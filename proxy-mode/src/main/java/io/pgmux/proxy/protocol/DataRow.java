package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** DataRow: one row of values in text format; a null value is SQL NULL. */
public final class DataRow implements EncodableMessage {
    private final List<String> values;

    public DataRow(List<String> values) {
        this.values = Collections.unmodifiableList(new ArrayList<>(values));
    }

    public List<String> values() {
        return values;
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
