package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * The Authentication* messages (type {@code 'R'}), one nested type each, named after the protocol chapter
 * without the common prefix: {@code Authentication.MD5Password} is AuthenticationMD5Password.
 */
public sealed interface Authentication extends EncodableMessage {
    int OK = 0;
    int CLEARTEXT_PASSWORD = 3;
    int MD5_PASSWORD = 5;
    int SASL = 10;
    int SASL_CONTINUE = 11;
    int SASL_FINAL = 12;

    /** The request code in the first four bytes of the body. */
    int code();

    static Authentication decode(ByteBuf body) {
        int code = Wire.readInt(body, "authentication request code");
        Authentication message = switch (code) {
            case OK -> Ok.INSTANCE;
            case CLEARTEXT_PASSWORD -> CleartextPassword.INSTANCE;
            case MD5_PASSWORD -> new MD5Password(Wire.readBytes(body, MD5Password.SALT_LENGTH, "MD5 salt"));
            case SASL -> new SASL(decodeMechanisms(body));
            case SASL_CONTINUE -> new SASLContinue(Wire.readRemaining(body));
            case SASL_FINAL -> new SASLFinal(Wire.readRemaining(body));
            default -> {
                body.skipBytes(body.readableBytes());
                yield new Unsupported(code);
            }
        };
        Wire.expectEnd(body, "Authentication request " + code);
        return message;
    }

    private static List<String> decodeMechanisms(ByteBuf body) {
        List<String> mechanisms = new ArrayList<>();
        while (true) {
            String mechanism = Wire.readCString(body, "SASL mechanism list");
            if (mechanism.isEmpty()) {
                return mechanisms;
            }
            mechanisms.add(mechanism);
        }
    }

    private static void encode(ByteBuf out, int code) {
        out.writeByte(BackendMessage.AUTHENTICATION);
        out.writeInt(8);
        out.writeInt(code);
    }

    private static void encode(ByteBuf out, int code, byte[] data) {
        int lengthIndex = Wire.beginMessage(out, BackendMessage.AUTHENTICATION);
        out.writeInt(code);
        out.writeBytes(data);
        Wire.endMessage(out, lengthIndex);
    }

    /** AuthenticationOk: authentication succeeded. */
    final class Ok implements Authentication {
        public static final Ok INSTANCE = new Ok();

        private Ok() {
        }

        @Override
        public int code() {
            return OK;
        }

        @Override
        public void encode(ByteBuf out) {
            Authentication.encode(out, OK);
        }

        @Override
        public String toString() {
            return "AuthenticationOk";
        }
    }

    /** AuthenticationCleartextPassword: send the password in a PasswordMessage. */
    final class CleartextPassword implements Authentication {
        public static final CleartextPassword INSTANCE = new CleartextPassword();

        private CleartextPassword() {
        }

        @Override
        public int code() {
            return CLEARTEXT_PASSWORD;
        }

        @Override
        public void encode(ByteBuf out) {
            Authentication.encode(out, CLEARTEXT_PASSWORD);
        }

        @Override
        public String toString() {
            return "AuthenticationCleartextPassword";
        }
    }

    /** AuthenticationMD5Password: send {@code md5(md5(password + user) + salt)} with this 4-byte salt. */
    final class MD5Password implements Authentication {
        public static final int SALT_LENGTH = 4;
        private final byte[] salt;

        public MD5Password(byte[] salt) {
            if (salt.length != SALT_LENGTH) {
                throw new IllegalArgumentException("an MD5 salt has 4 bytes, not " + salt.length);
            }
            this.salt = salt.clone();
        }

        public byte[] salt() {
            return salt.clone();
        }

        @Override
        public int code() {
            return MD5_PASSWORD;
        }

        @Override
        public void encode(ByteBuf out) {
            Authentication.encode(out, MD5_PASSWORD, salt);
        }

        @Override
        public String toString() {
            return "AuthenticationMD5Password";
        }
    }

    /** AuthenticationSASL: the SASL mechanisms the server offers, in order of preference. */
    final class SASL implements Authentication {
        private final List<String> mechanisms;

        public SASL(List<String> mechanisms) {
            this.mechanisms = List.copyOf(mechanisms);
        }

        public List<String> mechanisms() {
            return mechanisms;
        }

        @Override
        public int code() {
            return Authentication.SASL;
        }

        @Override
        public void encode(ByteBuf out) {
            int lengthIndex = Wire.beginMessage(out, BackendMessage.AUTHENTICATION);
            out.writeInt(Authentication.SASL);
            for (String mechanism : mechanisms) {
                Wire.writeCString(out, mechanism);
            }
            out.writeByte(0);
            Wire.endMessage(out, lengthIndex);
        }

        @Override
        public String toString() {
            return "AuthenticationSASL" + mechanisms;
        }
    }

    /** AuthenticationSASLContinue: a server challenge (SCRAM's server-first-message). */
    final class SASLContinue implements Authentication {
        private final byte[] data;

        public SASLContinue(byte[] data) {
            this.data = data.clone();
        }

        public byte[] data() {
            return data.clone();
        }

        @Override
        public int code() {
            return SASL_CONTINUE;
        }

        @Override
        public void encode(ByteBuf out) {
            Authentication.encode(out, SASL_CONTINUE, data);
        }

        @Override
        public String toString() {
            return "AuthenticationSASLContinue";
        }
    }

    /** AuthenticationSASLFinal: the server's last SASL message (SCRAM's server-final-message). */
    final class SASLFinal implements Authentication {
        private final byte[] data;

        public SASLFinal(byte[] data) {
            this.data = data.clone();
        }

        public byte[] data() {
            return data.clone();
        }

        @Override
        public int code() {
            return SASL_FINAL;
        }

        @Override
        public void encode(ByteBuf out) {
            Authentication.encode(out, SASL_FINAL, data);
        }

        @Override
        public String toString() {
            return "AuthenticationSASLFinal";
        }
    }

    /** A request the pooler does not implement (KerberosV5, GSS, SSPI, …); its body is not kept. */
    final class Unsupported implements Authentication {
        private final int code;

        public Unsupported(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }

        @Override
        public void encode(ByteBuf out) {
            Authentication.encode(out, code);
        }

        @Override
        public String toString() {
            return "Authentication(" + code + ")";
        }
    }
}
