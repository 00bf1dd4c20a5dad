package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/** Builds wire bytes by hand, independently of the encoders under test. */
final class Bytes {
    private final ByteBuf buf = Unpooled.buffer();

    static Bytes of() {
        return new Bytes();
    }

    Bytes int32(int value) {
        buf.writeInt(value);
        return this;
    }

    Bytes int16(int value) {
        buf.writeShort(value);
        return this;
    }

    Bytes byte1(int value) {
        buf.writeByte(value);
        return this;
    }

    Bytes cstring(String value) {
        buf.writeBytes(value.getBytes(StandardCharsets.UTF_8)).writeByte(0);
        return this;
    }

    Bytes raw(byte[] bytes) {
        buf.writeBytes(bytes);
        return this;
    }

    /** Prefixes an untyped startup packet's length (which counts itself). */
    ByteBuf startupPacket() {
        ByteBuf packet = Unpooled.buffer().writeInt(buf.readableBytes() + 4).writeBytes(buf);
        buf.release();
        return packet;
    }

    /** Prefixes a typed message's type and length. */
    ByteBuf message(char type) {
        ByteBuf message = Unpooled.buffer().writeByte(type).writeInt(buf.readableBytes() + 4).writeBytes(buf);
        buf.release();
        return message;
    }

    ByteBuf body() {
        return buf;
    }

    static String hex(ByteBuf buf) {
        return ByteBufUtil.hexDump(buf);
    }

    /** What an encoder writes, as hex, releasing the buffer. */
    static String encoded(EncodableMessage message) {
        ByteBuf out = Unpooled.buffer();
        message.encode(out);
        try {
            return hex(out);
        } finally {
            out.release();
        }
    }

    /** The body of an encoded typed message (header skipped), for the message class decoders. */
    static ByteBuf bodyOf(EncodableMessage message) {
        ByteBuf out = Unpooled.buffer();
        message.encode(out);
        return out.skipBytes(5);
    }
}
