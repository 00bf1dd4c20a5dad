package io.pgmux.core.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Clients waiting for a server connection, oldest first. {@link #size()} counts waiters that have not ended yet.
 *
 * <p>The waiters are linked through fields of their own ({@link Waiter#prev}, {@link Waiter#next}), so that a wait
 * makes no queue node: a client keeps one waiter for all its waits, and each wait links it again. A waiter queued
 * again is why a lock guards the links rather than CAS: a lock-free queue of reused nodes meets the ABA problem at
 * its first re-queue. What the lock guards is a few stores (link, unlink, a walk of at most
 * {@link #AFFINITY_WINDOW} waiters); no callback runs under it, and {@link #isEmpty()}, which every acquire and release
 * asks, reads only the count.
 */
final class WaitQueue<S> {
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}, as every waiter's links. */
    private Waiter<S> head;
    private Waiter<S> tail;
    private final AtomicInteger waiting = new AtomicInteger();

    /** Adds, then counts: a positive count therefore always has a waiter in the queue behind it. */
    void add(Waiter<S> waiter) {
        lock.lock();
        try {
            // every end of a queued wait unlinks it (fail) or follows its unlink (poll) before the client hears of it
            assert !waiter.queued : "a waiter queued again before its last wait was unlinked";
            waiter.prev = tail;
            waiter.next = null;
            if (tail == null) {
                head = waiter;
            } else {
                tail.next = waiter;
            }
            tail = waiter;
            waiter.queued = true;
        } finally {
            lock.unlock();
        }
        waiting.incrementAndGet();
    }

    int size() {
        return waiting.get();
    }

    boolean isEmpty() {
        return waiting.get() <= 0;
    }

    /** How many waiters at the head a hand-off looks at for one of the server's affinity. */
    static final int AFFINITY_WINDOW = 8;
    /** A waiter passed over this often is served strictly in turn. */
    static final int MAX_PASSED_OVER = 4;

    /**
     * Takes out the waiter to offer a server of the given affinity: one of that affinity among the first
     * {@link #AFFINITY_WINDOW} live ones, unless a waiter ahead of it has been passed over
     * {@link #MAX_PASSED_OVER} times already; otherwise (and when {@code affinity} is null) the oldest.
     * Null if the queue is empty. The wait taken out is {@link Waiter#polledTicket}'s, the one to {@link #offer}.
     */
    Waiter<S> poll(Object affinity) {
        lock.lock();
        try {
            Waiter<S> taken = affinity != null ? near(affinity) : null;
            if (taken == null) {
                taken = head;
            }
            if (taken != null) {
                taken.polledTicket = taken.ticket();
                unlink(taken);
            }
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Offers a polled waiter the server lent to its holder; false if it had ended (and was counted out). The wait is
     * counted out before its client hears of it: a client that gives the server straight back, on this thread, finds
     * the queue without it, where it would find a waiter counted that no poll returns and serve it for ever.
     */
    boolean offer(Waiter<S> waiter, long seen, PooledServer<S> server) {
        if (!waiter.end(seen, server)) {
            return false;
        }
        waiting.decrementAndGet();
        waiter.deliver();
        return true;
    }

    /** The waiter of that affinity {@link #poll} takes before the oldest, or null for the oldest. Under the lock. */
    private Waiter<S> near(Object affinity) {
        Waiter<S> first = head;
        if (first == null || first.affinity == affinity && first.isWaiting()) {
            return null; // the oldest is of that affinity (always so with one event loop): no walk
        }
        int seen = 0;
        for (Waiter<S> w = first; w != null && seen < AFFINITY_WINDOW; w = w.next) {
            if (!w.isWaiting()) {
                continue;
            }
            if (w.affinity == affinity) {
                return seen == 0 ? null : w; // the oldest live one is of that affinity anyway: the plain poll
            }
            if (w.passedOver >= MAX_PASSED_OVER) {
                return null;
            }
            w.passedOver++;
            seen++;
        }
        return null;
    }

    /** The oldest waiter still waiting, or null. */
    Waiter<S> oldest() {
        lock.lock();
        try {
            for (Waiter<S> w = head; w != null; w = w.next) {
                if (w.isWaiting()) {
                    return w;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the current wait of one waiter with a failure (close, interrupt, cancel); false if it had already ended. */
    boolean fail(Waiter<S> waiter, Throwable failure) {
        return fail(waiter, waiter.ticket(), failure);
    }

    /**
     * Ends the wait of {@code seen} (see {@link Waiter#end}) with a failure, if it is queued; false otherwise: it had
     * ended, or a hand-off took it out and serves it now, or it is a reused waiter's next wait, not queued yet (a
     * janitor's pass reads the ticket after it chose the waiter). Ended, counted out and unlinked under the lock, so
     * that the client, which hears of it only after, never restarts a waiter still linked for the wait that ended.
     */
    boolean fail(Waiter<S> waiter, long seen, Throwable failure) {
        lock.lock();
        try {
            if (!waiter.queued || !waiter.end(seen, failure)) {
                return false;
            }
            waiting.decrementAndGet();
            unlink(waiter);
        } finally {
            lock.unlock();
        }
        waiter.deliver();
        return true;
    }

    /** The live asynchronous waiter that calls {@code callback}, or null. */
    Waiter<S> find(Object callback) {
        lock.lock();
        try {
            for (Waiter<S> w = head; w != null; w = w.next) {
                if (w.calls(callback) && w.isWaiting()) {
                    return w;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Visits live waiters oldest first; the visitor may fail them. It runs outside the lock, on the waiters live
     * when the visit began (the janitor's pass, a pool's close: not a transaction's path, so the list made is no
     * cost that matters).
     */
    void forEachWaiting(Consumer<Waiter<S>> visitor) {
        List<Waiter<S>> live = new ArrayList<>();
        lock.lock();
        try {
            for (Waiter<S> w = head; w != null; w = w.next) {
                if (w.isWaiting()) {
                    live.add(w);
                }
            }
        } finally {
            lock.unlock();
        }
        for (Waiter<S> w : live) {
            if (w.isWaiting()) {
                visitor.accept(w);
            }
        }
    }

    /** Takes {@code w} out of the list. Under the lock; {@code w} is queued. */
    private void unlink(Waiter<S> w) {
        Waiter<S> before = w.prev;
        Waiter<S> after = w.next;
        if (before == null) {
            head = after;
        } else {
            before.next = after;
        }
        if (after == null) {
            tail = before;
        } else {
            after.prev = before;
        }
        w.prev = null;
        w.next = null;
        w.queued = false;
    }
}
