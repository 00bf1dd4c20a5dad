package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A client declaring a huge message cannot make the proxy buffer it: a large Query is streamed to the server as
 * it arrives, and one longer than max_packet_size is refused from its header.
 */
@PostgresTest
class LargeMessageTest {
    private static final int DECLARED = 1_000_000_000;
    private static final int PIECE = 64 * 1024;
    private static final int TRICKLED = 64 * 1024 * 1024;
    /** Far below what buffering the trickled bytes would take, above the allocator's chunk granularity. */
    private static final long BOUND = 24L * 1024 * 1024;

    private final TestDatabase db;

    LargeMessageTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void aQueryDeclaringAGigabyteIsStreamedWhileAnotherClientIsServed() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN));
                RawClient huge = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
                RawClient other = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            long before = usedDirectMemory();
            huge.sendRaw(new byte[] {'Q', (byte) (DECLARED >>> 24), (byte) (DECLARED >>> 16),
                    (byte) (DECLARED >>> 8), (byte) DECLARED});
            byte[] piece = new byte[PIECE];
            Arrays.fill(piece, (byte) ' ');
            long most = 0;
            for (int sent = 0; sent < TRICKLED; sent += PIECE) {
                huge.sendRaw(piece);
                most = Math.max(most, usedDirectMemory() - before);
                if (sent % (16 * PIECE) == 0) {
                    other.query("SELECT 1");
                    assertEquals("1", RawClient.firstColumn(other.readUntilReady()));
                }
            }
            assertTrue(most < BOUND, "the proxy held " + most + " bytes more while " + TRICKLED + " were trickled");
            huge.abort();
            assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
        }
    }

    @Test
    void aMessageLongerThanMaxPacketSizeEndsTheClientFromItsHeader() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN)
                        .maxPacketSize(1024 * 1024));
                RawClient c = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            int declared = 2 * 1024 * 1024;
            c.sendRaw(new byte[] {'Q', (byte) (declared >>> 24), (byte) (declared >>> 16), (byte) (declared >>> 8),
                    (byte) declared});
            List<RawClient.Message> answer = c.readUntilClosed();
            assertEquals("E", RawClient.types(answer));
            assertEquals("08P01", answer.get(0).field('C'));
            assertEquals("FATAL", answer.get(0).field('S'));
        }
    }

    @Test
    void aQueryJustOverTheStreamingThresholdRunsWhole() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN));
                RawClient c = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            String literal = "x".repeat(300 * 1024);
            byte[] frame = RawClient.frame('Q', RawClient.cstring("SELECT length('" + literal + "')"));
            // in small writes, so that the proxy sees the message in pieces
            for (int at = 0; at < frame.length; at += 1000) {
                c.sendRaw(Arrays.copyOfRange(frame, at, Math.min(frame.length, at + 1000)));
            }
            assertEquals(String.valueOf(literal.length()), RawClient.firstColumn(c.readUntilReady()));
        }
    }

    @Test
    void aServerWhoseClientLeftInTheMiddleOfAStreamedCopyDataIsNotHandedToTheNextClient() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN)
                .defaultPoolSize(1))) {
            try (RawClient leaving = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                // CopyData outside COPY asks for no answer: the server reads it whole, and ignores it
                leaving.sendRaw(RawClient.concat(new byte[] {'d'}, RawClient.int32(100_000), new byte[80_000]));
                ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 1);
            }
            try (RawClient next = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                next.readTimeout(5_000);
                next.query("SELECT 2");
                assertEquals("2", RawClient.firstColumn(next.readUntilReady()));
            }
        }
    }

    @Test
    void aServerInTheMiddleOfAStreamedMessageAtReadyForQueryIsNotHandedToTheNextClient() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.PLAIN)
                .defaultPoolSize(1));
                RawClient streaming = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            // the server answers the Query with ReadyForQuery while the CopyData after it has not all arrived
            byte[] copyData = new byte[80_000];
            streaming.sendRaw(RawClient.concat(RawClient.frame('Q', RawClient.cstring("SELECT 1")),
                    new byte[] {'d'}, RawClient.int32(100_000), copyData));
            assertEquals("1", RawClient.firstColumn(streaming.readUntilReady()));
            try (RawClient next = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
                next.readTimeout(5_000);
                next.query("SELECT 2");
                // read by the proxy: waiting for the server, or (were it handed over at once) holding it
                Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
                Await.until(() -> pool.view().waitingClients() == 1 || pool.getActiveConnections() == 1,
                        Duration.ofSeconds(10), "the next client's query read");
                streaming.sendRaw(new byte[100_000 + 1 - 5 - copyData.length]);
                streaming.query("SELECT 3");
                assertEquals("3", RawClient.firstColumn(streaming.readUntilReady()));
                assertEquals("2", RawClient.firstColumn(next.readUntilReady()));
            }
        }
    }

    private static long usedDirectMemory() {
        return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
    }
}
