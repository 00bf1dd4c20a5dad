package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * What ErrorResponse and NoticeResponse share: the same fields, keyed by their protocol field codes
 * ({@code 'S'}, {@code 'V'}, {@code 'C'}, {@code 'M'}, {@code 'D'}, {@code 'H'}, …), under different type bytes.
 */
public abstract sealed class FieldMessage implements EncodableMessage permits ErrorResponse, NoticeResponse {
    final Map<Character, String> fields;
    private final byte type;

    FieldMessage(byte type, Map<Character, String> fields) {
        this.type = type;
        this.fields = fields;
    }

    /** The untranslated {@code 'V'} field when present, else the {@code 'S'} field. */
    public String severity() {
        return NoticeFields.severity(fields);
    }

    public String sqlState() {
        return fields.get(NoticeFields.CODE);
    }

    public String message() {
        return fields.get(NoticeFields.MESSAGE);
    }

    /** Null when absent. */
    public String detail() {
        return fields.get(NoticeFields.DETAIL);
    }

    /** Null when absent. */
    public String hint() {
        return fields.get(NoticeFields.HINT);
    }

    /** Every field, in the order received, keyed by protocol field code. */
    public Map<Character, String> fields() {
        return fields;
    }

    @Override
    public void encode(ByteBuf out) {
        NoticeFields.encode(out, type, fields);
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((FieldMessage) o).fields.equals(fields);
    }

    @Override
    public int hashCode() {
        return fields.hashCode();
    }

    @Override
    public String toString() {
        return severity() + " " + sqlState() + " " + message();
    }
}
