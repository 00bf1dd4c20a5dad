package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.server.ServerConnection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The logged-in clients by their cancel keys: found by the whole key, each key once, through growth and removals. */
class CancelKeysTest {
    private final PoolRegistry<ServerConnection> registry = PoolRegistry.<ServerConnection>builder()
            .connectors(key -> {
                throw new AssertionError("no pool is made");
            }).build();
    private final ProxyContext context = new ProxyContext(registry, null, null, new PreparedStatementLimit(0),
            () -> 1, Runnable::run);
    private final CancelKeys keys = new CancelKeys();

    @AfterEach
    void close() {
        registry.close();
    }

    private ClientConnection client(int processId, int secret) {
        ClientConnection client = new ClientConnection(context, new FrontendMessageDecoder());
        client.cancelKey = (long) processId << 32 | secret & 0xFFFF_FFFFL;
        return client;
    }

    private static BackendKeyData key(int processId, int secret) {
        return new BackendKeyData(processId, new byte[] {(byte) (secret >>> 24), (byte) (secret >>> 16),
            (byte) (secret >>> 8), (byte) secret});
    }

    @Test
    void aClientIsFoundByTheWholeKeyItWasGiven() {
        ClientConnection client = client(42, 0x9A0102F3);
        assertTrue(keys.add(client));
        assertSame(client, keys.find(key(42, 0x9A0102F3)));
        assertNull(keys.find(key(42, 0x9A0102F2)), "the same process id with another secret");
        assertNull(keys.find(key(43, 0x9A0102F3)), "the same secret with another process id");
    }

    @Test
    void aKeyWithALongerSecretFindsNone() {
        keys.add(client(42, 0));
        assertNull(keys.find(new BackendKeyData(42, new byte[32])));
    }

    @Test
    void aSecondClientWithTheSameKeyIsRefused() {
        ClientConnection first = client(7, 7);
        assertTrue(keys.add(first));
        assertFalse(keys.add(client(7, 7)));
        assertSame(first, keys.find(key(7, 7)));
        assertEquals(1, keys.view().size());
    }

    @Test
    void clientsWithTheSameProcessIdAndOtherSecretsAreEachFound() {
        // under peering a process id keeps 15 random bits: keys differ in their secrets
        List<ClientConnection> clients = new ArrayList<>();
        for (int secret = 0; secret < 500; secret++) {
            ClientConnection client = client(0x00010200, secret);
            assertTrue(keys.add(client));
            clients.add(client);
        }
        for (int secret = 0; secret < 500; secret++) {
            assertSame(clients.get(secret), keys.find(key(0x00010200, secret)));
        }
    }

    @Test
    void aRemovedClientIsGoneAndTheOthersAreStillFound() {
        List<ClientConnection> clients = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            ClientConnection client = client(i, ~i);
            keys.add(client);
            clients.add(client);
        }
        for (int i = 0; i < 2_000; i += 2) {
            keys.remove(clients.get(i));
        }
        for (int i = 0; i < 2_000; i++) {
            ClientConnection found = keys.find(key(i, ~i));
            if (i % 2 == 0) {
                assertNull(found, "removed: " + i);
            } else {
                assertSame(clients.get(i), found);
            }
        }
        assertEquals(1_000, keys.view().size());
        keys.remove(clients.get(0));
        assertEquals(1_000, keys.view().size(), "removing a client that is not there changes nothing");
    }

    @Test
    void theViewWalksEveryClientOnceThroughGrowthAndShrinking() {
        List<ClientConnection> clients = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            ClientConnection client = client(ThreadLocalRandom.current().nextInt(), i);
            keys.add(client);
            clients.add(client);
        }
        for (int i = 10; i < 10_000; i++) {
            keys.remove(clients.get(i));
        }
        Set<ClientConnection> walked = new HashSet<>();
        for (ClientConnection client : keys) {
            assertTrue(walked.add(client), "walked twice");
        }
        assertEquals(new HashSet<>(clients.subList(0, 10)), walked);
        assertEquals(10, keys.view().size());
        for (int i = 0; i < 10; i++) {
            assertSame(clients.get(i), keys.find(key((int) (clients.get(i).cancelKey >>> 32), i)));
        }
    }

    @Test
    void aStreamOverTheClientsToleratesClientsLeavingMeanwhile() {
        List<ClientConnection> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ClientConnection client = client(i, i);
            keys.add(client);
            clients.add(client);
        }
        // each client walked makes the others leave, as logouts on other loops may while SHOW CLIENTS walks them
        List<ClientConnection> walked = keys.view().stream().map(client -> {
            clients.stream().filter(other -> other != client).forEach(keys::remove);
            return client;
        }).toList();
        assertTrue(walked.size() < clients.size(), walked.size() + " walked: the clients gone before their turn are not");
    }

    @Test
    void lookupsWhileOtherThreadsAddAndRemoveFindOnlyTheClientOfTheKey() throws Exception {
        int threads = 4;
        int perThread = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<ClientConnection>>> kept = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                kept.add(pool.submit(() -> {
                    start.await();
                    List<ClientConnection> mine = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        ClientConnection client = client(thread, i);
                        assertTrue(keys.add(client));
                        if (i % 3 == 0) {
                            keys.remove(client);
                        } else {
                            mine.add(client);
                        }
                    }
                    return mine;
                }));
            }
            Future<Integer> lookups = pool.submit(() -> {
                start.await();
                int wrong = 0;
                for (int n = 0; n < 200_000; n++) {
                    int thread = n % threads;
                    int i = n % perThread;
                    ClientConnection found = keys.find(key(thread, i));
                    if (found != null && found.cancelKey != ((long) thread << 32 | i)) {
                        wrong++;
                    }
                }
                return wrong;
            });
            start.countDown();
            Set<ClientConnection> expected = new HashSet<>();
            for (Future<List<ClientConnection>> each : kept) {
                expected.addAll(each.get(60, TimeUnit.SECONDS));
            }
            assertEquals(0, lookups.get(60, TimeUnit.SECONDS));
            Set<ClientConnection> walked = new HashSet<>();
            keys.forEach(walked::add);
            assertEquals(expected, walked);
            for (ClientConnection client : expected) {
                assertSame(client, keys.find(BackendKeyData.ofLong(client.cancelKey)));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
