package io.pgmux.proxy;

import static io.pgmux.proxy.RawClient.bindFrame;
import static io.pgmux.proxy.RawClient.concat;
import static io.pgmux.proxy.RawClient.executeFrame;
import static io.pgmux.proxy.RawClient.parseFrame;
import static io.pgmux.proxy.RawClient.syncFrame;
import static io.pgmux.proxy.RawClient.types;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.ResourceLeakDetector;
import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A transaction of a named prepared statement (pgbench -M prepared: Bind, Execute and Sync in one read, the statement
 * renamed per server) costs the proxy's event loop next to no allocation once warm: the run is read and renamed
 * where it lies. Counted as the bytes the event-loop thread allocated (the JVM's per-thread counter) over many
 * transactions of one client through a real proxy to a real PostgreSQL.
 */
@PostgresTest
class PreparedRunAllocationTest {
    private static final String USER = "raw";
    private static final int WARM_UP = 5_000;
    private static final int TRANSACTIONS = 5_000;
    /**
     * What a transaction may allocate: the pool's lease and the holders of the client's run and of the server's
     * answer come to about 80 B; splitting the run and decoding the name to a String came to about 500.
     */
    private static final long BYTES_PER_TRANSACTION = 200;

    private final TestDatabase db;
    private PgMuxProxy proxy;
    private ResourceLeakDetector.Level leakDetection;

    PreparedRunAllocationTest(TestDatabase db) {
        this.db = db;
    }

    /** The module tests with paranoid leak detection, which records every buffer: what is counted here is the proxy's. */
    @BeforeEach
    void noLeakDetection() {
        leakDetection = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterEach
    void stop() {
        proxy.close();
        ResourceLeakDetector.setLevel(leakDetection);
    }

    @Test
    void aPreparedStatementsTransactionAllocatesAlmostNothingOnTheEventLoop() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .authType(AuthType.TRUST)
                .users(Map.of(USER, ""))
                .defaultPoolSize(1)
                .maxPreparedStatements(200)
                .threads(1));
        try (RawClient c = RawClient.login(proxy, db.name(), USER, "")) {
            c.sendRaw(concat(parseFrame("S1", "SELECT 1"), syncFrame()));
            assertEquals("1Z", types(c.readUntilReady()));
            byte[] transaction = concat(bindFrame("S1"), executeFrame(), syncFrame());
            run(c, transaction, WARM_UP);

            long before = eventLoopsAllocated();
            run(c, transaction, TRANSACTIONS);
            long perTransaction = (eventLoopsAllocated() - before) / TRANSACTIONS;

            assertTrue(perTransaction <= BYTES_PER_TRANSACTION,
                    perTransaction + " B per transaction, more than " + BYTES_PER_TRANSACTION);
        }
    }

    private static void run(RawClient c, byte[] transaction, int times) throws IOException {
        for (int i = 0; i < times; i++) {
            c.sendRaw(transaction);
            List<RawClient.Message> result = c.readUntilReady();
            assertEquals('Z', result.get(result.size() - 1).type());
        }
    }

    /** What the proxy's event-loop threads allocated so far; there must be one at least. */
    private static long eventLoopsAllocated() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("epollEventLoops") || t.getName().startsWith("ioUring")
                        || t.getName().startsWith("pgmux-loop") || t.getName().startsWith("multiThreadIoEventLoopGroup"))
                .toList();
        assertFalse(loops.isEmpty(), "no event-loop thread found");
        return loops.stream().mapToLong(t -> threads.getThreadAllocatedBytes(t.getId())).sum();
    }
}
