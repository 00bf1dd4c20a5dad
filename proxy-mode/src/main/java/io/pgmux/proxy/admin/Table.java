package io.pgmux.proxy.admin;

import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.DataRow;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.RowDescription;
import io.pgmux.proxy.protocol.RowDescription.Column;
import io.pgmux.proxy.protocol.RowDescription.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * A result set the console sends: PgBouncer's column names and types, rows of text values, and the
 * command tag {@code SHOW}. Numbers are written with {@link String#valueOf}; null is SQL NULL.
 */
final class Table {
    private final List<Column> columns = new ArrayList<>();
    private final List<DataRow> rows = new ArrayList<>();

    Table text(String... names) {
        return add(Type.TEXT, names);
    }

    Table int4(String... names) {
        return add(Type.INT4, names);
    }

    Table int8(String... names) {
        return add(Type.INT8, names);
    }

    Table numeric(String... names) {
        return add(Type.NUMERIC, names);
    }

    private Table add(Type type, String... names) {
        for (String name : names) {
            columns.add(new Column(name, type));
        }
        return this;
    }

    /** One row; each value is a String, a Number, or null. */
    void row(Object... values) {
        if (values.length != columns.size()) {
            throw new IllegalArgumentException(values.length + " values for " + columns.size() + " columns");
        }
        List<String> text = new ArrayList<>(values.length);
        for (Object v : values) {
            text.add(v == null ? null : String.valueOf(v));
        }
        rows.add(new DataRow(text));
    }

    void row(List<?> values) {
        row(values.toArray());
    }

    List<EncodableMessage> messages() {
        List<EncodableMessage> out = new ArrayList<>(rows.size() + 2);
        out.add(new RowDescription(columns));
        out.addAll(rows);
        out.add(new CommandComplete("SHOW"));
        return out;
    }
}
