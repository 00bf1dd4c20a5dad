package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.ResourceLeakDetector;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the proxy's event loop allocates per relayed transaction once warm, measured on the loop's own thread
 * (ThreadMXBean's allocated bytes) through a real proxy, real clients and real PostgreSQL: the steady path of a
 * simple-query client in transaction mode keeps to a few bytes, so that garbage collection stays off the relay.
 */
@PostgresTest
class SteadyPathAllocationTest {
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;

    private final TestDatabase db;
    private PgMuxProxy proxy;
    private final List<RawClient> clients = new ArrayList<>();
    /** The tests' paranoid leak detection records a stack trace per buffer: what users run does not. */
    private final ResourceLeakDetector.Level leakDetection = ResourceLeakDetector.getLevel();

    SteadyPathAllocationTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void leakDetectionAsUsersRunIt() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterEach
    void stop() throws Exception {
        ResourceLeakDetector.setLevel(leakDetection);
        for (RawClient c : clients) {
            c.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aSelectInItsOwnTransactionAllocatesAtMost8BytesOnTheEventLoop() throws Exception {
        List<Thread> loops = startProxyWithOneLoop(4);
        connect(4);
        selects(WARM_UP);
        long before = allocated(loops);
        selects(MEASURED);
        long perTransaction = (allocated(loops) - before) / MEASURED;

        assertTrue(perTransaction <= 8, perTransaction + " B allocated per transaction on the event loop");
    }

    /**
     * Statements and answers longer than 64 bytes between short ones (BEGIN, END, their answers): each still arrives
     * in one read, so none is framed apart from its read.
     */
    @Test
    void aTransactionOfLongerStatementsAllocatesAtMost8BytesOnTheEventLoop() throws Exception {
        List<Thread> loops = startProxyWithOneLoop(4);
        connect(4);
        transactions(WARM_UP / 4);
        long before = allocated(loops);
        transactions(MEASURED / 4);
        long perTransaction = (allocated(loops) - before) / (MEASURED / 4);

        assertTrue(perTransaction <= 8, perTransaction + " B allocated per transaction on the event loop");
    }

    @Test
    void aSelectThatWaitsForItsServerAllocatesAtMost32BytesOnTheEventLoop() throws Exception {
        List<Thread> loops = startProxyWithOneLoop(1);
        connect(4);
        ExecutorService threads = Executors.newFixedThreadPool(clients.size());
        try {
            selectsTogether(threads, WARM_UP);
            long before = allocated(loops);
            selectsTogether(threads, MEASURED);
            long perTransaction = (allocated(loops) - before) / MEASURED;

            assertTrue(perTransaction <= 32, perTransaction + " B allocated per transaction on the event loop");
        } finally {
            threads.shutdownNow();
        }
    }

    private void connect(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            RawClient c = new RawClient(proxy.port());
            c.login(db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
            clients.add(c);
        }
    }

    /**
     * The proxy, with one event loop and {@code poolSize} servers: the event-loop threads it added (Netty's names
     * for them).
     */
    private List<Thread> startProxyWithOneLoop(int poolSize) {
        Set<Thread> existing = Thread.getAllStackTraces().keySet();
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.threads(1).defaultPoolSize(poolSize));
        List<Thread> added = Thread.getAllStackTraces().keySet().stream().filter(t -> !existing.contains(t))
                .filter(t -> t.getName().startsWith("epollEventLoops")
                        || t.getName().startsWith("multiThreadIoEventLoopGroup"))
                .collect(Collectors.toList());
        assertFalse(added.isEmpty());
        return added;
    }

    /** {@code n} selects, each its own transaction, the clients taking turns. */
    private void selects(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            RawClient c = clients.get(i % clients.size());
            c.query("SELECT 1");
            assertEquals("1", RawClient.firstColumn(c.readUntilReady()));
        }
    }

    /** A select of 100 bytes answered with a row of 100, as a text of this length. */
    private static final String LONGER_SELECT = "SELECT '" + "x".repeat(80) + "' AS padded_to_a_hundred_bytes";

    /**
     * {@code n} transactions of a BEGIN, two longer selects and an END, the clients taking turns: the short ones
     * teach Netty's adaptive receive buffers that reads are small.
     */
    private void transactions(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            RawClient c = clients.get(i % clients.size());
            c.query("BEGIN");
            c.readUntilReady();
            for (int j = 0; j < 2; j++) {
                c.query(LONGER_SELECT);
                assertEquals("x".repeat(80), RawClient.firstColumn(c.readUntilReady()));
            }
            c.query("END");
            c.readUntilReady();
        }
    }

    /**
     * {@code n} selects, each its own transaction, the clients all at once, each on a thread of its own: with fewer
     * servers than clients, most wait for theirs.
     */
    private void selectsTogether(ExecutorService threads, int n) throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (RawClient c : clients) {
            running.add(threads.submit(() -> {
                for (int i = 0; i < n / clients.size(); i++) {
                    c.query("SELECT 1");
                    assertEquals("1", RawClient.firstColumn(c.readUntilReady()));
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
    }

    private static long allocated(List<Thread> threads) {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : threads) {
            long bytes = bean.getThreadAllocatedBytes(t.getId());
            if (bytes > 0) {
                sum += bytes;
            }
        }
        return sum;
    }
}
