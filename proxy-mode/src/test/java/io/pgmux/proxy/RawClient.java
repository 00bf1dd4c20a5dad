package io.pgmux.proxy;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal protocol-level client over a plain socket, for what pgjdbc never sends: duplicate statement names,
 * garbage, a socket dropped mid-transaction. It logs in with trust, cleartext or md5 passwords. Public for the
 * differential tests, which send the same bytes to PgBouncer.
 */
public final class RawClient implements AutoCloseable {
    /** One message from the proxy: type and body. */
    public record Message(char type, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** An ErrorResponse/NoticeResponse field, e.g. 'C' for SQLSTATE, 'M' for the message. */
        public String field(char code) {
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
    /** The BackendKeyData body the login received (process id and secret key), for a CancelRequest. */
    private byte[] backendKey;

    public RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Connects and logs in; returns the messages up to and including the first ReadyForQuery. */
    static RawClient login(PgMuxProxy proxy, String database, String user, String password) throws IOException {
        RawClient client = new RawClient(proxy.port());
        client.login(database, user, password);
        return client;
    }

    /** Logs in, answering a cleartext or md5 password request, and reads up to the first ReadyForQuery. */
    public void login(String database, String user, String password) throws IOException {
        login(database, user, password, Map.of());
    }

    /** Logs in with more startup parameters ({@code options}, {@code client_encoding}, …). */
    public void login(String database, String user, String password, Map<String, String> parameters)
            throws IOException {
        Map<String, String> startup = new LinkedHashMap<>(parameters);
        startup.put("user", user);
        startup.put("database", database);
        startup(startup);
        Message m = read();
        if (m.type() == 'R' && m.body()[3] == 3) {
            send('p', cstring(password));
            m = read();
        } else if (m.type() == 'R' && m.body()[3] == 5) {
            String inner = md5Hex((password + user).getBytes(StandardCharsets.UTF_8));
            byte[] salt = Arrays.copyOfRange(m.body(), 4, 8);
            send('p', cstring("md5" + md5Hex(concat(inner.getBytes(StandardCharsets.US_ASCII), salt))));
            m = read();
        }
        if (m.type() != 'R' || m.body()[3] != 0) {
            throw new IOException("login failed: " + m.type() + " " + m.text());
        }
        for (Message welcome : readUntilReady()) {
            if (welcome.type() == 'K') {
                backendKey = welcome.body();
            }
        }
    }

    /** The BackendKeyData body the login received: process id, then secret key. */
    public byte[] backendKey() {
        return backendKey.clone();
    }

    /** Sends a CancelRequest with this client's key on a connection of its own, as libpq's PQcancel does. */
    void cancel() throws IOException {
        cancelVia(socket.getPort());
    }

    /** As {@link #cancel()}, to {@code port}: a pooler other than the one this client is on, as a balancer may. */
    public void cancelVia(int port) throws IOException {
        try (Socket cancel = new Socket("127.0.0.1", port)) {
            cancel.getOutputStream().write(concat(int32(8 + backendKey.length), int32(80877102), backendKey));
            cancel.getOutputStream().flush();
            // the proxy closes the connection once it has read the request
            cancel.getInputStream().read();
        }
    }

    private static String md5Hex(byte[] input) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(input));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public void startup(Map<String, String> parameters) throws IOException {
        sendRaw(startupPacket(parameters));
    }

    /** A protocol 3.0 startup packet with these parameters, to send with other bytes in one write. */
    public static byte[] startupPacket(Map<String, String> parameters) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0, 3, 0, 0});
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            body.writeBytes(cstring(e.getKey()));
            body.writeBytes(cstring(e.getValue()));
        }
        body.write(0);
        return concat(int32(body.size() + 4), body.toByteArray());
    }

    void send(char type, byte[] body) throws IOException {
        sendRaw(frame(type, body));
    }

    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void query(String sql) throws IOException {
        sendRaw(queryFrame(sql));
    }

    void parse(String name, String sql) throws IOException {
        sendRaw(parseFrame(name, sql));
    }

    void bind(String statement) throws IOException {
        sendRaw(bindFrame(statement));
    }

    void execute() throws IOException {
        sendRaw(executeFrame());
    }

    void closeStatement(String name) throws IOException {
        send('C', concat(new byte[] {'S'}, cstring(name)));
    }

    void sync() throws IOException {
        sendRaw(syncFrame());
    }

    /** A Query, as on the wire: with the other frames, several messages go in one write with {@link #sendRaw}. */
    static byte[] queryFrame(String sql) {
        return frame('Q', cstring(sql));
    }

    /** A Parse with no parameter types. */
    static byte[] parseFrame(String name, String sql) {
        return frame('P', concat(cstring(name), cstring(sql), new byte[] {0, 0}));
    }

    /** A Bind of the unnamed portal, with no parameters and text results. */
    static byte[] bindFrame(String statement) {
        return frame('B', concat(cstring(""), cstring(statement), new byte[] {0, 0, 0, 0, 0, 0}));
    }

    /** An Execute of the unnamed portal, with no row limit. */
    static byte[] executeFrame() {
        return frame('E', concat(cstring(""), new byte[] {0, 0, 0, 0}));
    }

    static byte[] syncFrame() {
        return frame('S', new byte[0]);
    }

    public Message read() throws IOException {
        char type = (char) in.readUnsignedByte();
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        return new Message(type, body);
    }

    public List<Message> readUntilReady() throws IOException {
        List<Message> messages = new ArrayList<>();
        Message m;
        do {
            m = read();
            messages.add(m);
        } while (m.type() != 'Z');
        return messages;
    }

    /**
     * Starts a login of {@code user} to {@code database} that the proxy answers with a SCRAM-SHA-256 request, and
     * returns the server-first-message it sends for a fixed client-first-message (its salt and iterations).
     */
    String scramServerFirst(String user, String database) throws IOException {
        startup(Map.of("user", user, "database", database));
        Message request = read();
        if (request.type() != 'R') {
            throw new IOException("no authentication request but " + request.type());
        }
        byte[] mechanism = "SCRAM-SHA-256\0".getBytes(StandardCharsets.US_ASCII);
        byte[] clientFirst = "n,,n=,r=abcdefghijklmnop".getBytes(StandardCharsets.US_ASCII);
        send('p', ByteBuffer.allocate(mechanism.length + 4 + clientFirst.length)
                .put(mechanism).putInt(clientFirst.length).put(clientFirst).array());
        Message serverFirst = read();
        if (serverFirst.type() != 'R') {
            throw new IOException("no SASLContinue but " + serverFirst.type() + ": " + serverFirst.field('M'));
        }
        return new String(serverFirst.body(), 4, serverFirst.body().length - 4, StandardCharsets.US_ASCII);
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

    /** The next byte, or -1 at the end of the proxy's stream. */
    int readByteOrEnd() throws IOException {
        return in.read();
    }

    /** Bytes the proxy sent that wait to be read, without waiting for more. */
    int available() throws IOException {
        return in.available();
    }

    /** Sends FIN: the proxy reads the end of the client's input after what came before it. */
    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** How long a read waits before {@link SocketTimeoutException}. */
    void readTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
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
    public static String firstColumn(List<Message> messages) {
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
    public static byte[] frame(char type, byte[] body) {
        return concat(new byte[] {(byte) type}, int32(body.length + 4), body);
    }

    /** A big-endian 32-bit integer, as lengths and codes go on the wire. */
    public static byte[] int32(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    public static byte[] cstring(String s) {
        return concat(s.getBytes(StandardCharsets.UTF_8), new byte[] {0});
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            all.writeBytes(part);
        }
        return all.toByteArray();
    }
}
