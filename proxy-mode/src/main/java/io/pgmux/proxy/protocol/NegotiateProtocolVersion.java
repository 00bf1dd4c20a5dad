package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * NegotiateProtocolVersion: the newest protocol version supported for the requested major version and the
 * {@code _pq_.} protocol options that were not recognized. Sent instead of failing when a client asks for a
 * newer minor version or for options the server does not know. The version is the whole number, major version in
 * the high 16 bits ({@link StartupMessage#PROTOCOL_3_0}), as PostgreSQL sends it and libpq reads it.
 */
public record NegotiateProtocolVersion(int newestVersion, List<String> unrecognizedOptions)
        implements EncodableMessage {

    public NegotiateProtocolVersion {
        unrecognizedOptions = List.copyOf(unrecognizedOptions);
    }

    public static NegotiateProtocolVersion decode(ByteBuf body) {
        int version = Wire.readInt(body, "newest protocol version");
        int count = Wire.readInt(body, "option count");
        if (count < 0 || count > body.readableBytes()) {
            throw new ProtocolViolationException("invalid NegotiateProtocolVersion option count " + count);
        }
        List<String> options = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            options.add(Wire.readCString(body, "option name"));
        }
        Wire.expectEnd(body, "NegotiateProtocolVersion");
        return new NegotiateProtocolVersion(version, options);
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.NEGOTIATE_PROTOCOL_VERSION);
        out.writeInt(newestVersion);
        out.writeInt(unrecognizedOptions.size());
        for (String option : unrecognizedOptions) {
            Wire.writeCString(out, option);
        }
        Wire.endMessage(out, lengthIndex);
    }
}
