package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** Describe: ask for the description of a prepared statement or portal ({@code name} empty for the unnamed one). */
public record Describe(StatementOrPortal target, String name) implements EncodableMessage {

    /**
     * What a well-formed Describe of a portal or of the unnamed statement describes, read where it lies: those pass
     * through unchanged. Null for any other (a named statement's, or a malformed one, for {@link #decode}).
     */
    public static StatementOrPortal passingThrough(FrontendMessage describe) {
        ByteBuf frame = describe.content();
        return passingThrough(frame, frame.readerIndex(), frame.writerIndex());
    }

    /** The same for the Describe from {@code start} (its type byte) to {@code end} in {@code frame}. */
    public static StatementOrPortal passingThrough(ByteBuf frame, int start, int end) {
        int at = start + Wire.HEADER_LENGTH;
        if (end - at < 2 || frame.getByte(end - 1) != 0) {
            return null;
        }
        byte target = frame.getByte(at);
        if (target == StatementOrPortal.PORTAL.code() && frame.indexOf(at + 1, end, (byte) 0) == end - 1) {
            return StatementOrPortal.PORTAL;
        }
        return target == StatementOrPortal.STATEMENT.code() && end - at == 2 ? StatementOrPortal.STATEMENT : null;
    }

    public static Describe decode(ByteBuf body) {
        StatementOrPortal target = StatementOrPortal.decode(body);
        Describe describe = new Describe(target, Wire.readCString(body, "name"));
        Wire.expectEnd(body, "Describe");
        return describe;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.DESCRIBE);
        out.writeByte(target.code());
        Wire.writeCString(out, name);
        Wire.endMessage(out, lengthIndex);
    }
}
