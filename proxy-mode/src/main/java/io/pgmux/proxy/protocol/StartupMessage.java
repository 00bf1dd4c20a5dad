package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
    /** The prefix of protocol options, which are not run-time parameters. */
    private static final String PROTOCOL_OPTION_PREFIX = "_pq_.";

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

    /**
     * What a server that speaks protocol 3.0 answers before authentication: null when the client asked for 3.0 and
     * for no {@code _pq_.} protocol option, else the version it gets (3.0) and the options it asked for, none of
     * which the pooler knows.
     */
    public NegotiateProtocolVersion negotiation() {
        List<String> options = null;
        for (String name : parameters.keySet()) {
            if (name.startsWith(PROTOCOL_OPTION_PREFIX)) {
                if (options == null) {
                    options = new ArrayList<>();
                }
                options.add(name);
            }
        }
        if (minorVersion() == 0 && options == null) {
            return null;
        }
        return new NegotiateProtocolVersion(PROTOCOL_3_0, options == null ? List.of() : options);
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
