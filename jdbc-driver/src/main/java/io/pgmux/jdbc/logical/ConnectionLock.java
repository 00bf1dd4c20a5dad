package io.pgmux.jdbc.logical;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A reentrant lock kept in the fields of the logical connection it guards, so that a connection costs no
 * lock object: almost every connection is used by one thread at a time, and taking the lock is then one
 * CAS. Threads that find it taken (close() or a statement from another thread) queue in a list created at
 * the first contention and park, never spin, so virtual threads do not pin; like ReentrantLock.lock() it
 * ignores interrupts, keeping the interrupt status for the caller.
 */
abstract class ConnectionLock {
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

    /**
     * Queues, then retries: a releasing thread clears the owner before it looks at the queue, so either
     * the retry sees the lock free or the releaser sees this thread queued and unparks it.
     */
    private void lockContended(Thread me) {
        ConcurrentLinkedQueue<Thread> queue = waiting;
        if (queue == null) {
            WAITING.compareAndSet(this, null, new ConcurrentLinkedQueue<Thread>());
            queue = waiting;
        }
        queue.add(me);
        boolean interrupted = false;
        try {
            while (!OWNER.compareAndSet(this, null, me)) {
                LockSupport.park(this);
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
        owner = null;
        ConcurrentLinkedQueue<Thread> queue = waiting;
        if (queue != null) {
            Thread next = queue.peek();
            if (next != null) {
                LockSupport.unpark(next);
            }
        }
    }
}
