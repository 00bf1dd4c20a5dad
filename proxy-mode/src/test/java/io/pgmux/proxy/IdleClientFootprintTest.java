package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an idle client holds: clients that logged in and ran one simple query each, then stay idle, keep no object
 * of a feature they did not use. Counted as the growth of the class histogram of live objects of this JVM (after a
 * full collection, as jcmd's GC.class_histogram prints it) from before the clients came to while they are idle;
 * one client came and went before, so that the pool and what it shares exist already.
 */
@PostgresTest
class IdleClientFootprintTest {
    private static final int CLIENTS = 50;
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+(\\S+)", Pattern.MULTILINE);

    private final TestDatabase db;
    private final List<RawClient> clients = new ArrayList<>();
    private PgMuxProxy proxy;
    private Map<String, Long> before;

    IdleClientFootprintTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void idleClients() throws Exception {
        // room for the batches a test may add
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.maxClientConn(4 * CLIENTS));
        try (RawClient first = idleClient()) {
            before = histogram();
        }
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(idleClient());
        }
    }

    private RawClient idleClient() throws Exception {
        RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
        client.query("SELECT 1");
        client.readUntilReady();
        return client;
    }

    @AfterEach
    void stop() throws Exception {
        for (RawClient client : clients) {
            client.close();
        }
        proxy.close();
    }

    /** Live instances per class, after a full collection. */
    private static Map<String, Long> histogram() throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, Long> instances = new HashMap<>();
        Matcher row = ROW.matcher(histogram);
        while (row.find()) {
            instances.put(row.group(2), Long.parseLong(row.group(1)));
        }
        return instances;
    }

    /** How many more instances of {@code className} live with the idle clients than before them. */
    private long added(String className) throws Exception {
        return histogram().getOrDefault(className, 0L) - before.getOrDefault(className, 0L);
    }

    @Test
    void idleClientsShareTheScannerOfQueryTextsForSessionState() throws Exception {
        long scanners = added("io.pgmux.proxy.client.Pinning$SessionStateText");
        assertTrue(scanners < CLIENTS, scanners + " scanners for " + CLIENTS + " clients");
    }

    @Test
    void clientsThatNeverNamedAStatementKeepNoMapOfNames() throws Exception {
        long maps = added("java.util.HashMap");
        assertTrue(maps < CLIENTS, maps + " more hash maps with " + CLIENTS + " clients");
    }

    /** A client that logs in and sends nothing, as an application's pool keeps many, has no relay yet. */
    @Test
    void clientsThatSentNothingSinceTheirLoginHaveNoRelay() throws Exception {
        Map<String, Long> queried = silentClients();
        String link = "io.pgmux.proxy.client.Link";
        long links = histogram().getOrDefault(link, 0L) - queried.getOrDefault(link, 0L);
        assertTrue(links < CLIENTS / 10, links + " more relays with " + CLIENTS + " silent clients");
    }

    /** The holder a client's decoder reuses for every read of the query phase comes with the relay. */
    @Test
    void clientsThatSentNothingSinceTheirLoginHaveNoReusedMessageHolder() throws Exception {
        Map<String, Long> queried = silentClients();
        String holder = "io.pgmux.proxy.protocol.FrontendMessage";
        long holders = histogram().getOrDefault(holder, 0L) - queried.getOrDefault(holder, 0L);
        assertTrue(holders < CLIENTS / 10, holders + " more message holders with " + CLIENTS + " silent clients");
    }

    /** Logs in {@link #CLIENTS} more clients that send nothing; returns the histogram from before they came. */
    private Map<String, Long> silentClients() throws Exception {
        Map<String, Long> queried = histogram();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD));
        }
        return queried;
    }

    /** A client whose user is its pool's (here the entry's forced user, of the same name) keeps no name of its own. */
    @Test
    void aClientKeepsNoCopyOfTheUserNameItsPoolHolds() throws Exception {
        PgMuxProxy own = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.users(Map.of(db.superuser(), ProxyFixture.PASSWORD)));
        try (RawClient client = RawClient.login(own, db.name(), db.superuser(), ProxyFixture.PASSWORD)) {
            String poolUser = own.registry().pools().iterator().next().key().user();
            assertSame(poolUser, own.clients().iterator().next().info().user());
        } finally {
            own.close();
        }
    }

    /**
     * A logged-in client over plain TCP on epoll is served without a Netty channel: no channel, pipeline or handler
     * context of Netty's stays with it.
     */
    @Test
    void idleClientsOverTcpKeepNoNettyChannelOrPipeline() throws Exception {
        for (String netty : new String[] {"io.netty.channel.epoll.EpollSocketChannel",
                "io.netty.channel.DefaultChannelPipeline", "io.netty.channel.DefaultChannelHandlerContext"}) {
            long kept = Await.value(() -> added(netty), n -> n < CLIENTS / 10, Duration.ofSeconds(10));
            assertTrue(kept < CLIENTS / 10, kept + " more " + netty + " with " + CLIENTS + " clients");
        }
    }

    /**
     * Clients of one listener share its local address: each keeps its own peer's address only. (The test's own
     * client sockets, in this JVM, hold none: they keep the address and port they connected to apart.)
     */
    @Test
    void idleClientsOfOneListenerShareTheirLocalAddress() throws Exception {
        long addresses = Await.value(() -> added("java.net.InetSocketAddress"), n -> n <= CLIENTS + CLIENTS / 10,
                Duration.ofSeconds(10));
        assertTrue(addresses <= CLIENTS + CLIENTS / 10, addresses + " more socket addresses with " + CLIENTS
                + " clients");
    }

    /** Clients that asked for the same settings at login share the values they were told, and hold no copy. */
    @Test
    void idleClientsOfOneApplicationShareTheValuesTheyWereTold() throws Exception {
        long arrays = added("[Ljava.lang.String;");
        assertTrue(arrays < CLIENTS / 10, arrays + " more arrays of strings with " + CLIENTS + " clients");
    }

    /** A socket's receive-buffer sizing is one small handle of pgmux's, not Netty's handle and calculator. */
    @Test
    void idleClientsKeepNoAdaptiveCalculatorOfNettys() throws Exception {
        long calculators = added("io.netty.util.internal.AdaptiveCalculator");
        assertTrue(calculators < CLIENTS / 10, calculators + " more calculators with " + CLIENTS + " clients");
    }

    /** A client keeps its cancel key as one long, in a table of the clients themselves: no key object, no map node. */
    @Test
    void idleClientsKeepNoKeyObjectOrMapNodeForTheirCancelKeys() throws Exception {
        long keys = added("io.pgmux.proxy.protocol.BackendKeyData");
        assertTrue(keys < CLIENTS / 10, keys + " more cancel key objects with " + CLIENTS + " clients");
        // The node of each in the set of client sockets is the one. Map nodes are also what the JVM makes for each class a loader
        // is asked for, at times of its own; a node each client keeps shows in every batch, so the least is counted.
        String node = "java.util.concurrent.ConcurrentHashMap$Node";
        long nodes = added(node);
        for (int batch = 0; batch < 2 && nodes > CLIENTS + CLIENTS / 10; batch++) {
            Map<String, Long> earlier = histogram();
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(idleClient());
            }
            nodes = Math.min(nodes, histogram().getOrDefault(node, 0L) - earlier.getOrDefault(node, 0L));
        }
        assertTrue(nodes <= CLIENTS + CLIENTS / 10, nodes + " more map nodes with " + CLIENTS + " clients");
    }
}
