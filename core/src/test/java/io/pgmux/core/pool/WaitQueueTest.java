package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The wait queue links each client's one waiter for every wait: oldest first, each wait ended once. */
class WaitQueueTest {

    @Test
    void aWaiterQueuedAgainAndAgainIsServedOnceEachTime() {
        WaitQueue<Object> queue = new WaitQueue<>();
        AtomicInteger served = new AtomicInteger();
        Waiter<Object> w = Waiter.reusable(new Object(), (server, failure) -> served.incrementAndGet());
        for (int i = 1; i <= 3; i++) {
            w.restart(0, Long.MAX_VALUE, null);
            queue.add(w);
            Waiter<Object> polled = queue.poll(null);
            assertSame(w, polled);
            assertTrue(queue.offer(polled, polled.polledTicket, null));
            assertEquals(i, served.get());
            assertTrue(queue.isEmpty());
            assertNull(queue.poll(null));
        }
    }

    @Test
    void aFailedWaiterLeavesItsPlaceAndTheRestKeepTheirOrder() {
        WaitQueue<Object> queue = new WaitQueue<>();
        List<Waiter<Object>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Waiter<Object> w = Waiter.reusable(new Object(), (server, failure) -> { });
            w.restart(0, Long.MAX_VALUE, null);
            queue.add(w);
            waiters.add(w);
        }
        assertTrue(queue.fail(waiters.get(1), new CancellationException()));
        assertEquals(2, queue.size());
        assertSame(waiters.get(0), queue.poll(null));
        assertSame(waiters.get(2), queue.poll(null));
        assertNull(queue.poll(null));
    }

    @Test
    void aHandOffTakesAWaiterOfItsAffinityFromBehindTheOldest() {
        WaitQueue<Object> queue = new WaitQueue<>();
        Object here = new Object();
        Waiter<Object> elsewhere = Waiter.reusable(new Object(), (server, failure) -> { });
        Waiter<Object> near = Waiter.reusable(new Object(), (server, failure) -> { });
        elsewhere.restart(0, Long.MAX_VALUE, new Object());
        near.restart(0, Long.MAX_VALUE, here);
        queue.add(elsewhere);
        queue.add(near);
        assertSame(near, queue.poll(here));
        assertSame(elsewhere, queue.poll(here));
    }

    @Test
    void waitsEndedByHandOffsAndTimeoutsOnManyThreadsEachEndOnce() throws Exception {
        WaitQueue<Object> queue = new WaitQueue<>();
        int clients = 4;
        int waitsEach = 5_000;
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong ended = new AtomicLong();
        AtomicInteger twice = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        List<Waiter<Object>> all = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            AtomicLong lastEnded = new AtomicLong(-1);
            Waiter<Object>[] self = new Waiter[1];
            Object affinity = c % 2 == 0 ? "a" : "b";
            self[0] = Waiter.reusable(new Object(), (server, failure) -> {
                long ticket = self[0].ticket();
                if (lastEnded.getAndSet(ticket) == ticket) {
                    twice.incrementAndGet();
                }
                ended.incrementAndGet();
            });
            all.add(self[0]);
            threads.add(new Thread(() -> {
                Waiter<Object> w = self[0];
                for (int i = 0; i < waitsEach; i++) {
                    w.restart(0, Long.MAX_VALUE, affinity);
                    queue.add(w);
                    while (w.isWaiting()) {
                        Thread.yield();
                    }
                    while (lastEnded.get() != w.ticket()) {
                        Thread.yield(); // the ender delivers after its CAS: wait for the callback too
                    }
                }
            }));
        }
        for (int s = 0; s < 2; s++) {
            Object affinity = s == 0 ? "a" : "b";
            threads.add(new Thread(() -> {
                while (!done.get()) {
                    Waiter<Object> w = queue.poll(affinity);
                    if (w != null) {
                        queue.offer(w, w.polledTicket, null);
                    } else {
                        Thread.yield();
                    }
                }
            }));
        }
        Thread janitor = new Thread(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (!done.get()) {
                Waiter<Object> w = all.get(random.nextInt(all.size()));
                queue.fail(w, w.ticket(), new CancellationException("timed out"));
                Thread.yield();
            }
        });
        threads.add(janitor);
        threads.forEach(Thread::start);
        for (int c = 0; c < clients; c++) {
            threads.get(c).join(120_000);
        }
        done.set(true);
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertEquals((long) clients * waitsEach, ended.get(), "every wait ended");
        assertEquals(0, twice.get(), "no wait ended twice");
        assertEquals(0, queue.size());
        assertNull(queue.poll(null));
    }
}
