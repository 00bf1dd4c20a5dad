package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ServerConnection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random bytes in every phase of a connection end it (with a FATAL error or a plain close) and leave no server
 * connection behind. Seeded, so a failure reproduces.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    BadInputTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .authType(AuthType.MD5)
                .users(Map.of("raw", "secret")));
    }

    @AfterAll
    void stop() {
        proxy.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void garbageInsteadOfAStartupPacketEndsTheConnection(long seed) throws Exception {
        try (RawClient c = new RawClient(proxy.port())) {
            c.sendRaw(garbage(seed));
            endsWithFatalOrClose(c.readUntilClosed());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15, 16, 17, 18})
    void garbageInsteadOfAPasswordEndsTheConnection(long seed) throws Exception {
        try (RawClient c = new RawClient(proxy.port())) {
            c.startup(Map.of("user", "raw", "database", db.name()));
            RawClient.Message challenge = c.read();
            assertEquals('R', challenge.type());
            c.sendRaw(garbage(seed));
            endsWithFatalOrClose(c.readUntilClosed());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28})
    void garbageAfterLoginEndsTheConnection(long seed) throws Exception {
        try (RawClient c = loggedIn()) {
            c.sendRaw(garbage(seed));
            endsWithFatalOrClose(c.readUntilClosed());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {31, 32, 33, 34, 35, 36, 37, 38})
    void garbageInsideATransactionEndsTheConnectionAndLeaksNoServer(long seed) throws Exception {
        try (RawClient c = loggedIn()) {
            c.query("BEGIN");
            c.readUntilReady();
            assertEquals(1, pool().getActiveConnections());
            c.sendRaw(garbage(seed));
            endsWithFatalOrClose(c.readUntilClosed());
        }
        assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
        try (RawClient c = loggedIn()) {
            c.query("SELECT 1");
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals('I', (char) result.get(result.size() - 1).body()[0]);
        }
    }

    @org.junit.jupiter.api.Test
    void malformedParseAsFirstMessageOfATransactionEndsTheConnectionAndLeaksNoServer() throws Exception {
        try (RawClient c = loggedIn()) {
            // a Parse whose parameter count promises more type OIDs than the message holds
            c.send('P', RawClient.concat(RawClient.cstring("S1"), RawClient.cstring("SELECT 1"), new byte[] {0, 9}));
            c.sync();
            List<RawClient.Message> messages = c.readUntilClosed();
            assertEquals(1, messages.size());
            assertEquals("FATAL", messages.get(0).field('S'));
            assertEquals("failed to parse packet", messages.get(0).field('M'));
            assertTrue(messages.get(0).field('D').startsWith("invalid message format"), messages.get(0).field('D'));
        }
        assertEquals(0, ProxyFixture.awaitActive(pool(), 0));
    }

    @org.junit.jupiter.api.Test
    void aPasswordMessageAfterLoginIsAnUnknownPacketThatCostsNoServerConnection() throws Exception {
        try (RawClient other = loggedIn()) {
            String pid = backendPid(other);
            try (RawClient c = loggedIn()) {
                c.send('p', RawClient.cstring("secret"));
                List<RawClient.Message> messages = c.readUntilClosed();
                assertEquals(1, messages.size(), RawClient.types(messages));
                assertEquals("FATAL", messages.get(0).field('S'));
                assertEquals("08P01", messages.get(0).field('C'));
                assertEquals("unknown pkt", messages.get(0).field('M'));
            }
            assertEquals(pid, backendPid(other), "the server connection was closed");
        }
    }

    /**
     * PostgreSQL answers a Flush with a body with an error and then ignores everything until a Sync: passed on, it
     * would leave the server deaf to the next client it is lent to.
     */
    @org.junit.jupiter.api.Test
    void aFlushWithABodyEndsTheClientAndTheNextClientOfItsServerIsAnswered() throws Exception {
        PgMuxProxy single = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .authType(AuthType.MD5)
                .users(Map.of("raw", "secret"))
                .defaultPoolSize(1));
        try {
            try (RawClient c = new RawClient(single.port())) {
                c.login(db.name(), "raw", "secret");
                c.sendRaw(RawClient.concat(RawClient.frame('Q', RawClient.cstring("SELECT 1")),
                        RawClient.frame('H', new byte[] {'r'})));
                List<RawClient.Message> messages = c.readUntilClosed();
                RawClient.Message last = messages.get(messages.size() - 1);
                assertEquals("FATAL", last.field('S'), RawClient.types(messages));
                assertEquals("08P01", last.field('C'));
                assertEquals("bad packet header: '480000000572'", last.field('M'));
            }
            try (RawClient next = new RawClient(single.port())) {
                next.readTimeout(10_000);
                next.login(db.name(), "raw", "secret");
                next.query("SELECT 2");
                assertEquals("2", RawClient.firstColumn(next.readUntilReady()));
            }
        } finally {
            single.close();
        }
    }

    private static String backendPid(RawClient c) throws Exception {
        c.query("SELECT pg_backend_pid()");
        return RawClient.firstColumn(c.readUntilReady());
    }

    private Pool<ServerConnection> pool() {
        return ProxyFixture.pool(proxy, db);
    }

    private RawClient loggedIn() throws Exception {
        RawClient c = new RawClient(proxy.port());
        c.login(db.name(), "raw", "secret");
        return c;
    }

    /**
     * Garbage that is not accidentally a well-formed request: a length that the decoders must refuse or a type
     * byte no frontend message has, followed by random bytes.
     */
    private static byte[] garbage(long seed) {
        Random random = new Random(seed);
        byte[] bytes = new byte[16 + random.nextInt(200)];
        random.nextBytes(bytes);
        if (seed % 2 == 0) {
            bytes[0] = (byte) 0xFF;
        } else {
            bytes[0] = (byte) '~';
        }
        return bytes;
    }

    private static void endsWithFatalOrClose(List<RawClient.Message> messages) {
        for (RawClient.Message m : messages) {
            if (m.type() == 'E') {
                assertEquals("FATAL", m.field('S'), m.field('M'));
                return;
            }
        }
        assertTrue(messages.stream().noneMatch(m -> m.type() == 'Z'), "no ReadyForQuery after garbage");
    }
}
