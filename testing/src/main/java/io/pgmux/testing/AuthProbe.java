package io.pgmux.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Asks the server which authentication it demands of a user over TCP: sends a StartupMessage and reads
 * the AuthenticationRequest that comes back, then hangs up without answering it. This observes pg_hba.conf
 * as the server applies it, independent of what any client library does with the request.
 */
final class AuthProbe {

    private static final int PROTOCOL_3_0 = 196608;
    private static final int TIMEOUT_MILLIS = 5_000;

    private AuthProbe() {
    }

    /**
     * Returns the AuthenticationRequest code (0 = AuthenticationOk, 3 = cleartext, 5 = MD5, 10 = SASL).
     *
     * @throws IOException with the server's message when it answers with an ErrorResponse instead
     */
    static int requestedAuthentication(String host, int port, String user, String database) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] startup = startupMessage(user, database);
            out.writeInt(4 + startup.length);
            out.write(startup);
            out.flush();

            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte type = in.readByte();
            int length = in.readInt();
            if (type == 'R') {
                return in.readInt();
            }
            byte[] body = readBody(in, length - 4);
            if (type == 'E') {
                throw new IOException("server refused the startup of " + user + ": " + errorMessage(body));
            }
            throw new IOException("unexpected message '" + (char) type + "' in reply to a StartupMessage");
        }
    }

    private static byte[] startupMessage(String user, String database) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(body);
        out.writeInt(PROTOCOL_3_0);
        for (String text : new String[] {"user", user, "database", database}) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.writeByte(0);
        }
        out.writeByte(0);
        return body.toByteArray();
    }

    private static byte[] readBody(InputStream in, int length) throws IOException {
        if (length < 0 || length > 1 << 20) {
            throw new IOException("implausible message length " + length);
        }
        return in.readNBytes(length);
    }

    /** The 'M' field of an ErrorResponse: fields are a type byte and a C string each, ended by a zero byte. */
    private static String errorMessage(byte[] body) {
        int i = 0;
        while (i < body.length && body[i] != 0) {
            byte field = body[i++];
            int end = i;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            if (field == 'M') {
                return new String(body, i, end - i, StandardCharsets.UTF_8);
            }
            i = end + 1;
        }
        return "(no message)";
    }
}
