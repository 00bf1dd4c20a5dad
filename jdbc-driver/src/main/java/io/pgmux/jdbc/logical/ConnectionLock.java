package io.pgmux.jdbc.logical;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * A reentrant lock kept in the fields of the logical connection it guards, so that a connection costs no
 * lock object: almost every connection is used by one thread at a time, and taking the lock is then one
 * CAS on its owner field and releasing it one volatile store. Like ReentrantLock.lock() it ignores
 * interrupts, keeping the interrupt status for the caller; unlock by a thread that does not hold it fails.
 *
 * <p>Threads that find it taken (close() or a statement from another thread) wait in {@link Waiters}, an
 * AbstractQueuedSynchronizer created at the first contention whose acquire is the same CAS on the owner.
 * They park without a timeout, never inside a monitor, so virtual threads do not pin. Unlock clears the
 * owner with a volatile store, a full fence, before it looks for waiters; a waiter marks itself waiting
 * before its last try at the owner. So either that try sees the lock free or unlock sees the waiter and
 * wakes it: no wake-up is lost. Not fair: a thread that arrives while the lock is free takes it even if
 * others wait (as in ReentrantLock's default mode); the waiters themselves are woken oldest first.
 */
abstract class ConnectionLock {
    private static final VarHandle OWNER;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OWNER = lookup.findVarHandle(ConnectionLock.class, "owner", Thread.class);
            WAITERS = lookup.findVarHandle(ConnectionLock.class, "waiters", Waiters.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Thread owner;
    /** How many times the owner holds the lock; touched only by the owner. */
    private int holds;
    /** Threads parked for the lock; null until two threads ever wanted it at once. */
    private volatile Waiters waiters;

    final void lock() {
        Thread me = Thread.currentThread();
        Thread o = owner;
        if (o == me) {
            holds++;
            return;
        }
        if (o != null || !OWNER.compareAndSet(this, null, me)) {
            lockContended();
        }
        holds = 1;
    }

    /** Takes the lock only if no thread holds it, without waiting; for a caller that must not block. */
    final boolean tryLock() {
        if (owner == null && OWNER.compareAndSet(this, null, Thread.currentThread())) {
            holds = 1;
            return true;
        }
        return false;
    }

    private void lockContended() {
        Waiters w = waiters;
        if (w == null) {
            WAITERS.compareAndSet(this, null, new Waiters(this));
            w = waiters;
        }
        w.acquire(1);
    }

    final void unlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("the connection's lock is not held by this thread");
        }
        if (--holds > 0) {
            return;
        }
        owner = null;
        Waiters w = waiters;
        if (w != null) {
            w.release(1);
        }
    }

    /**
     * The queue of threads waiting for a {@link ConnectionLock}, whose state is that lock's owner. A field,
     * not a superclass: the synchronizer's public methods would become public methods of the connection.
     */
    private static final class Waiters extends AbstractQueuedSynchronizer {
        private final ConnectionLock lock;

        Waiters(ConnectionLock lock) {
            this.lock = lock;
        }

        @Override
        protected boolean tryAcquire(int unused) {
            return lock.owner == null && OWNER.compareAndSet(lock, null, Thread.currentThread());
        }

        /** unlock() has already cleared the owner: the lock is free, so wake the oldest waiter. */
        @Override
        protected boolean tryRelease(int unused) {
            return true;
        }
    }
}
