package io.pgmux.proxy.prepared;

import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.FrontendMessage;

/** Bind and Execute of the unnamed portal with no parameters, for the statements the pooler runs itself. */
final class UnnamedPortal {
    /** Bind: portal "", statement "", no formats, no parameters, no result formats. */
    static final EncodableMessage BIND = out -> {
        out.writeByte(FrontendMessage.BIND);
        out.writeInt(4 + 1 + 1 + 2 + 2 + 2);
        out.writeByte(0);
        out.writeByte(0);
        out.writeShort(0);
        out.writeShort(0);
        out.writeShort(0);
    };
    /** Execute: portal "", no row limit. */
    static final EncodableMessage EXECUTE = out -> {
        out.writeByte(FrontendMessage.EXECUTE);
        out.writeInt(4 + 1 + 4);
        out.writeByte(0);
        out.writeInt(0);
    };

    private UnnamedPortal() {
    }
}
