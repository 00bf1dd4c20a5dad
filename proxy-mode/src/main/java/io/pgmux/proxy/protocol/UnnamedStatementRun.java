package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Parse, Bind and Execute of the unnamed statement and portal: one statement of the pooler's own whose values
 * travel as text parameters (UTF-8 on the wire, null for SQL NULL), never inside its SQL text, so that no value
 * is read by the lexer. No Sync: the caller ends the batch.
 */
public final class UnnamedStatementRun implements EncodableMessage {
    private final String sql;
    private final String[] parameters;

    /** {@code sql} holds {@code $1}… for {@code parameters}; parameters may be null (SQL NULL), not contain NUL. */
    public UnnamedStatementRun(String sql, String... parameters) {
        this.sql = sql;
        this.parameters = parameters;
        for (String parameter : parameters) {
            if (parameter != null && parameter.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a protocol string cannot contain a NUL character");
            }
        }
    }

    @Override
    public void encode(ByteBuf out) {
        new Parse("", sql, new int[0]).encode(out);
        int bind = Wire.beginMessage(out, FrontendMessage.BIND);
        out.writeByte(0);
        out.writeByte(0);
        // no parameter format codes: all text
        out.writeShort(0);
        out.writeShort(parameters.length);
        for (String parameter : parameters) {
            if (parameter == null) {
                out.writeInt(-1);
            } else {
                int lengthIndex = out.writerIndex();
                out.writeInt(0);
                int written = ByteBufUtil.writeUtf8(out, parameter);
                out.setInt(lengthIndex, written);
            }
        }
        // no result format codes: all text
        out.writeShort(0);
        Wire.endMessage(out, bind);
        int execute = Wire.beginMessage(out, FrontendMessage.EXECUTE);
        out.writeByte(0);
        out.writeInt(0);
        Wire.endMessage(out, execute);
    }

    @Override
    public String toString() {
        return "UnnamedStatementRun(" + sql + ", " + parameters.length + " parameters)";
    }
}
