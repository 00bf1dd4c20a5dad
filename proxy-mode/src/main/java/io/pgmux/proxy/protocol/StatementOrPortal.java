package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** What a Close or Describe refers to: {@code 'S'} a prepared statement, {@code 'P'} a portal. */
public enum StatementOrPortal {
    STATEMENT('S'),
    PORTAL('P');

    private final byte code;

    StatementOrPortal(char code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    static StatementOrPortal decode(ByteBuf body) {
        byte code = Wire.readByte(body, "statement-or-portal byte");
        if (code == STATEMENT.code) {
            return STATEMENT;
        }
        if (code == PORTAL.code) {
            return PORTAL;
        }
        throw new ProtocolViolationException("invalid message format: expected 'S' or 'P', got " + (code & 0xFF));
    }
}
