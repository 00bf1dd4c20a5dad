package io.pgmux.proxy;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A minimal protocol-level client over a plain socket, for what pgjdbc never sends: duplicate statement names,
 * garbage, a socket dropped mid-transaction. It logs in with trust or cleartext passwords only.
 */
final class RawClient implements AutoCloseable {
    /** One message from the proxy: type and body. */
    record Message(char type, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** An ErrorResponse/NoticeResponse field, e.g. 'C' for SQLSTATE, 'M' for the message. */
        String field(char code) {
            int i = 0;
            while (i < body.length && body[i] != 0) {
                int end = i + 1;
                while (body[end] != 0) {
                    end++;
                }
                if (body[i] == code) {
                    return new String(body, i + 1, end - i - 1, StandardCharsets.UTF_8);
                }
                i = end + 1;
            }
            return null;
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Connects and logs in; returns the messages up to and including the first ReadyForQuery. */
    static RawClient login(PgMuxProxy proxy, String database, String user, String password) throws IOException {
        RawClient client = new RawClient(proxy.port());
        client.startup(Map.of("user", user, "database", database));
        Message m = client.read();
        if (m.type() == 'R' && m.body()[3] == 3) {
            client.send('p', cstring(password));
            m = client.read();
        }
        if (m.type() != 'R' || m.body()[3] != 0) {
            throw new IOException("login failed: " + m.type() + " " + m.text());
        }
        client.readUntilReady();
        return client;
    }

    void startup(Map<String, String> parameters) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(new byte[] {0, 3, 0, 0});
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            body.writeBytes(cstring(e.getKey()));
            body.writeBytes(cstring(e.getValue()));
        }
        body.write(0);
        out.writeInt(body.size() + 4);
        out.write(body.toByteArray());
        out.flush();
    }

    void send(char type, byte[] body) throws IOException {
        sendRaw(frame(type, body));
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void query(String sql) throws IOException {
        send('Q', cstring(sql));
    }

    void parse(String name, String sql) throws IOException {
        send('P', concat(cstring(name), cstring(sql), new byte[] {0, 0}));
    }

    void bind(String statement) throws IOException {
        send('B', concat(cstring(""), cstring(statement), new byte[] {0, 0, 0, 0, 0, 0}));
    }

    void execute() throws IOException {
        send('E', concat(cstring(""), new byte[] {0, 0, 0, 0}));
    }

    void closeStatement(String name) throws IOException {
        send('C', concat(new byte[] {'S'}, cstring(name)));
    }

    void sync() throws IOException {
        send('S', new byte[0]);
    }

    Message read() throws IOException {
        char type = (char) in.readUnsignedByte();
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        return new Message(type, body);
    }

    List<Message> readUntilReady() throws IOException {
        List<Message> messages = new ArrayList<>();
        Message m;
        do {
            m = read();
            messages.add(m);
        } while (m.type() != 'Z');
        return messages;
    }

    /** Reads until the proxy closes the connection; returns what came before (an ErrorResponse, typically). */
    List<Message> readUntilClosed() throws IOException {
        List<Message> messages = new ArrayList<>();
        try {
            while (true) {
                messages.add(read());
            }
        } catch (EOFException | SocketTimeoutException e) {
            if (e instanceof SocketTimeoutException) {
                throw e;
            }
            return messages;
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().contains("reset")) {
                return messages;
            }
            throw e;
        }
    }

    /** Closes with RST instead of FIN, as a killed process's socket may. */
    void abort() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** The messages' types in order, NoticeResponse and ParameterStatus left out: e.g. "12DCZ". */
    static String types(List<Message> messages) {
        StringBuilder s = new StringBuilder();
        for (Message m : messages) {
            if (m.type() != 'N' && m.type() != 'S') {
                s.append(m.type());
            }
        }
        return s.toString();
    }

    /** The first column of the first DataRow, as text. */
    static String firstColumn(List<Message> messages) {
        List<String> all = firstColumns(messages);
        if (all.isEmpty()) {
            throw new AssertionError("no DataRow in " + types(messages));
        }
        return all.get(0);
    }

    /** The first column of each DataRow, as text, in order. */
    static List<String> firstColumns(List<Message> messages) {
        List<String> values = new ArrayList<>();
        for (Message m : messages) {
            if (m.type() == 'D') {
                byte[] b = m.body();
                int length = ((b[2] & 0xFF) << 24) | ((b[3] & 0xFF) << 16) | ((b[4] & 0xFF) << 8) | (b[5] & 0xFF);
                values.add(new String(b, 6, length, StandardCharsets.UTF_8));
            }
        }
        return values;
    }

    /** One message as on the wire, to send several in one write with {@link #sendRaw}. */
    static byte[] frame(char type, byte[] body) {
        int length = body.length + 4;
        return concat(new byte[] {(byte) type, (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8),
                (byte) length}, body);
    }

    static byte[] cstring(String s) {
        return concat(s.getBytes(StandardCharsets.UTF_8), new byte[] {0});
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            all.writeBytes(part);
        }
        return all.toByteArray();
    }
}
