package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The replay of a client's settings is never read under the client_encoding, backslash_quote or
 * standard_conforming_strings another client left on the server connection: values arrive byte for byte, and none
 * can end the pooler's own statement early.
 */
@PostgresTest
class ReplayEncodingTest {
    /** Client encodings whose multibyte characters may end in a backslash or a quote byte, and a single-byte one. */
    private static final List<String> LEFT_BEHIND = List.of("SJIS", "BIG5", "GBK", "WIN1252");

    private final TestDatabase db;
    /** Transaction mode with one server connection, which every client of a test shares in turn. */
    private PgMuxProxy oneServer;

    ReplayEncodingTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() throws SQLException {
        oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1).authType(AuthType.PLAIN));
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("DROP TABLE IF EXISTS replay_target");
            s.execute("CREATE TABLE replay_target(a int)");
        }
    }

    @AfterEach
    void stop() {
        oneServer.close();
    }

    /** The value: under SJIS the byte 0x81 of Á swallows one backslash of an escaped quote. */
    @Test
    void aValueBuiltToBreakOutUnderSjisDoesNotRunItsInsert() throws Exception {
        leaveBehind("SJIS");
        String value = "Á\\',false);INSERT/**/INTO/**/public.replay_target/**/VALUES(3);--";
        try (RawClient next = client(Map.of("options", "-c x.tenant=" + optionValue(value)))) {
            assertEquals(value, query(next, "SELECT pg_catalog.current_setting('x.tenant')"));
        }
        try (Connection direct = db.connect(); Statement s = direct.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM replay_target")) {
            rows.next();
            assertEquals(0, rows.getInt(1));
        }
    }

    @Test
    void aStartupValueArrivesExactWhateverEncodingTheLastClientLeft() throws Exception {
        StringBuilder every = new StringBuilder("'\\\"$$E'\\x41\\\\''");
        for (char c = 0x80; c <= 0xFF; c++) {
            every.append(c);
        }
        String value = every.toString();
        for (String encoding : LEFT_BEHIND) {
            leaveBehind(encoding);
            try (RawClient next = client(Map.of("options", "-c x.value=" + optionValue(value)))) {
                assertEquals(value, query(next, "SELECT pg_catalog.current_setting('x.value')"), encoding);
            }
        }
    }

    /**
     * A LATIN1 client sets a value holding every byte from 0x80 to 0xFF, quotes and backslashes; another client
     * leaves its encoding on the shared server; the value the first client reads back is the same bytes.
     */
    @Test
    void aValueSetInTheClientsOwnEncodingComesBackExactAfterAnotherClientsEncoding() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes("'\\\"".getBytes(StandardCharsets.US_ASCII));
        for (int b = 0x80; b <= 0xFF; b++) {
            bytes.write(b);
        }
        byte[] value = bytes.toByteArray();
        try (RawClient latin1 = client(Map.of("client_encoding", "LATIN1"))) {
            byte[] literal = new String(value, StandardCharsets.ISO_8859_1).replace("'", "''")
                    .getBytes(StandardCharsets.ISO_8859_1);
            latin1.send('Q', RawClient.concat("SET x.latin = '".getBytes(StandardCharsets.US_ASCII), literal,
                    "'".getBytes(StandardCharsets.US_ASCII), new byte[] {0}));
            assertEquals("CZ", RawClient.types(latin1.readUntilReady()));
            for (String encoding : LEFT_BEHIND) {
                leaveBehind(encoding);
                latin1.query("SELECT pg_catalog.current_setting('x.latin')");
                assertArrayEquals(value, firstColumnBytes(latin1.readUntilReady()), encoding);
            }
        }
    }

    /** A client that uses the shared server with {@code encoding}, backslash_quote on and plain strings escaping. */
    private void leaveBehind(String encoding) throws IOException {
        try (RawClient previous = client(Map.of("client_encoding", encoding,
                "options", "-c backslash_quote=on -c standard_conforming_strings=off"))) {
            assertEquals(encoding, query(previous, "SHOW client_encoding"));
        }
    }

    private RawClient client(Map<String, String> startup) throws IOException {
        RawClient client = new RawClient(oneServer.port());
        client.login(db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, startup);
        return client;
    }

    private static String query(RawClient client, String sql) throws IOException {
        client.query(sql);
        List<RawClient.Message> answer = client.readUntilReady();
        for (RawClient.Message m : answer) {
            if (m.type() == 'E') {
                throw new AssertionError(m.field('C') + " " + m.field('M'));
            }
        }
        return RawClient.firstColumn(answer);
    }

    /** An {@code options} value: a backslash before each character keeps it, spaces and backslashes included. */
    private static String optionValue(String value) {
        StringBuilder escaped = new StringBuilder();
        value.chars().forEach(c -> escaped.append('\\').append((char) c));
        return escaped.toString();
    }

    private static byte[] firstColumnBytes(List<RawClient.Message> messages) {
        for (RawClient.Message m : messages) {
            if (m.type() == 'D') {
                byte[] b = m.body();
                int length = ((b[2] & 0xFF) << 24) | ((b[3] & 0xFF) << 16) | ((b[4] & 0xFF) << 8) | (b[5] & 0xFF);
                return Arrays.copyOfRange(b, 6, 6 + length);
            }
            if (m.type() == 'E') {
                throw new AssertionError(m.field('C') + " " + m.field('M'));
            }
        }
        throw new AssertionError("no DataRow in " + RawClient.types(messages));
    }
}
