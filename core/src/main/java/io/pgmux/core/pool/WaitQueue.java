package io.pgmux.core.pool;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Clients waiting for a server connection, oldest first. {@link #size()} counts waiters that have not
 * ended yet; a waiter that timed out may stay in the queue until it is polled past.
 */
final class WaitQueue<S> {
    private final ConcurrentLinkedQueue<Waiter<S>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();

    /** Adds, then counts: a positive count therefore always has a waiter in the queue behind it. */
    void add(Waiter<S> waiter) {
        queue.add(waiter);
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
     * Null if the queue is empty.
     */
    Waiter<S> poll(Object affinity) {
        if (affinity != null) {
            Waiter<S> near = takeNear(affinity);
            if (near != null) {
                return near;
            }
        }
        return queue.poll();
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

    private Waiter<S> takeNear(Object affinity) {
        Waiter<S> head = queue.peek();
        if (head == null || head.affinity == affinity && head.isWaiting()) {
            return null; // the oldest is of that affinity (always so with one event loop): no walk, no iterator
        }
        int seen = 0;
        Iterator<Waiter<S>> it = queue.iterator();
        while (it.hasNext() && seen < AFFINITY_WINDOW) {
            Waiter<S> w = it.next();
            if (!w.isWaiting()) {
                continue;
            }
            if (w.affinity == affinity) {
                if (seen == 0) {
                    return null; // it is the oldest anyway: the plain poll takes it
                }
                // Two hand-offs may take the same waiter: only one offer succeeds, the other tries again.
                it.remove();
                return w;
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
        for (Waiter<S> w : queue) {
            if (w.isWaiting()) {
                return w;
            }
        }
        return null;
    }

    /** Ends the current wait of one waiter with a failure (close, interrupt, cancel); false if it had already ended. */
    boolean fail(Waiter<S> waiter, Throwable failure) {
        return fail(waiter, waiter.ticket(), failure);
    }

    /** Ends the wait of {@code seen} (see {@link Waiter#end}) with a failure; false if it had already ended. */
    boolean fail(Waiter<S> waiter, long seen, Throwable failure) {
        if (!waiter.end(seen, failure)) {
            return false;
        }
        waiting.decrementAndGet();
        queue.remove(waiter);
        waiter.deliver();
        return true;
    }

    /** The live asynchronous waiter that calls {@code callback}, or null. */
    Waiter<S> find(Object callback) {
        for (Waiter<S> w : queue) {
            if (w.calls(callback) && w.isWaiting()) {
                return w;
            }
        }
        return null;
    }

    /** Visits live waiters oldest first; the visitor may fail them. */
    void forEachWaiting(Consumer<Waiter<S>> visitor) {
        Iterator<Waiter<S>> it = queue.iterator();
        while (it.hasNext()) {
            Waiter<S> w = it.next();
            if (w.isWaiting()) {
                visitor.accept(w);
            } else {
                it.remove();
            }
        }
    }
}
