package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;

/**
 * Parse: create a prepared statement ({@code statementName} empty for the unnamed one) from a query with
 * optionally pre-specified parameter type OIDs (0 = unspecified).
 */
public final class Parse implements EncodableMessage {
    private final String statementName;
    private final String query;
    private final int[] parameterTypes;

    public Parse(String statementName, String query, int[] parameterTypes) {
        this.statementName = statementName;
        this.query = query;
        this.parameterTypes = parameterTypes.clone();
    }

    /**
     * Whether {@code parse} is a well-formed Parse of the unnamed statement, read where it lies: most drivers' one-shot
     * statements are, and they pass through unchanged without their text decoded into a String.
     */
    public static boolean isUnnamed(FrontendMessage parse) {
        ByteBuf frame = parse.content();
        return isUnnamed(frame, frame.readerIndex(), frame.writerIndex());
    }

    /** The same for the Parse from {@code start} (its type byte) to {@code end} in {@code frame}. */
    public static boolean isUnnamed(ByteBuf frame, int start, int end) {
        int at = start + Wire.HEADER_LENGTH;
        if (at >= end || frame.getByte(at) != 0) {
            return false;
        }
        int queryEnd = frame.indexOf(at + 1, end, (byte) 0);
        return queryEnd >= 0 && end - queryEnd >= 3 && end - queryEnd - 3 == frame.getUnsignedShort(queryEnd + 1) * 4;
    }

    public static Parse decode(ByteBuf body) {
        String name = Wire.readCString(body, "statement name");
        String query = Wire.readCString(body, "query string");
        int count = Wire.readShort(body, "parameter type count") & 0xFFFF;
        if (body.readableBytes() != count * 4) {
            throw new ProtocolViolationException("invalid message format: Parse with " + count
                    + " parameter types has " + body.readableBytes() + " bytes for them");
        }
        int[] types = new int[count];
        for (int i = 0; i < count; i++) {
            types[i] = body.readInt();
        }
        return new Parse(name, query, types);
    }

    /**
     * The Parse in {@code parse} with another statement name; query text and types are a retained slice of the
     * original, so they reach the server byte for byte. The caller keeps its reference to {@code parse}.
     */
    public static ByteBuf renameStatement(ByteBufAllocator alloc, FrontendMessage parse, String statementName) {
        if (parse.type() != FrontendMessage.PARSE) {
            throw new IllegalArgumentException("not a Parse message: " + parse);
        }
        return Wire.replaceLeadingCString(alloc, parse.content(), 0, statementName);
    }

    public String statementName() {
        return statementName;
    }

    public String query() {
        return query;
    }

    public int[] parameterTypes() {
        return parameterTypes.clone();
    }

    /** Same query and parameter types: what decides whether two clients can share one server statement. */
    public boolean sameStatementAs(Parse other) {
        return query.equals(other.query) && Arrays.equals(parameterTypes, other.parameterTypes);
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.PARSE);
        Wire.writeCString(out, statementName);
        Wire.writeCString(out, query);
        out.writeShort(parameterTypes.length);
        for (int type : parameterTypes) {
            out.writeInt(type);
        }
        Wire.endMessage(out, lengthIndex);
    }

    @Override
    public String toString() {
        return "Parse(" + statementName + ", " + query + ", " + Arrays.toString(parameterTypes) + ")";
    }
}
