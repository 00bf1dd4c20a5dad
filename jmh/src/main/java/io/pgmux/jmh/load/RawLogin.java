package io.pgmux.jmh.load;

import io.pgmux.proxy.auth.ScramClient;
import io.pgmux.proxy.auth.ScramException;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A protocol 3.0 login over a plain socket, with trust, cleartext, md5 or SCRAM-SHA-256 authentication, up to
 * the first ReadyForQuery. The startup packet carries the session settings a pgjdbc connection ends up with
 * ({@link #startupSettings()}). What is left is an idle client connection that costs its own process one
 * socket, so thousands fit in one small JVM.
 */
final class RawLogin {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int AUTH_OK = 0;
    private static final int AUTH_CLEARTEXT = 3;
    private static final int AUTH_MD5 = 5;
    private static final int AUTH_SASL = 10;
    private static final int AUTH_SASL_CONTINUE = 11;
    private static final int AUTH_SASL_FINAL = 12;

    private RawLogin() {
    }

    /**
     * Beside user and database: client_encoding, DateStyle and TimeZone as pgjdbc 42.7 sends them at startup,
     * extra_float_digits and application_name as it sets them right after.
     */
    static Map<String, String> startupSettings() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("client_encoding", "UTF8");
        p.put("DateStyle", "ISO");
        p.put("TimeZone", "UTC");
        p.put("extra_float_digits", "3");
        p.put("application_name", "PostgreSQL JDBC Driver");
        return p;
    }

    /**
     * Connects and logs in; returns the socket once the server has sent ReadyForQuery.
     *
     * @throws IOException for a failed connection or login, with the server's message when it sent one
     */
    static Socket login(String host, int port, String database, String user, String password) throws IOException {
        return login(host, port, database, user, password, null);
    }

    /**
     * Connects, logs in and runs {@code query} (a simple Query, unless null); returns the socket once the server
     * has answered it with ReadyForQuery.
     *
     * @throws IOException for a failed connection, login or query, with the server's message when it sent one
     */
    static Socket login(String host, int port, String database, String user, String password, String query)
            throws IOException {
        Socket socket = new Socket(host, port);
        try {
            socket.setSoTimeout(120_000);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1024));
            OutputStream out = socket.getOutputStream();
            out.write(startupPacket(database, user));
            out.flush();
            exchange(in, out, user, password);
            if (query != null) {
                byte[] sql = cstring(query);
                out.write(ByteBuffer.allocate(5 + sql.length).put((byte) 'Q').putInt(4 + sql.length).put(sql).array());
                out.flush();
                exchange(in, out, user, password);
            }
            socket.setSoTimeout(0);
            return socket;
        } catch (ScramException e) {
            socket.close();
            throw new IOException("SCRAM login failed: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Answers the server's messages until its ReadyForQuery: authentication, or a query's rows, which it skips.
     *
     * @throws IOException for an ErrorResponse, with its text, or an authentication this login has not
     */
    static void exchange(DataInputStream in, OutputStream out, String user, String password)
            throws IOException, ScramException {
        Authentication authentication = new Authentication(user, password);
        while (true) {
            char type = (char) in.readUnsignedByte();
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            if (type == 'Z') {
                return;
            }
            byte[] reply = authentication.answer(type, body);
            if (reply != null) {
                out.write(reply);
                out.flush();
            }
        }
    }

    /** One login's side of authentication: the answer to each message the server sends before ReadyForQuery. */
    static final class Authentication {
        private final String user;
        private final String password;
        private ScramClient scram;

        Authentication(String user, String password) {
            this.user = user;
            this.password = password;
        }

        String user() {
            return user;
        }

        /**
         * The message to send in answer to a server message of {@code type}, or null when none is due.
         *
         * @throws IOException for an ErrorResponse, with its text, or an authentication this login has not
         */
        byte[] answer(char type, byte[] body) throws IOException, ScramException {
            if (type == 'E') {
                throw new IOException(errorMessage(body));
            }
            if (type != 'R') {
                return null; // ParameterStatus, BackendKeyData, NoticeResponse, a query's rows: nothing to keep
            }
            int code = ByteBuffer.wrap(body).getInt();
            return switch (code) {
                case AUTH_OK -> null;
                case AUTH_CLEARTEXT -> password(cstring(password));
                case AUTH_MD5 -> password(cstring(md5(password, user, body, 4)));
                case AUTH_SASL -> {
                    scram = ScramClient.withPassword(password, RANDOM);
                    yield password(saslInitialResponse(scram.clientFirstMessage()));
                }
                case AUTH_SASL_CONTINUE -> password(scram().handleServerFirst(rest(body, 4))
                        .getBytes(StandardCharsets.UTF_8));
                case AUTH_SASL_FINAL -> {
                    scram().handleServerFinal(rest(body, 4));
                    yield null;
                }
                default -> throw new IOException("unsupported authentication request " + code);
            };
        }

        private ScramClient scram() throws IOException {
            if (scram == null) {
                throw new IOException("SASL continuation before SASL started");
            }
            return scram;
        }
    }

    private static String rest(byte[] body, int from) {
        return new String(body, from, body.length - from, StandardCharsets.UTF_8);
    }

    static byte[] startupPacket(String database, String user) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0, 3, 0, 0});
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", user);
        parameters.put("database", database);
        parameters.putAll(startupSettings());
        parameters.forEach((name, value) -> {
            body.writeBytes(cstring(name));
            body.writeBytes(cstring(value));
        });
        body.write(0);
        return ByteBuffer.allocate(4 + body.size()).putInt(4 + body.size()).put(body.toByteArray()).array();
    }

    private static byte[] saslInitialResponse(String clientFirst) {
        byte[] mechanism = cstring(ScramClient.mechanism());
        byte[] first = clientFirst.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(mechanism.length + 4 + first.length)
                .put(mechanism).putInt(first.length).put(first).array();
    }

    /** A PasswordMessage, SASLInitialResponse or SASLResponse: all are type 'p'. */
    private static byte[] password(byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) 'p').putInt(4 + body.length).put(body).array();
    }

    /** libpq's {@code "md5" + md5(md5(password + user) + salt)}. */
    private static String md5(String password, String user, byte[] body, int saltAt) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            String inner = HexFormat.of().formatHex(md5.digest((password + user).getBytes(StandardCharsets.UTF_8)));
            md5.update(inner.getBytes(StandardCharsets.US_ASCII));
            md5.update(body, saltAt, 4);
            return "md5" + HexFormat.of().formatHex(md5.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JDK", e);
        }
    }

    private static String errorMessage(byte[] body) {
        String severity = "";
        String message = "";
        int i = 0;
        while (i < body.length && body[i] != 0) {
            int end = i + 1;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            String value = new String(body, i + 1, end - i - 1, StandardCharsets.UTF_8);
            if (body[i] == 'S') {
                severity = value;
            } else if (body[i] == 'M') {
                message = value;
            }
            i = end + 1;
        }
        return severity + ": " + message;
    }

    private static byte[] cstring(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        byte[] withNul = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, withNul, 0, bytes.length);
        return withNul;
    }
}
