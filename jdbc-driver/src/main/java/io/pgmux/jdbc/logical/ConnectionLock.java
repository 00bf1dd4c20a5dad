package io.pgmux.jdbc.logical;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A reentrant lock kept in the fields of the logical connection it guards, so that a connection costs no
 * lock object: almost every connection is used by one thread at a time, and taking the lock is then one
 * CAS and releasing it a plain store. Threads that find it taken (close() or a statement from another
 * thread) queue in a list created at the first contention and park, never spin, so virtual threads do not
 * pin; like ReentrantLock.lock() it ignores interrupts, keeping the interrupt status for the caller.
 *
 * <p>Unlock clears the owner with a release store, not a full fence, and then wakes the oldest queued
 * thread. A thread that queues in the instant between the two may not be seen, so waiters park with a
 * timeout ({@link #FIRST_PAUSE_NANOS}, doubling up to {@link #LONGEST_PAUSE_NANOS}) and try again: a
 * missed wake-up costs at most one pause, and the uncontended path pays no fence.
 */
abstract class ConnectionLock {
    static final long FIRST_PAUSE_NANOS = 20_000;
    static final long LONGEST_PAUSE_NANOS = 5_000_000;

    private static final VarHandle OWNER;
    private static final VarHandle WAITING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OWNER = lookup.findVarHandle(ConnectionLock.class, "owner", Thread.class);
            WAITING = lookup.findVarHandle(ConnectionLock.class, "waiting", ConcurrentLinkedQueue.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Thread owner;
    /** How many times the owner holds the lock; touched only by the owner. */
    private int holds;
    /** Threads parked for the lock, oldest first; null until two threads ever wanted it at once. */
    private volatile ConcurrentLinkedQueue<Thread> waiting;

    final void lock() {
        Thread me = Thread.currentThread();
        Thread o = owner;
        if (o == me) {
            holds++;
        } else if (o == null && OWNER.compareAndSet(this, null, me)) {
            holds = 1;
        } else {
            lockContended(me);
        }
    }

    /** Queues, then retries whenever unparked or its pause ends, until the lock is free. */
    private void lockContended(Thread me) {
        ConcurrentLinkedQueue<Thread> queue = waiting;
        if (queue == null) {
            WAITING.compareAndSet(this, null, new ConcurrentLinkedQueue<Thread>());
            queue = waiting;
        }
        queue.add(me);
        boolean interrupted = false;
        long pause = FIRST_PAUSE_NANOS;
        try {
            while (!OWNER.compareAndSet(this, null, me)) {
                LockSupport.parkNanos(this, pause);
                pause = Math.min(pause * 2, LONGEST_PAUSE_NANOS);
                interrupted |= Thread.interrupted();
            }
        } finally {
            queue.remove(me);
        }
        holds = 1;
        if (interrupted) {
            me.interrupt();
        }
    }

    final void unlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("the connection's lock is not held by this thread");
        }
        if (--holds > 0) {
            return;
        }
        OWNER.setRelease(this, null);
        ConcurrentLinkedQueue<Thread> queue = waiting;
        if (queue != null) {
            Thread next = queue.peek();
            if (next != null) {
                LockSupport.unpark(next);
            }
        }
    }
}
