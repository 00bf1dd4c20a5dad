package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server set alone: membership, claiming idle servers, and counting them by state. */
class ServerSetTest {
    private static final long NOW = 1_000_000_000L;
    private static final long CHECK_DELAY = 30_000_000_000L;

    private final PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
            .config(PoolConfig.jdbcDefaults().build()).janitorPeriod(Duration.ZERO).build();
    /** The servers' owner; its own set stays empty, these tests fill sets of their own. */
    private final Pool<Conn> owner = registry.pool("app", "alice");
    private final ServerSet<Conn> set = new ServerSet<>();

    @AfterEach
    void closeRegistry() {
        registry.close();
    }

    private PooledServer<Conn> member(int state) {
        return member(state, null);
    }

    private PooledServer<Conn> member(int state, Object affinity) {
        PooledServer<Conn> s = new PooledServer<>(owner, NOW);
        s.affinity = affinity;
        s.lastUsedNanos = NOW;
        s.checkedNanos = NOW;
        moveTo(s, state);
        set.add(s);
        return s;
    }

    /** Walks a new server along its transitions to {@code state}. */
    private static void moveTo(PooledServer<Conn> s, int state) {
        if (state == PooledServer.LOGIN) {
            return;
        }
        if (state == PooledServer.CLOSING) {
            assertTrue(s.to(PooledServer.LOGIN, PooledServer.CLOSING));
            return;
        }
        assertTrue(s.to(PooledServer.LOGIN, PooledServer.ACTIVE));
        if (state != PooledServer.ACTIVE) {
            assertTrue(s.to(PooledServer.ACTIVE, state));
        }
    }

    @Test
    void claimingTakesEachIdleServerOnceAndSkipsTheBusyOnes() {
        member(PooledServer.ACTIVE);
        PooledServer<Conn> first = member(PooledServer.IDLE);
        member(PooledServer.LOGIN);
        PooledServer<Conn> second = member(PooledServer.IDLE);

        PooledServer<Conn> a = set.claimIdle(null);
        PooledServer<Conn> b = set.claimIdle(null);
        assertNotSame(a, b);
        assertTrue((a == first && b == second) || (a == second && b == first), "only idle servers are claimed");
        assertEquals(PooledServer.ACTIVE, a.state());
        assertEquals(PooledServer.ACTIVE, b.state());
        assertNull(set.claimIdle(null), "nothing idle is left");
    }

    @Test
    void aServerMadeIdleAgainCanBeClaimedAgain() {
        PooledServer<Conn> s = member(PooledServer.IDLE);
        assertSame(s, set.claimIdle(null));
        assertNull(set.claimIdle(null));
        assertTrue(s.to(PooledServer.ACTIVE, PooledServer.IDLE));
        assertSame(s, set.claimIdle(null));
    }

    @Test
    void claimingPrefersTheAffinityAskedForAndFallsBackToAnyIdleServer() {
        Object loopA = new Object();
        Object loopB = new Object();
        PooledServer<Conn> onA = member(PooledServer.IDLE, loopA);
        PooledServer<Conn> onB = member(PooledServer.IDLE, loopB);

        assertSame(onB, set.claimIdle(loopB));
        assertSame(onA, set.claimIdle(loopB), "none of that affinity is idle: any idle one");
    }

    @Test
    void aRemovedServerIsNeverClaimedAndRemovingItTwiceChangesNothing() {
        PooledServer<Conn> gone = member(PooledServer.IDLE);
        PooledServer<Conn> kept = member(PooledServer.ACTIVE);

        assertTrue(set.remove(gone));
        assertFalse(set.remove(gone));
        assertEquals(1, set.members().length);
        assertSame(kept, set.members()[0]);
        assertNull(set.claimIdle(null));
    }

    @Test
    void countingSortsTheServersByPgBouncerStateAndLeavesClosingOnesOut() {
        member(PooledServer.ACTIVE);
        member(PooledServer.ACTIVE);
        member(PooledServer.IDLE);
        member(PooledServer.IDLE).checkedNanos = NOW - CHECK_DELAY - 1;
        member(PooledServer.TESTED);
        member(PooledServer.LOGIN);
        member(PooledServer.LOGIN);
        member(PooledServer.LOGIN);
        member(PooledServer.CLOSING);

        ServerCounts c = set.count(NOW, CHECK_DELAY);
        assertEquals(2, c.active);
        assertEquals(1, c.idle);
        assertEquals(1, c.used, "idle for longer than server_check_delay");
        assertEquals(1, c.tested);
        assertEquals(3, c.login);
        assertEquals(3, c.inUse());
        assertEquals(2, c.unused());
    }

    @Test
    void assignmentsKeepTheLoansOfServersThatLeft() {
        PooledServer<Conn> leaving = member(PooledServer.ACTIVE);
        PooledServer<Conn> staying = member(PooledServer.ACTIVE);
        leaving.lend(this, NOW, null);
        leaving.lend(this, NOW, null);
        staying.lend(this, NOW, null);
        assertEquals(3, set.assignments());

        set.remove(leaving);
        assertEquals(3, set.assignments());
    }

    @Test
    void concurrentClaimsNeverLendOneServerToTwoThreads() throws Exception {
        int threads = 4;
        int claimsPerThread = 50_000;
        Map<PooledServer<Conn>, AtomicInteger> holders = new IdentityHashMap<>();
        holders.put(member(PooledServer.IDLE, "even"), new AtomicInteger());
        holders.put(member(PooledServer.IDLE), new AtomicInteger());
        AtomicLong claims = new AtomicLong();
        ConcurrentLinkedQueue<String> doubleLoans = new ConcurrentLinkedQueue<>();
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Object affinity = t % 2 == 0 ? "even" : null;
            Thread thread = new Thread(() -> {
                for (int n = 0; n < claimsPerThread; n++) {
                    PooledServer<Conn> s;
                    while ((s = set.claimIdle(affinity)) == null) {
                        Thread.yield();
                    }
                    AtomicInteger held = holders.get(s);
                    if (held.incrementAndGet() != 1) {
                        doubleLoans.add(s + " claimed while another thread held it");
                    }
                    claims.incrementAndGet();
                    held.decrementAndGet();
                    s.to(PooledServer.ACTIVE, PooledServer.IDLE);
                }
            }, "claimer-" + t);
            all.add(thread);
            thread.start();
        }
        for (Thread thread : all) {
            thread.join();
        }
        assertTrue(doubleLoans.isEmpty(), () -> doubleLoans.size() + " double loans, first: " + doubleLoans.peek());
        assertEquals((long) threads * claimsPerThread, claims.get());
        assertEquals(2, set.count(NOW, CHECK_DELAY).idle, "every server is idle again");
    }
}
