package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * StartupMessage: the protocol version the client asks for and its parameters ({@code user},
 * {@code database}, {@code options}, {@code application_name}, GUCs, {@code _pq_.} protocol options), in the
 * order they were sent.
 */
public final class StartupMessage implements EncodableMessage {
    /** Protocol 3.0, what every current client and server speaks. */
    public static final int PROTOCOL_3_0 = 3 << 16;
    /** Protocol 3.2 (PostgreSQL 18): the only change is variable-length cancel keys. */
    public static final int PROTOCOL_3_2 = (3 << 16) | 2;

    private final int protocolVersion;
    private final Map<String, String> parameters;

    public StartupMessage(int protocolVersion, Map<String, String> parameters) {
        this.protocolVersion = protocolVersion;
        this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** Decodes the packet body after the protocol version; the body must end with the empty terminator. */
    static StartupMessage decode(int protocolVersion, ByteBuf body) {
        Map<String, String> parameters = new LinkedHashMap<>();
        while (true) {
            if (!body.isReadable()) {
                throw new ProtocolViolationException("invalid startup packet layout: expected terminator as last byte");
            }
            String name = Wire.readCString(body, "startup parameter name");
            if (name.isEmpty()) {
                if (body.isReadable()) {
                    throw new ProtocolViolationException(
                            "invalid startup packet layout: expected terminator as last byte");
                }
                return new StartupMessage(protocolVersion, parameters);
            }
            parameters.put(name, Wire.readCString(body, "value of startup parameter"));
        }
    }

    public int protocolVersion() {
        return protocolVersion;
    }

    public int majorVersion() {
        return protocolVersion >>> 16;
    }

    public int minorVersion() {
        return protocolVersion & 0xFFFF;
    }

    public Map<String, String> parameters() {
        return parameters;
    }

    /** The {@code user} parameter, or null when the client sent none (PgBouncer: "no username supplied"). */
    public String user() {
        return parameters.get("user");
    }

    /** The {@code database} parameter; as in PostgreSQL, the user name when it is missing or empty. */
    public String database() {
        String database = parameters.get("database");
        return database == null || database.isEmpty() ? user() : database;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        out.writeInt(protocolVersion);
        parameters.forEach((name, value) -> {
            Wire.writeCString(out, name);
            Wire.writeCString(out, value);
        });
        out.writeByte(0);
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex);
    }

    @Override
    public String toString() {
        return "StartupMessage(" + majorVersion() + "." + minorVersion() + ", " + parameters + ")";
    }
}
