package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Bind: the destination portal and source prepared statement of a Bind. Only these two names are decoded;
 * formats and parameter values stay in the message and are forwarded untouched.
 */
public record Bind(String portal, String statementName) {

    /** Whether {@code bind} binds the unnamed statement, read where it lies (its portal name is skipped). */
    public static boolean bindsUnnamedStatement(FrontendMessage bind) {
        ByteBuf frame = bind.content();
        return bindsUnnamedStatement(frame, frame.readerIndex(), frame.writerIndex());
    }

    /** The same for the Bind from {@code start} (its type byte) to {@code end} in {@code frames}. */
    public static boolean bindsUnnamedStatement(ByteBuf frames, int start, int end) {
        int portalEnd = frames.indexOf(start + Wire.HEADER_LENGTH, end, (byte) 0);
        return portalEnd >= 0 && portalEnd + 1 < end && frames.getByte(portalEnd + 1) == 0;
    }

    /**
     * Where the statement name of the Bind from {@code start} (its type byte) to {@code end} in {@code frames} begins,
     * after the portal name; -1 when the portal name is not terminated within the message.
     */
    public static int statementNameStart(ByteBuf frames, int start, int end) {
        int portalEnd = frames.indexOf(start + Wire.HEADER_LENGTH, end, (byte) 0);
        return portalEnd < 0 ? -1 : portalEnd + 1;
    }

    public static Bind decode(ByteBuf body) {
        String portal = Wire.readCString(body, "portal name");
        String statement = Wire.readCString(body, "statement name");
        return new Bind(portal, statement);
    }

    /**
     * The Bind in {@code bind} with another source statement name. Only the header and the two names are
     * written anew; formats and parameter values are a retained slice of the original (no re-encoding, no
     * copy). The caller keeps its reference to {@code bind}.
     */
    public static ByteBuf renameStatement(ByteBufAllocator alloc, FrontendMessage bind, String statementName) {
        if (bind.type() != FrontendMessage.BIND) {
            throw new IllegalArgumentException("not a Bind message: " + bind);
        }
        return Wire.replaceLeadingCString(alloc, bind.content(), 1, statementName);
    }
}
