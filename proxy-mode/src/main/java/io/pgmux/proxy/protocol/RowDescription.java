package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.List;

/** RowDescription: the columns of the rows that follow, all in text format. */
public record RowDescription(List<Column> columns) implements EncodableMessage {

    /** A column's name and type; the type says how clients parse the text of its values. */
    public record Column(String name, Type type) {
    }

    /** The PostgreSQL types the pooler's own result sets use, with their OIDs and lengths. */
    public enum Type {
        TEXT(25, -1),
        INT4(23, 4),
        INT8(20, 8),
        NUMERIC(1700, -1);

        final int oid;
        final short length;

        Type(int oid, int length) {
            this.oid = oid;
            this.length = (short) length;
        }
    }

    public RowDescription {
        columns = List.copyOf(columns);
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.ROW_DESCRIPTION);
        out.writeShort(columns.size());
        for (Column column : columns) {
            Wire.writeCString(out, column.name());
            out.writeInt(0);          // no table
            out.writeShort(0);        // no table column
            out.writeInt(column.type().oid);
            out.writeShort(column.type().length);
            out.writeInt(-1);         // no type modifier
            out.writeShort(0);        // text format
        }
        Wire.endMessage(out, lengthIndex);
    }
}
