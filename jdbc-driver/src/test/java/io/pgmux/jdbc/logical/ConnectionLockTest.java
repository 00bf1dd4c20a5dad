package io.pgmux.jdbc.logical;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/** The lock a logical connection is: exclusive, reentrant, parking its waiters until the unlock that frees it. */
class ConnectionLockTest {
    private static final class Guarded extends ConnectionLock {
        /** Deliberately not atomic: only the lock keeps increments from getting lost. */
        long counter;
        final AtomicInteger inside = new AtomicInteger();
    }

    @Test
    void threadsContendingForTheLockTakeItOneAtATimeAndNoneIsLeftWaiting() throws Exception {
        Guarded g = new Guarded();
        int threads = 8;
        int rounds = 20_000;
        AtomicBoolean overlap = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(startAfter(start, rounds, g, i -> {
                if (g.inside.incrementAndGet() != 1) {
                    overlap.set(true);
                }
                g.counter++;
                if (i % 64 == 0) {
                    Thread.yield();
                }
                g.inside.decrementAndGet();
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(w.isAlive(), "a thread is still waiting for the lock");
        }
        assertFalse(overlap.get(), "two threads held the lock at once");
        assertEquals((long) threads * rounds, g.counter);
    }

    @Test
    void tryLockTakesOnlyAFreeLockAndNeverWaits() throws Exception {
        Guarded g = new Guarded();
        g.lock();
        AtomicBoolean taken = new AtomicBoolean(true);
        Thread other = new Thread(() -> taken.set(g.tryLock()));
        other.start();
        other.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(taken.get(), "taken while held by another thread");
        g.unlock();
        assertTrue(g.tryLock());
        g.unlock();
        assertTrue(takenByAnotherThreadWithin(g, 10_000), "free again after tryLock's unlock");
    }

    @Test
    void theOwnerTakesTheLockAgainAndReleasesItOnlyWithItsLastUnlock() throws Exception {
        Guarded g = new Guarded();
        g.lock();
        g.lock();
        g.unlock();
        assertFalse(takenByAnotherThreadWithin(g, 100), "still held after one of two unlocks");
        g.unlock();
        assertTrue(takenByAnotherThreadWithin(g, 10_000));
    }

    @Test
    void eachUnlockWakesTheThreadParkedForTheLock() throws Exception {
        Guarded g = new Guarded();
        int rounds = 500;
        AtomicInteger go = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        Thread waiter = new Thread(() -> {
            for (int r = 1; r <= rounds; r++) {
                while (go.get() < r) {
                    Thread.yield();
                }
                g.lock();
                taken.set(r);
                g.unlock();
            }
        });
        waiter.setDaemon(true);
        waiter.start();
        for (int r = 1; r <= rounds; r++) {
            g.lock();
            go.set(r);
            awaitParked(waiter);
            g.unlock();
            await(taken, r, "the lock was handed to the parked thread in round " + r);
        }
        waiter.join(10_000);
        assertFalse(waiter.isAlive());
    }

    @Test
    void twoThreadsHandingTheLockBackAndForthAreEachWokenByTheOthersUnlockNeverByATimeout() throws Exception {
        Guarded g = new Guarded();
        int rounds = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] workers = new Thread[2];
        for (int t = 0; t < workers.length; t++) {
            workers[t] = startAfter(start, rounds, g, i -> {
                g.counter++;
                Thread.yield();
            });
        }
        start.countDown();
        long parked = 0;
        long pausing = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((workers[0].isAlive() || workers[1].isAlive()) && System.nanoTime() < deadline) {
            for (Thread w : workers) {
                Thread.State state = w.getState();
                if (state == Thread.State.WAITING) {
                    parked++;
                } else if (state == Thread.State.TIMED_WAITING) {
                    pausing++;
                }
            }
            Thread.yield();
        }
        assertFalse(workers[0].isAlive() || workers[1].isAlive(), "a thread was never woken for the lock");
        assertEquals(2L * rounds, g.counter);
        assertTrue(parked > 0, "the threads never waited for each other, so nothing was handed off");
        assertEquals(0, pausing, "times a thread was seen sleeping on a timeout instead of parked for an unlock");
    }

    @Test
    void anInterruptedWaiterKeepsWaitingAndKeepsItsInterruptStatus() throws Exception {
        Guarded g = new Guarded();
        g.lock();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            g.lock();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            g.unlock();
        });
        waiter.start();
        awaitParked(waiter);
        waiter.interrupt();
        waiter.join(200);
        assertTrue(waiter.isAlive(), "an interrupt does not end the wait for the lock");
        g.unlock();
        waiter.join(10_000);
        assertFalse(waiter.isAlive());
        assertTrue(interruptedAfter.get());
    }

    @Test
    void unlockingALockThisThreadDoesNotHoldFails() throws Exception {
        Guarded g = new Guarded();
        assertThrows(IllegalMonitorStateException.class, g::unlock);
        g.lock();
        AtomicBoolean refused = new AtomicBoolean();
        Thread other = new Thread(() -> {
            try {
                g.unlock();
            } catch (IllegalMonitorStateException expected) {
                refused.set(true);
            }
        });
        other.start();
        other.join();
        assertTrue(refused.get(), "another thread cannot unlock it");
        g.unlock();
    }

    private static boolean takenByAnotherThreadWithin(Guarded g, long millis) throws InterruptedException {
        AtomicBoolean taken = new AtomicBoolean();
        Thread other = new Thread(() -> {
            g.lock();
            taken.set(true);
            g.unlock();
        });
        other.setDaemon(true);
        other.start();
        other.join(millis);
        return taken.get();
    }

    /** Waits until {@code t} is parked without a timeout: then only an unpark can wake it. */
    private static void awaitParked(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertEquals(Thread.State.WAITING, t.getState(), "parked until woken, neither spinning nor pausing");
    }

    private static void await(AtomicInteger value, int expected, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.get() < expected && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertEquals(expected, value.get(), what);
    }

    /** A daemon thread that, once {@code start} opens, runs {@code body} {@code rounds} times holding the lock. */
    private static Thread startAfter(CountDownLatch start, int rounds, Guarded g, IntConsumer body) {
        Thread w = new Thread(() -> {
            try {
                start.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 0; i < rounds; i++) {
                g.lock();
                try {
                    body.accept(i);
                } finally {
                    g.unlock();
                }
            }
        });
        w.setDaemon(true);
        w.start();
        return w;
    }
}
