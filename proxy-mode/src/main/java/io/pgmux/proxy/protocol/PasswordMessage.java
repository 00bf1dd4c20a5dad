package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;

/** PasswordMessage: a cleartext password or an {@code md5…} response. */
public final class PasswordMessage implements EncodableMessage {
    private final String password;

    public PasswordMessage(String password) {
        this.password = password;
    }

    /** PostgreSQL's rule: the string must fill the message exactly. */
    public static PasswordMessage decode(ByteBuf body) {
        PasswordMessage message = new PasswordMessage(Wire.readCString(body, "password"));
        if (body.isReadable()) {
            throw new ProtocolViolationException("invalid password packet size");
        }
        return message;
    }

    public String password() {
        return password;
    }

    @Override
    public void encode(ByteBuf out) {
        int lengthIndex = Wire.beginMessage(out, FrontendMessage.PASSWORD);
        Wire.writeCString(out, password);
        Wire.endMessage(out, lengthIndex);
    }

    @Override
    public String toString() {
        return "PasswordMessage";
    }
}
