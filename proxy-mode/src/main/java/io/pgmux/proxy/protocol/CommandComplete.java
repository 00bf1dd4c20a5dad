package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** CommandComplete: the command tag of a finished statement, e.g. {@code SELECT 5}, {@code BEGIN}. */
public record CommandComplete(String tag) implements EncodableMessage {

    public static CommandComplete decode(ByteBuf body) {
        CommandComplete complete = new CommandComplete(Wire.readCString(body, "command tag"));
        Wire.expectEnd(body, "CommandComplete");
        return complete;
    }

    /** Whether the body of {@code length} bytes at {@code start} in {@code frames} is exactly {@code tag}. */
    public static boolean hasTag(ByteBuf frames, int start, int length, byte[] tag) {
        if (length != tag.length) {
            return false;
        }
        for (int i = 0; i < tag.length; i++) {
            if (frames.getByte(start + i) != tag[i]) {
                return false;
            }
        }
        return true;
    }

    /** A tag as it is on the wire, with its terminating zero, for {@link #hasTag}. */
    public static byte[] tag(String tag) {
        byte[] text = tag.getBytes(StandardCharsets.US_ASCII);
        return Arrays.copyOf(text, text.length + 1);
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.COMMAND_COMPLETE);
        Wire.writeCString(out, tag);
        Wire.endMessage(out, lengthIndex);
    }
}
